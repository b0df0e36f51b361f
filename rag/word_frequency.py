"""English word frequencies (wordfreq's "best" English list) as a small on-disk lookup, so that asking how common a
word is costs almost no resident memory.

``wordfreq.zipf_frequency(word, "en")`` reads its whole English list into a Python dict on first use (~35 MiB
resident, measured in a serving process) and importing wordfreq costs ~10 MiB more. :func:`zipf_frequency` returns
the same values from the same list stored as two arrays (the words sorted, and each word's centibel band, as
wordfreq stores it), memory-mapped from the data folder, where they are written on first use (well under a second;
the pipeline writes them at ingest), named by the wordfreq version and a hash of this file, so a change to either
writes new ones. A lookup is a binary search that touches a few pages. Words of ASCII letters, digits and hyphens
(what the engine asks about: "3d", "gpt-4o", "F1") are looked up without importing wordfreq; anything else is
tokenized by wordfreq's own tokenizer first. Without a writable folder the arrays are built in memory (~11 MiB).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import logging
import math
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

FORMAT = 1
LANGUAGE = "en"
# Words that wordfreq's English tokenizer splits at hyphens only: ASCII lower-case letters and digits, hyphens between
# or around them ("state-of-the-art" -> state, of, the, art; "gpt-4o" -> gpt, 4o; checked against wordfreq.tokenize on
# the corpus's words and 50,000 random strings of letters, digits and hyphens). Anything else (dots, non-ASCII) goes
# through wordfreq's own tokenizer, except two shapes it keeps whole (checked the same way): decimal numbers, also
# with a unit or magnitude after them ("0.95", "1,000", "1.7b"), and dotted initials ("i.e", "u.s").
_PLAIN = re.compile(r"-*[a-z0-9]+(?:-+[a-z0-9]+)*-*")
_WHOLE = re.compile(r"[0-9]+(?:[.,][0-9]+)+[a-z0-9]*|[a-z](?:\.[a-z])+")
# zipf_frequency's default minimum (Zipf 0) as a frequency: what an unknown word gets.
_MIN_FREQ = 10**0 / 1e9

_cache_dir: Path | None = None


class Frequencies:
    """Read-only lookups in the sorted records (word as fixed-width UTF-8, then its band): a binary search that
    reads one record per step, ~20 per lookup, with ``os.pread`` from the file (not memory-mapped: measured, each
    lookup in a mapped file made megabytes of it resident, the kernel mapping more than the page read) or from an
    in-memory array."""

    def __init__(self, records: np.ndarray | None = None, path: Path | None = None) -> None:
        if path is not None:
            with open(path, "rb") as handle:
                version = np.lib.format.read_magic(handle)
                if version == (1, 0):
                    shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
                else:
                    shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
                self._offset = handle.tell()
            self._fd = os.open(path, os.O_RDONLY)
            self._records = None
        else:
            assert records is not None
            shape, fortran, dtype = records.shape, False, records.dtype
            self._records = records
        if len(shape) != 1 or fortran or dtype.names != ("word", "band") or dtype["word"].kind != "S":
            raise ValueError(f"unexpected word frequency records {dtype} {shape}")
        self._count = int(shape[0])
        self._size = dtype.itemsize
        self._width = dtype["word"].itemsize
        self.where = str(path) if path is not None else ":memory:"

    def _record(self, index: int) -> tuple[bytes, int]:
        if self._records is not None:
            raw = self._records[index : index + 1].tobytes()
        else:
            raw = os.pread(self._fd, self._size, self._offset + index * self._size)
        return raw[: self._width].rstrip(b"\0"), int.from_bytes(raw[self._width :], "little")

    def band(self, word: str) -> int | None:
        """The word's centibel band (its frequency is 10 ** (-band / 100)), None when it is not listed."""
        key = word.encode("utf-8")
        if not key or len(key) > self._width or key.endswith(b"\0"):
            return None
        low, high = 0, self._count
        while low < high:  # the first record whose word is not below key (bisect_left)
            middle = (low + high) // 2
            if self._record(middle)[0] < key:
                low = middle + 1
            else:
                high = middle
        if low < self._count:
            found, band = self._record(low)
            if found == key:
                return band
        return None

    def __len__(self) -> int:
        return self._count


def records(bands: Iterable[list[str]]) -> np.ndarray:
    """The sorted records (word as UTF-8 bytes, band) of ``bands``: the i-th list holds the words of frequency
    10 ** (-i / 100). A word listed twice keeps its last (rarer) band, as wordfreq's dict does."""
    band_of: dict[bytes, int] = {}
    for index, words in enumerate(bands):
        for word in words:
            band_of[word.encode("utf-8")] = index
    keys = sorted(k for k in band_of if k and not k.endswith(b"\0"))  # "S" arrays drop trailing NULs
    dtype = np.dtype([("word", f"S{max(map(len, keys), default=1)}"), ("band", "<u2")])
    out = np.empty(len(keys), dtype)
    out["word"] = keys
    out["band"] = [band_of[k] for k in keys]
    return out


def zipf_of(tokens: list[str], band: Callable[[str], int | None]) -> float:
    """wordfreq's Zipf frequency of a word split into ``tokens`` (its ``_word_frequency`` and ``zipf_frequency``
    with the default minimum, for a language without inferred word breaks): frequencies of several tokens combine
    as 1/f = 1/f1 + 1/f2 + ...; a digit sequence is looked up with its digits as zeroes, times wordfreq's estimate
    for those digits; any unlisted token makes the word unknown (Zipf 0)."""
    if not tokens:
        return _zipf(_MIN_FREQ)
    one_over = 0.0
    for token in tokens:
        smashed = token
        if any(ch.isdigit() for ch in token):
            smashed = _numbers().smash_numbers(token)
        index = band(smashed)
        if index is None:
            return _zipf(_MIN_FREQ)
        freq = 10 ** (-index / 100)
        if smashed != token:
            freq *= _numbers().digit_freq(token)
        one_over += 1.0 / freq
    unrounded = max(1.0 / one_over, _MIN_FREQ)
    leading_zeroes = math.floor(-math.log(unrounded, 10))
    return _zipf(round(unrounded, leading_zeroes + 3))  # wordfreq keeps 3 significant digits


@lru_cache(maxsize=1)
def _numbers():
    """wordfreq's ``numbers`` module (it imports only ``regex``) loaded from its file: importing it as
    ``wordfreq.numbers`` first runs wordfreq's package init (langcodes, msgpack, its tokenizer: ~7 MiB resident,
    measured in a serving process on the first question with a word such as "3d")."""
    origin = importlib.util.find_spec("wordfreq").origin
    spec = importlib.util.spec_from_file_location("rag._wordfreq_numbers", Path(origin).parent / "numbers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _zipf(freq: float) -> float:
    return round(math.log(freq, 10) + 9, 2)


def use_cache_dir(path: Path | None) -> None:
    """Where the table is written and read (the data folder's models folder; set by the pipeline). A table this
    process already opened stays in use: its content depends only on the wordfreq version and this file."""
    global _cache_dir
    _cache_dir = path


@lru_cache(maxsize=50_000)
def zipf_frequency(word: str) -> float:
    """``wordfreq.zipf_frequency(word, "en")``, read from the on-disk table (0 unknown .. ~7.7 "the")."""
    folded = word.lower() if word.isascii() else word  # wordfreq case-folds; for ASCII that is lower()
    if _PLAIN.fullmatch(folded):
        tokens = [part for part in folded.split("-") if part]
    elif _WHOLE.fullmatch(folded):
        tokens = [folded]
    else:
        from wordfreq import lossy_tokenize

        tokens = lossy_tokenize(word, LANGUAGE)
    return zipf_of(tokens, table().band)


_lock = threading.Lock()
_table: Frequencies | None = None


def table() -> Frequencies:
    """The English list's table, opened once per process: the file in the folder set by :func:`use_cache_dir`
    (written there first, by a child process, when missing), else (none, read-only or failing) built in memory."""
    global _table
    with _lock:
        if _table is None:
            from importlib.metadata import version

            _table = load(_source, version("wordfreq"), _cache_dir)
        return _table


def prepare() -> None:
    """Open the table (writing it first if missing) on a background thread, so no question waits for it."""
    if _table is None:
        threading.Thread(target=table, name="word-frequency", daemon=True).start()


def _source() -> Path:
    """wordfreq's file of the list (importing wordfreq: only to build the table)."""
    from wordfreq import available_languages

    return Path(available_languages("best")[LANGUAGE])


def read_bands(source: Path) -> Iterator[list[str]]:
    """The bands of a wordfreq cBpack file (gzip'd msgpack: a header, then one list of words per centibel), one
    at a time."""
    import msgpack

    with gzip.open(source, "rb") as handle:
        unpacker = msgpack.Unpacker(handle, raw=False)
        count = unpacker.read_array_header()
        header = unpacker.unpack()
        if not isinstance(header, dict) or header.get("format") != "cB" or header.get("version") != 1:
            raise ValueError(f"unexpected wordfreq header {header!r}")
        for _ in range(count - 1):
            yield unpacker.unpack()


def cache_name(source_version: str) -> str:
    """The cached table's folder name: the source's version and this file's (the lookup rules') hash."""
    code = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    version = re.sub(r"[^A-Za-z0-9.]+", "-", source_version)
    return f"wordfreq-{LANGUAGE}-{version}-f{FORMAT}-{code}.npy"


def _write(path: Path, table: np.ndarray) -> None:
    """Write the records beside ``path``, then rename: a concurrent process sees no table or the whole table."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            np.save(handle, table)
        os.chmod(tmp, 0o644)  # readable like the other cached models
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def _write_in_child(path: Path) -> None:
    """Write the table in a child process (``python -m rag.word_frequency PATH``): reading wordfreq's list takes
    ~40 MiB for a moment and importing wordfreq ~10 MiB for good, which a serving process should not carry."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    subprocess.run([sys.executable, "-m", "rag.word_frequency", str(path)], env=env, check=True, timeout=600,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip


def load(source: Callable[[], Path], source_version: str, cache_dir: Path | None) -> Frequencies:
    """The table of the cBpack file ``source()``: cached in ``cache_dir`` (written there by a child process when
    missing), else built in memory. ``source`` is only called to build the table in memory."""
    if cache_dir is not None:
        path = Path(cache_dir) / cache_name(source_version)
        try:
            if not path.exists():
                _write_in_child(path)
                log.info("word frequency table written at %s", path)
            return Frequencies(path=path)
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            log.warning("word frequency table not usable in %s (%s): building it in memory", cache_dir, exc)
    return Frequencies(records(read_bands(source())))


def main(argv: list[str] | None = None) -> int:
    """``python -m rag.word_frequency PATH``: write the table of wordfreq's English list to PATH."""
    (target,) = sys.argv[1:] if argv is None else argv
    _write(Path(target), records(read_bands(_source())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
