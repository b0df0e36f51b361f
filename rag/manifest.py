"""The manifest: the list of abstracts and chunks in the last *complete* ingest, written atomically.

Chroma writes are not transactional, so the manifest is the commit point: readers trust only what it lists, and an
interrupted ingest leaves the previous manifest (and so the previous index) in force.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rag.chunking import Chunk
from rag.corpus import Abstract, Location
from rag.errors import IndexCorruptError, IndexNotBuiltError
from rag.text import sentence_spans

MANIFEST_NAME = "manifest.json"
FORMAT = 1


@dataclass(frozen=True, slots=True)
class Manifest:
    collection: str
    embed_model: str
    abstracts: tuple[Abstract, ...]
    chunks: tuple[Chunk, ...]
    generation: int
    written_at: float

    def abstract_ids(self) -> set[str]:
        return {a.id for a in self.abstracts}


def save_manifest(index_dir: Path, manifest: Manifest) -> None:
    index_dir.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "collection": manifest.collection,
        "embed_model": manifest.embed_model,
        "generation": manifest.generation,
        "written_at": manifest.written_at,
        "abstracts": [
            {
                "id": a.id,
                "label": a.label,
                "content_hash": a.content_hash,
                "locations": [[loc.file, loc.position] for loc in a.locations],
                "text": a.text,
            }
            for a in manifest.abstracts
        ],
        "chunks": [[c.id, c.abstract_id, c.ordinal, c.start, c.end] for c in manifest.chunks],
    }
    # Write-then-rename: readers see the old file or the new one, never half of one.
    fd, tmp = tempfile.mkstemp(prefix=".manifest-", suffix=".tmp", dir=index_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(payload, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, index_dir / MANIFEST_NAME)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_manifest(index_dir: Path) -> Manifest:
    path = index_dir / MANIFEST_NAME
    if not path.exists():
        raise IndexNotBuiltError(f"No index has been built yet for {index_dir.name}")
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        if payload.get("format") != FORMAT:
            raise ValueError(f"unknown manifest format {payload.get('format')!r}")
        abstracts = tuple(
            Abstract(
                id=a["id"],
                label=a["label"],
                text=a["text"],
                locations=tuple(Location(f, int(p)) for f, p in a["locations"]),
                content_hash=a["content_hash"],
                sentences=tuple(sentence_spans(a["text"])),
            )
            for a in payload["abstracts"]
        )
        texts = {a.id: a.text for a in abstracts}
        chunks = tuple(
            Chunk(id=cid, abstract_id=aid, ordinal=int(o), start=int(s), end=int(e), text=texts[aid][s:e])
            for cid, aid, o, s, e in payload["chunks"]
        )
        return Manifest(
            collection=payload["collection"],
            embed_model=payload["embed_model"],
            abstracts=abstracts,
            chunks=chunks,
            generation=int(payload["generation"]),
            written_at=float(payload["written_at"]),
        )
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise IndexCorruptError(f"The index manifest in {index_dir.name} is unreadable ({exc})") from None


def new_manifest(previous: Manifest | None, collection: str, embed_model: str, abstracts, chunks) -> Manifest:
    return Manifest(
        collection=collection,
        embed_model=embed_model,
        abstracts=tuple(abstracts),
        chunks=tuple(chunks),
        generation=(previous.generation + 1) if previous else 1,
        written_at=time.time(),
    )
