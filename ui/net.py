"""Checks `rag ui` makes before serving, kept apart from the app so the CLI runs them without importing Gradio
(a fresh clone's first start indexes the seeds while Gradio imports, once the bind is known to be allowed)."""

from __future__ import annotations

import errno
import ipaddress
import socket


def check_host(host: str, auth: tuple[str, str] | None, insecure: bool) -> None:
    """Refuse to serve a non-loopback address without a password unless explicitly told to."""
    if auth is not None and not (
        isinstance(auth, tuple | list) and len(auth) == 2 and all(isinstance(x, str) and x for x in auth)
    ):
        raise ValueError("auth must be a (user, password) pair of non-empty strings")
    if is_loopback(host) or auth is not None or insecure:
        return
    raise ValueError(
        f"Refusing to serve the UI on {host!r} without a password: anyone who can reach that address could use it. "
        "Give a user and password (auth=(user, password); RAG_UI_AUTH='user:password'), bind 127.0.0.1, "
        "or pass insecure=True if the network is otherwise protected."
    )


def is_loopback(host: str) -> bool:
    host = (host or "").strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def port_in_use(host: str, port: int) -> bool:
    """Whether something already listens on ``host:port`` (bound the way uvicorn binds, so a port in TIME_WAIT
    after a restart counts as free)."""
    if port == 0:
        return False
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host.strip("[]") or "0.0.0.0", port))
        except OSError as exc:
            return exc.errno in (errno.EADDRINUSE, errno.EACCES)
    return False
