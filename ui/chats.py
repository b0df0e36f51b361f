"""Saved conversations: the plain data the page keeps in the browser's own storage (``gr.BrowserState``).

Pure functions over one JSON-able store::

    {"current": "<chat id>" | None,
     "chats": [{"id", "title", "updated", "messages": [chat messages], "turns": [turn records]}, ...]}

``messages`` are the chatbot's messages (HTML built by ``ui.render``, two per question); ``turns`` one record per
question (see ``ui.export.turn_record``). Nothing here is sent anywhere: the store lives in the browser and reaches
the server only as the input of the page's own events. It comes from the browser, so :func:`normalize` accepts
anything and keeps only what has the expected shape; a damaged store never breaks the page.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

MAX_CHATS = 40
MAX_STORE_CHARS = 3_000_000  # localStorage holds about 5 MB per site; stay well under it
TITLE_CHARS = 60


def empty() -> dict[str, Any]:
    return {"current": None, "chats": []}


def new_id() -> str:
    return secrets.token_hex(6)


def title_of(turns: Sequence[Mapping[str, Any]]) -> str:
    """A chat's title: its first question, shortened."""
    for turn in turns:
        question = " ".join(str(turn.get("question", "")).split())
        if question:
            return question if len(question) <= TITLE_CHARS else question[: TITLE_CHARS - 1].rstrip() + "…"
    return "New chat"


def message_text(content: object) -> str | None:
    """A chat message's content as one string: Gradio hands messages back with their content as a list of parts
    (``[{"type": "text", "text": ...}]``); None for content that is not text."""
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        return content.get("text") if isinstance(content.get("text"), str) else None
    if isinstance(content, list):
        parts = [message_text(part) for part in content]
        return "".join(parts) if parts and all(isinstance(p, str) for p in parts) else None
    return None


def _valid_chat(chat: object) -> dict[str, Any] | None:
    if not isinstance(chat, Mapping):
        return None
    chat_id, messages, turns = chat.get("id"), chat.get("messages"), chat.get("turns")
    if not isinstance(chat_id, str) or not chat_id or len(chat_id) > 64:
        return None
    if not isinstance(messages, list) or not isinstance(turns, list):
        return None
    if not all(isinstance(m, Mapping) and message_text(m.get("content")) is not None for m in messages):
        return None
    if not all(isinstance(t, Mapping) for t in turns) or len(messages) != 2 * len(turns):
        return None
    updated = chat.get("updated") if isinstance(chat.get("updated"), str) else ""
    scope = chat.get("scope")
    valid_scope = (
        {"id": scope["id"], "label": scope["label"]}
        if isinstance(scope, Mapping) and isinstance(scope.get("id"), str) and isinstance(scope.get("label"), str)
        else None
    )
    return {
        "id": chat_id,
        "title": title_of(turns),
        "updated": updated,
        "messages": [
            {"role": "user" if m.get("role") == "user" else "assistant", "content": message_text(m["content"])}
            for m in messages
        ],
        "turns": [dict(t) for t in turns],
        "scope": valid_scope,  # the paper a chat from Browse's "Ask about this paper" is about
    }


def normalize(store: object) -> dict[str, Any]:
    """The store as read from the browser, with anything malformed dropped (never raises)."""
    if not isinstance(store, Mapping):
        return empty()
    chats = []
    seen = set()
    raw = store.get("chats")
    for chat in raw if isinstance(raw, list) else []:
        valid = _valid_chat(chat)
        if valid is not None and valid["id"] not in seen:
            seen.add(valid["id"])
            chats.append(valid)
    current = store.get("current")
    return {"current": current if current in seen else None, "chats": chats}


def get(store: object, chat_id: object) -> dict[str, Any] | None:
    for chat in normalize(store)["chats"]:
        if chat["id"] == chat_id:
            return chat
    return None


def _fit(chats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The newest chats that fit the count and size limits (the newest one is always kept)."""
    chats = chats[:MAX_CHATS]
    while len(chats) > 1 and len(json.dumps(chats)) > MAX_STORE_CHARS:
        chats = chats[:-1]
    return chats


def upsert(
    store: object,
    chat_id: str | None,
    messages: Sequence[Mapping[str, Any]],
    turns: Sequence[Mapping[str, Any]],
    *,
    scope: Mapping[str, Any] | None = None,
    now: datetime | None = None,
) -> tuple[dict[str, Any], str | None]:
    """The store with this chat saved (newest first) and made current; returns (store, chat id).

    An empty chat is not saved. A chat whose messages and turns do not line up is not saved either.
    """
    store = normalize(store)
    if not turns:
        return store, chat_id
    chat_id = chat_id or new_id()
    stamp = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M")
    chat = _valid_chat(
        {"id": chat_id, "updated": stamp, "messages": list(messages), "turns": list(turns), "scope": scope}
    )
    if chat is None:
        return store, chat_id
    others = [c for c in store["chats"] if c["id"] != chat_id]
    return {"current": chat_id, "chats": _fit([chat, *others])}, chat_id


def remove(store: object, chat_id: object) -> dict[str, Any]:
    store = normalize(store)
    chats = [c for c in store["chats"] if c["id"] != chat_id]
    current = store["current"] if store["current"] != chat_id else None
    return {"current": current, "chats": chats}


def set_current(store: object, chat_id: str | None) -> dict[str, Any]:
    store = normalize(store)
    store["current"] = chat_id if any(c["id"] == chat_id for c in store["chats"]) else None
    return store


def choices(store: object) -> list[tuple[str, str]]:
    """(label, id) pairs for the list of saved chats, newest first."""
    out = []
    for chat in normalize(store)["chats"]:
        n = len(chat["turns"])
        label = f"{chat['title']} · {n} question{'s' if n != 1 else ''}"
        if chat["updated"]:
            label += f" · {chat['updated']}"
        out.append((label, chat["id"]))
    return out
