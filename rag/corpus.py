"""Seed files -> abstracts: parse, validate, dedupe, stable IDs and display labels. Pure apart from reading files."""

from __future__ import annotations

import codecs
import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rag.errors import CorpusError
from rag.text import Span, has_name_capitals, normalize_whitespace, printable, sentence_spans

MAX_SEED_FILE_BYTES = 50 * 1024 * 1024  # a seed file is text; anything this big is a mistake, not a corpus
MIN_ABSTRACT_CHARS = 20
DEFAULT_MAX_ABSTRACT_CHARS = 20_000  # Settings.max_abstract_chars's default, for callers without settings
ID_HASH_CHARS = 4


@dataclass(frozen=True, slots=True)
class Location:
    """Where an abstract appears: the seed file's name and its 1-based position after the header."""

    file: str
    position: int

    def __str__(self) -> str:
        return f"{printable(self.file)} #{self.position}"  # a file name can hold terminal escape sequences


@dataclass(frozen=True, slots=True)
class Abstract:
    id: str
    label: str
    text: str
    locations: tuple[Location, ...]
    content_hash: str
    sentences: tuple[Span, ...] = field(default=(), compare=False)

    def sentence_texts(self) -> list[str]:
        return [span.of(self.text) for span in self.sentences]

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "label": self.label,
            "locations": [{"file": loc.file, "position": loc.position} for loc in self.locations],
            "text": self.text,
        }


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize_whitespace(text).encode("utf-8")).hexdigest()


# --- labels ---

# Tokens that name a method or benchmark: two or more capitals, or a capital followed by digits (AssayBench, sBMF,
# CATE, GPT-4o-like names). Generic field acronyms are not names of a paper's contribution.
_TOKEN = re.compile(r"(?<![\w-])([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)")


def _names(text: str) -> list[str]:
    """Tokens with at least two capitals (or a capital and a digit), hyphenated parts kept together."""
    return [t for t in _TOKEN.findall(text) if has_name_capitals(t)]


_GENERIC_NAMES = frozenset(
    [
        "AI",
        "ML",
        "LLM",
        "LLMs",
        "VLM",
        "VLMs",
        "MLLM",
        "MLLMs",
        "NLP",
        "RL",
        "GPU",
        "GPUs",
        "CPU",
        "API",
        "APIs",
        "SOTA",
        "CNN",
        "CNNs",
        "RNN",
        "GNN",
        "GNNs",
        "MLP",
        "MLPs",
        "PDE",
        "PDEs",
        "ODE",
        "ODEs",
        "SGD",
        "KL",
        "MSE",
        "ROC",
        "AUC",
        "IID",
        "OOD",
        "QA",
        "VQA",
        "LM",
        "LMs",
        "NN",
        "NNs",
        "CV",
        "ID",
        "IDs",
        "GB",
        "TB",
        "FLOPs",
        "PSD",
        "GUI",
        "CoT",
        "DPO",
        "UQ",
        "MARL",
        "MCTS",
        "T2I",
    ]
)
GENERIC_NAMES = _GENERIC_NAMES  # field acronyms, never the name of one work (also used by rag.lexicon)
_INTRO = re.compile(
    r"\b(?:we|We)\s+(?:present|propose|introduce|develop|design|build|release|call|name|term|construct|curate)\s+"
    r"(?:a\s+|an\s+|the\s+)?(?:new\s+|novel\s+)?",
)
_CALLED = re.compile(r"\b(?:called|named|dubbed|termed)\s+")


def _first_name_after(text: str, pattern: re.Pattern[str], window: int = 80) -> str | None:
    for match in pattern.finditer(text):
        tail = text[match.end() : match.end() + window]
        for name in _names(tail):
            if name not in _GENERIC_NAMES and len(name) >= 3:
                return name
    return None


# "We introduce Argument Graph Uncertainty, a …", "We present the Token Hypothesis, a …": a run of capitalised
# words (joined by & or -) that the sentence then describes.
_NAMED_RUN = re.compile(
    r"((?:[A-Z][\w]*(?:[&-][\w]+)*)(?:\s+(?:[A-Z][\w]*(?:[&-][\w]+)*|of|for|and))*?(?:\s+[A-Z][\w]*(?:[&-][\w]+)*)?)"
    r"(?=\s*(?:,|\(|:|\s+(?:that|which|to|for|as)\b))"
)


def _capitalised_name_after(text: str) -> str | None:
    for match in _INTRO.finditer(text):
        run = _NAMED_RUN.match(text, match.end())
        if run is None:
            continue
        name = run.group(1).strip()
        words = name.split()
        if len(words) >= 2 and len(words) <= 5 or any(c in name for c in "&") or len(_names(name)) > 0:
            return name
    return None


def make_label(text: str, max_words: int = 6) -> str:
    """A short display label: the method or benchmark the abstract names, else its opening words."""
    name = _first_name_after(text, _INTRO) or _first_name_after(text, _CALLED) or _capitalised_name_after(text)
    if name is None:
        counts = Counter(n for n in _names(text) if n not in _GENERIC_NAMES and len(n) >= 3)
        common = [n for n, c in counts.most_common() if c >= 3]
        name = common[0] if common else None
    if name:
        return name.rstrip(".,;:")
    words = normalize_whitespace(text).split()
    opening = " ".join(words[:max_words]).rstrip(".,;:")
    return opening + ("…" if len(words) > max_words else "")


def _slug(label: str, max_chars: int = 24) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")
    if len(slug) > max_chars:
        slug = slug[:max_chars].rsplit("-", 1)[0] or slug[:max_chars]
    return slug or "abstract"


def make_id(label: str, digest: str, hash_chars: int = ID_HASH_CHARS) -> str:
    """``<label-slug>-<hash prefix>``: readable, and stable because both parts come from the content."""
    return f"{_slug(label)}-{digest[:hash_chars]}"


# --- parsing ---


@dataclass(frozen=True, slots=True)
class SeedFile:
    """One parsed seed file: its header and the paragraphs after it, in order."""

    name: str
    header: str
    paragraphs: tuple[str, ...]


def _is_blank(line: str) -> bool:
    """Whitespace and invisible format characters only (U+200B, U+FEFF, bidi controls, ...): a line that looks empty
    is a paragraph break, not an abstract nobody can see."""
    return all(c.isspace() or unicodedata.category(c) == "Cf" for c in line)


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def _decode_by_bom(name: str, raw: bytes) -> str | None:
    """Text saved as UTF-16/32 with a byte-order mark (Windows Notepad's "Unicode"), or None for other files."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(encoding)
            except UnicodeDecodeError:
                raise CorpusError(
                    f"{name}: the file starts with a {encoding.upper()} byte-order mark but is not "
                    f"valid {encoding.upper()}",
                    hint="Save the file as UTF-8 text.",
                ) from None
    return None


def parse_seed_text(name: str, raw: bytes, max_abstract_chars: int = DEFAULT_MAX_ABSTRACT_CHARS) -> SeedFile:
    """Parse one seed file's bytes; raise :class:`CorpusError` naming the file and the problem."""
    bom_text = _decode_by_bom(name, raw)
    if bom_text is not None:
        raw = bom_text.encode("utf-8")
    if not raw.strip():
        raise CorpusError(f"{name}: the file is empty")
    if b"\x00" in raw:
        raise CorpusError(f"{name}: the file is binary (it contains NUL bytes), not text")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{name}: the file is not UTF-8 (invalid byte 0x{raw[exc.start]:02x} at offset {exc.start})",
            hint="Save the file as UTF-8 text.",
        ) from None
    bad_controls = [c for c in text if ord(c) < 32 and c not in "\n\r\t\f\v"]
    if bad_controls:
        raise CorpusError(f"{name}: the file contains control characters (e.g. U+{ord(bad_controls[0]):04X})")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and _is_blank(lines[0]):
        lines.pop(0)
    if not lines:
        raise CorpusError(f"{name}: the file is empty (only invisible characters)")
    header = lines[0].strip()
    paragraphs: list[str] = []
    current: list[str] = []
    for line in lines[1:] + [""]:
        if not _is_blank(line):
            current.append(line)
        elif current:
            paragraphs.append(normalize_whitespace(" ".join(current)))
            current = []
    if not paragraphs:
        raise CorpusError(f"{name}: the file has a header line ({header[:40]!r}) but no abstracts after it")
    for position, paragraph in enumerate(paragraphs, start=1):
        if len(paragraph) < MIN_ABSTRACT_CHARS:
            raise CorpusError(
                f"{name}: abstract #{position} is only {len(paragraph)} characters ({paragraph!r}); "
                "is a blank line missing or misplaced?"
            )
        if len(paragraph) > max_abstract_chars:
            raise CorpusError(
                f"{name}: abstract #{position} is {len(paragraph):,} characters, over the limit of "
                f"{max_abstract_chars:,} for one abstract (it starts {paragraph[:60]!r})",
                hint="Separate abstracts with a blank line (a missing one joins them into one paragraph), or, if it "
                "really is one abstract, raise the limit with RAG_MAX_ABSTRACT_CHARS.",
            )
    return SeedFile(name=name, header=header, paragraphs=tuple(paragraphs))


def find_seed_files(paths: Iterable[Path]) -> list[Path]:
    """Expand files and directories into a sorted list of .txt files; errors name what is wrong."""
    files: list[Path] = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() == ".txt")
            if not found:
                raise CorpusError(
                    f"{path}: the directory has no .txt files", hint="Point at a folder of seed .txt files."
                )
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise CorpusError(f"{path}: no such file or directory")
    if not files:
        raise CorpusError("no seed files given")
    return files


def read_seed_file(
    path: Path, name: str | None = None, max_abstract_chars: int = DEFAULT_MAX_ABSTRACT_CHARS
) -> SeedFile:
    """Read and parse one seed file; ``name`` (default: the file name) is how its locations and errors call it."""
    name = name or path.name
    try:
        size = path.stat().st_size
        if size > MAX_SEED_FILE_BYTES:
            raise CorpusError(
                f"{name}: the file is {size / 1e6:.0f} MB; seed files over "
                f"{MAX_SEED_FILE_BYTES // (1024 * 1024)} MB are refused"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"{name}: cannot read the file ({exc.strerror})") from None
    return parse_seed_text(name, raw, max_abstract_chars)


def build_corpus(seed_files: Sequence[SeedFile]) -> list[Abstract]:
    """Dedupe paragraphs across files into abstracts with all their locations, ordered by first appearance."""
    by_hash: dict[str, dict] = {}
    for seed in seed_files:
        for position, paragraph in enumerate(seed.paragraphs, start=1):
            digest = content_hash(paragraph)
            entry = by_hash.setdefault(digest, {"text": paragraph, "locations": []})
            entry["locations"].append(Location(seed.name, position))
    abstracts: list[Abstract] = []
    for digest, entry in by_hash.items():
        label = make_label(entry["text"])
        abstracts.append(
            Abstract(
                id=make_id(label, digest),
                label=label,
                text=entry["text"],
                locations=tuple(sorted(set(entry["locations"]), key=lambda loc: (loc.file, loc.position))),
                content_hash=digest,
                sentences=tuple(sentence_spans(entry["text"])),
            )
        )
    _resolve_id_collisions(abstracts)
    return abstracts


def _resolve_id_collisions(abstracts: list[Abstract]) -> None:
    # Same label slug and same hash prefix: lengthen the hash for those only, so other IDs never move.
    counts = Counter(a.id for a in abstracts)
    for i, abstract in enumerate(abstracts):
        if counts[abstract.id] > 1:
            abstracts[i] = Abstract(
                id=make_id(abstract.label, abstract.content_hash, 12),
                label=abstract.label,
                text=abstract.text,
                locations=abstract.locations,
                content_hash=abstract.content_hash,
                sentences=abstract.sentences,
            )


def seed_names(files: Sequence[Path]) -> dict[Path, str]:
    """How each seed file is named in locations: its file name, or, where two different files share a name
    (``dirA/x.txt``, ``dirB/x.txt``), as many parent folders as tell them apart. Keyed by resolved path."""
    unique = list(dict.fromkeys(Path(f).resolve() for f in files))
    names = {path: path.name for path in unique}
    by_name: dict[str, list[Path]] = {}
    for path in unique:
        by_name.setdefault(path.name, []).append(path)
    for group in by_name.values():
        depth = 1
        while len(group) > 1 and depth < max(len(p.parts) for p in group):
            candidates = {p: "/".join(p.parts[-depth - 1 :]) for p in group}
            if len(set(candidates.values())) == len(group):
                names.update(candidates)
                break
            depth += 1
    return names


def load_corpus(paths: Iterable[Path], max_abstract_chars: int = DEFAULT_MAX_ABSTRACT_CHARS) -> list[Abstract]:
    """Read seed files or folders and return the deduplicated abstracts (each at most ``max_abstract_chars``)."""
    names = seed_names(find_seed_files(paths))
    return build_corpus([read_seed_file(path, name, max_abstract_chars) for path, name in names.items()])
