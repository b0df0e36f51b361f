"""The names the corpus uses (methods, benchmarks, datasets, models, acronyms) and linking question mentions to them.

Built from the abstracts at snapshot load: tokens that look like names (CamelCase, ALLCAPS, letters with digits,
hyphenated names with capitals, capitalised words inside a sentence that are not English words) and multiword
names ("Who&When Pro"), each with the abstracts that mention it. A question's tokens link case-insensitively and,
through rapidfuzz, typo-tolerantly; a name-like token close to nothing in the corpus is reported as unknown (one
signal for abstention, never a veto by itself). Words that are common English or research vocabulary (whole words
of the MiniLM tokenizer's vocabulary, venue names, degrees) are never subject names.
"""

from __future__ import annotations

import logging
import re
from array import array
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from rapidfuzz import fuzz, process

from rag.corpus import GENERIC_NAMES
from rag.text import content_words, name_singular, sentence_spans

log = logging.getLogger(__name__)

_TOKEN = re.compile(r"(?<![\w&+-])([A-Za-z0-9][A-Za-z0-9]*(?:[-&+.][A-Za-z0-9]+)*)")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[(\"“]\s*)$")

# Generic research vocabulary that looks like a name but names no work: venues, degrees, publishing words.
# (Common English words are recognised through the tokenizer vocabulary instead of a list.)
GENERIC_TERMS = frozenset(
    """neurips nips icml iclr aaai ijcai acl emnlp naacl eacl coling cvpr iccv eccv wacv kdd www sigir chi uai
    aistats colt corl rss icra iros miccai tmlr jmlr arxiv openreview github huggingface phd msc bsc ms ba ieee acm
    sota llm llms vlm vlms mllm mllms nlp ai ml rl gpu gpus cpu api apis""".split()
)


class EnglishWords:
    """The alphabetic whole words of a tokenizer's vocabulary, read from the tokenizer itself (the encoder's, already
    loaded) instead of a Python set of its 22k words (~4 MiB of a serving process): ``in`` asks the tokenizer;
    iteration and ``len`` read the words once into a tuple (~1.4 MiB), whose strings the word lists built from it
    (spelling candidates, typo candidates by length) then share: the tokenizer makes a new string on every call,
    and each list held its own copies (~4 MiB over a few hundred questions)."""

    def __init__(self, tokenizer) -> None:
        self._tokenizer = tokenizer
        self._words: tuple[str, ...] | None = None

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.isalpha() and self._tokenizer.token_to_id(word) is not None

    def _read(self) -> tuple[str, ...]:
        if self._words is None:
            token = self._tokenizer.id_to_token
            words = (token(i) for i in range(self._tokenizer.get_vocab_size(with_added_tokens=True)))
            self._words = tuple(w for w in words if w is not None and w.isalpha())
        return self._words

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())


class SearchedText(Protocol):
    """Text searched without being one Python string (``rag.manifest.LoweredText``)."""

    def __contains__(self, text: object) -> bool: ...

    def search(self, pattern: re.Pattern[str], barrier: str = ".") -> bool: ...


CorpusText = str | SearchedText


@lru_cache(maxsize=1)
def english_words() -> Collection[str]:
    """Whole words of the MiniLM (BERT uncased) vocabulary: a general list of common English words and terms."""
    try:
        from rag.embedding import resolve_model_path
        from rag.onnx_encoder import OnnxSentenceEncoder

        return EnglishWords(OnnxSentenceEncoder.load_tokenizer(Path(resolve_model_path("all-MiniLM-L6-v2"))))
    except Exception as exc:  # the encoder package is a dependency; without it only the generic list applies
        log.warning("no tokenizer vocabulary for common-word checks (%s)", exc)
        return frozenset()


def is_name_like(token: str) -> bool:
    """CamelCase, ALLCAPS, letters with digits, or a hyphenated token with a capital: looks like a name."""
    letters = sum(c.isalpha() for c in token)
    if letters < 2 or len(token) < 3:
        return False
    caps = sum(c.isupper() for c in token)
    digits = sum(c.isdigit() for c in token)
    if caps >= 2 or (digits and letters >= 2):
        return True
    # one capital that does not start the token, with a joiner: "x-Bench", "co&Lab"
    return caps == 1 and not token[0].isupper() and any(ch in token for ch in "-&+")


def _starts_sentence(text: str, start: int) -> bool:
    return bool(_SENTENCE_START.search(text[max(0, start - 3) : start]))


@dataclass(frozen=True, slots=True)
class Name:
    surface: str  # the most frequent spelling in the corpus
    abstract_ids: frozenset[str]


@dataclass(frozen=True, slots=True)
class Link:
    mention: str  # as written in the question
    name: Name
    exact: bool  # spelt like the corpus name (case aside); False: a typo-tolerant match
    score: float  # rapidfuzz ratio, 100 for exact


@dataclass(frozen=True, slots=True)
class Linking:
    links: tuple[Link, ...] = ()
    unknown: tuple[str, ...] = ()  # name-like subject tokens close to no corpus name and absent from the corpus

    @property
    def abstract_ids(self) -> set[str]:
        return {aid for link in self.links for aid in link.name.abstract_ids}

    def abstract_weights(self) -> dict[str, float]:
        """Abstracts using a linked name -> 1/sqrt(how many abstracts use that name): a rare name points harder."""
        weights: dict[str, float] = {}
        for link in self.links:
            strength = 1.0 / len(link.name.abstract_ids) ** 0.5
            for aid in link.name.abstract_ids:
                weights[aid] = max(weights.get(aid, 0.0), strength)
        return weights

    @property
    def suggestions(self) -> list[tuple[str, str]]:
        """(as written, corpus name) for typo-tolerant links: the "did you mean" pairs."""
        return [(link.mention, link.name.surface) for link in self.links if not link.exact]


@dataclass(slots=True)
class Lexicon:
    names: dict[str, Name] = field(default_factory=dict)  # lower-cased name -> Name
    words: frozenset[str] = frozenset()  # every lower-cased token of the corpus
    stems: frozenset[str] = frozenset()  # every content word (rag.text.content_words) of the corpus
    _vocabulary: list[str] | None = None  # spelling candidates, built on first use

    @classmethod
    def build(cls, abstracts: Iterable[tuple[str, str]], generic_share: float = 0.25) -> Lexicon:
        """``abstracts``: (id, text) pairs, read once (an iterator is not held in memory).

        Owners are gathered as abstract numbers in compact arrays (4 bytes each) and made sets of ids only for the
        names kept: at 100k chunks, sets of ids for every candidate (most of them later dropped as generic) left
        ~150 MB to the allocator."""
        english = english_words()
        found: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))  # lower -> surface -> count
        owners: dict[str, array[int]] = defaultdict(lambda: array("i"))  # lower -> numbers of the abstracts using it
        ids: list[str] = []
        words: set[str] = set()
        lowercase: set[str] = set()  # tokens the corpus also writes in lower case (ordinary words there)
        stems: set[str] = set()
        for aid, text in abstracts:
            here: set[str] = set()  # the names this abstract uses
            stems.update(content_words(text))
            for span in sentence_spans(text):
                sentence = span.of(text)
                tokens = list(_TOKEN.finditer(sentence))
                for i, match in enumerate(tokens):
                    token = match.group(1).rstrip(".")
                    lowered = token.lower()
                    words.add(lowered)
                    if token == lowered:
                        lowercase.add(lowered)
                    if not _corpus_name(token, lowered, english, first=i == 0):
                        continue
                    found[lowered][token] += 1
                    here.add(lowered)
                    # A multiword name: the name followed by capitalised words ("Who&When Pro", "Arena-T2I Hard").
                    phrase, end = token, match.end()
                    for nxt in tokens[i + 1 : i + 3]:
                        between = sentence[end : nxt.start()]
                        word = nxt.group(1)
                        if between != " " or not word[0].isupper() or word.lower() in GENERIC_TERMS:
                            break
                        phrase, end = f"{phrase} {word}", nxt.end()
                        found[phrase.lower()][phrase] += 1
                        here.add(phrase.lower())
            for lowered in here:
                owners[lowered].append(len(ids))
            ids.append(aid)
        limit = max(2, int(generic_share * len(ids)))
        unique_ids = len(set(ids)) == len(ids)  # then an abstract number stands for one id

        def owner_ids(lowered: str) -> frozenset[str] | None:
            """The ids using the name, or None when more than ``limit`` do (generic: not a subject name)."""
            rows = owners[lowered]
            if unique_ids and len(rows) > limit:
                return None
            made = frozenset(ids[row] for row in rows)
            return made if len(made) <= limit else None

        kept = {lowered: owner_ids(lowered) for lowered in found}
        names = {
            lowered: Name(max(spellings, key=spellings.get), kept[lowered])  # type: ignore[arg-type]
            for lowered, spellings in found.items()
            if kept[lowered] is not None
            and lowered not in GENERIC_TERMS
            # a capitalised word the corpus also writes in lower case is an ordinary word ("Gated Attention")
            and not (lowered in lowercase and not any(is_name_like(s) for s in spellings))
        }
        return cls(names, frozenset(words), frozenset(stems))

    def link(
        self, question: str, *, min_ratio: float = 80.0, min_chars: int = 5, corpus_text: CorpusText | None = None
    ) -> Linking:
        """Link the question's name mentions to corpus names; report name-like tokens that match nothing.

        With ``corpus_text`` (the lower-cased corpus: a string, or text searched in place such as
        ``rag.manifest.LoweredText``), a run of capitalised words inside the question ("UK Biobank") that the corpus
        never writes together is reported as unknown too.
        """
        english = english_words()
        tokens = [(m.group(1).rstrip("."), m.start()) for m in _TOKEN.finditer(question)]
        links: dict[str, Link] = {}
        unknown: list[str] = []
        used: set[int] = set()
        # Multiword names first ("Who&When Pro"), then single tokens.
        for n in (3, 2):
            for i in range(len(tokens) - n + 1):
                phrase = " ".join(t for t, _ in tokens[i : i + n]).lower()
                if phrase in self.names:
                    links.setdefault(phrase, Link(phrase, self.names[phrase], True, 100.0))
                    used.update(range(i, i + n))
        keys = list(self.names)
        for i, (token, start) in enumerate(tokens):
            if i in used:
                continue
            lowered = token.lower()
            candidates = list(dict.fromkeys([lowered, name_singular(lowered)]))
            hit = next((c for c in candidates if c in self.names), None)
            if hit is not None:
                name, family = self.names[hit], self._family(hit)
                if family is not None:  # "FLUX" also stands for "FLUX.1-dev"
                    name = Name(name.surface, name.abstract_ids | family.abstract_ids)
                links.setdefault(hit, Link(token, name, True, 100.0))
                continue
            if lowered in GENERIC_TERMS or lowered.isdigit():
                continue
            name_like = is_name_like(token)
            common = lowered in english or lowered in self.words
            if not name_like:
                if common or not token[0].isupper() or _starts_sentence(question, start):
                    continue  # an ordinary (or mistyped ordinary) word, or a capital that starts a sentence
            elif _ordinary(lowered, english):
                continue  # "DNA", "PhD", "PhD-level": ordinary vocabulary, however capitalised
            family = self._family(lowered) if name_like or token[0].isupper() else None
            if family is not None:  # "Qwen" for "Qwen2.5-7B" and "Qwen1.5-MoE": a model family's name
                links.setdefault(lowered, Link(token, family, True, 100.0))
                continue
            if len(lowered) >= min_chars and keys:
                match = process.extractOne(lowered, keys, scorer=fuzz.ratio, score_cutoff=min_ratio)
                if match is not None:
                    key, score, _ = match
                    links.setdefault(key, Link(token, self.names[key], False, float(score)))
                    continue
            if lowered in self.words or any(c in self.words for c in candidates):
                continue  # used in the corpus, though not as a name (e.g. a capitalised common word)
            if corpus_text is not None and token.isupper() and _spelt_out(lowered, corpus_text):
                continue  # an acronym of words the corpus uses together ("MCTS": Monte Carlo tree search)
            if name_like or lowered not in english:
                unknown.append(token)
        if corpus_text is not None:
            unknown.extend(self._unknown_phrases(question, tokens, links, corpus_text))
        return Linking(tuple(links.values()), tuple(dict.fromkeys(unknown)))

    def _family(self, lowered: str) -> Name | None:
        """The corpus names that extend ``lowered`` with a version or variant ("qwen" -> "qwen2.5-7b"), as one name
        using all their abstracts; None when no name does."""
        if len(lowered) < 3:
            return None
        members = [
            name
            for key, name in self.names.items()
            if key.startswith(lowered) and len(key) > len(lowered) and key[len(lowered)] in "0123456789-._ "
        ]
        if not members:
            return None
        surface = lowered if not members else members[0].surface[: len(lowered)]
        return Name(surface, frozenset(aid for name in members for aid in name.abstract_ids))

    def _unknown_phrases(self, question, tokens, links, corpus_text: CorpusText) -> list[str]:
        linked = {link.mention.lower() for link in links.values()}
        found, run = [], []
        for token, start in [*tokens, ("", len(question))]:
            capital = bool(token) and token[0].isupper() and not _starts_sentence(question, start)
            joined = bool(run) and question[run[-1][1] + len(run[-1][0]) : start] == " "
            if capital and (not run or joined):
                run.append((token, start))
                continue
            english = english_words()
            if len(run) >= 2 and any(t.lower() not in linked and not _ordinary(t.lower(), english) for t, _ in run):
                phrase = " ".join(t for t, _ in run)
                if phrase.lower() not in corpus_text:
                    found.append(phrase)
            run = [(token, start)] if capital else []
        return found

    def correct(
        self, question: str, *, min_ratio: float = 80.0, min_chars: int = 5, common_zipf: float = 2.0
    ) -> tuple[str, list[str]]:
        """Spell the question's unknown words as the corpus does ("screns" -> "screens", "AsayBench" ->
        "AssayBench"): a word that is neither English nor used by the corpus, close to one corpus word. Returns
        the corrected question and the corpus spellings used."""
        english = english_words()
        vocabulary = self._spelling_vocabulary()
        fixes: list[str] = []

        def fix_word(token: str, opens_sentence: bool) -> str:
            lowered = token.lower()
            if len(lowered) < min_chars or lowered in english or lowered in self.words or lowered in GENERIC_TERMS:
                return token
            if any(c.isdigit() for c in lowered):
                return token
            best = process.extractOne(lowered, vocabulary, scorer=fuzz.ratio, score_cutoff=min_ratio)
            if best is None or best[0][0] != lowered[0]:
                return _common_spelling(token, opens_sentence, min_ratio, common_zipf)
            surface = self.names[best[0]].surface if best[0] in self.names else best[0]
            fixes.append(surface)
            return surface

        def fix(match: re.Match[str]) -> str:
            token = match.group(1)
            opens = _starts_sentence(question, match.start())
            fixed = fix_word(token, opens)
            if fixed != token or "-" not in token:
                return fixed
            # "chaain-of-thougnt": each part of a hyphenated word on its own
            parts = token.split("-")
            return "-".join(fix_word(part, opens and i == 0) for i, part in enumerate(parts))

        return _TOKEN.sub(fix, question), fixes

    def _spelling_vocabulary(self) -> list[str]:
        if self._vocabulary is None:
            self._vocabulary = sorted(w for w in self.words if len(w) >= 4 and w.isalpha() or w in self.names)
        return self._vocabulary


@lru_cache(maxsize=1)
def _common_vocabulary() -> tuple[str, ...]:
    """Common English words of four letters or more (the tokenizer's whole words), for spelling ordinary words."""
    return tuple(sorted(w for w in english_words() if len(w) >= 4))


def _common_spelling(token: str, opens_sentence: bool, min_ratio: float, common_zipf: float) -> str:
    """A mistyped ordinary word spelt as common English spells it ("papesr" -> "papers", "siegle" -> "single"),
    when the corpus has no close word: the question's grammar ("which papers …") and its plain words then read as
    written. Only lower-case words (or a capital that starts a sentence): a capitalised word the corpus lacks is a
    name, and names are matched against the corpus's names, never respelt as English. A word English uses
    (wordfreq Zipf frequency at least ``common_zipf``: "lidar") is left as written."""
    from rag.word_frequency import zipf_frequency

    first_capital = token[:1].isupper()
    if token[1:] != token[1:].lower() or not token.isalpha() or (first_capital and not opens_sentence):
        return token
    lowered = token.lower()
    if zipf_frequency(lowered) >= common_zipf:
        return token
    best = process.extractOne(lowered, _common_vocabulary(), scorer=fuzz.ratio, score_cutoff=min_ratio)
    if best is None or best[0][0] != lowered[0]:
        return token
    return best[0].capitalize() if first_capital else best[0]


def _spelt_out(acronym: str, corpus_text: CorpusText) -> bool:
    """Whether the (lower-cased) corpus has words whose initials spell the acronym, e.g. "mcts" in "monte carlo
    tree search" (4-6 letters, each word of 3 or more letters, so chance runs of short words do not count; hyphens
    join words too)."""
    letters = [c for c in acronym if c.isalpha()]
    if not 4 <= len(letters) <= 6 or len(letters) != len(acronym):
        return False
    pattern = re.compile(r"\b" + r"[a-z0-9]{2,}[\s-]+".join(re.escape(c) for c in letters) + r"[a-z0-9]{2,}\b")
    if isinstance(corpus_text, str):
        return pattern.search(corpus_text) is not None
    return corpus_text.search(pattern, ".")  # no match holds a full stop: the text may be searched in blocks


def _ordinary(lowered: str, english: Collection[str]) -> bool:
    """Every part of the word is English or generic research vocabulary ("phd-level", "dna")."""
    return all(part in english or part in GENERIC_TERMS for part in re.split(r"[-&+.]", lowered) if part)


def _corpus_name(token: str, lowered: str, english: Collection[str], first: bool) -> bool:
    if lowered in GENERIC_TERMS or lowered.isdigit():
        return False
    if is_name_like(token):  # "RISE", "TACO": capitals make an English word a name in the corpus
        return True
    # A capitalised word inside a sentence that is not an English word: a proper name ("Gemma", "Qwen").
    return not first and token[0].isupper() and len(token) >= 4 and lowered not in english


def abstracts_naming(lexicon: Lexicon, names: Sequence[str]) -> set[str]:
    return {aid for n in names if n.lower() in lexicon.names for aid in lexicon.names[n.lower()].abstract_ids}


_INTRODUCES = re.compile(
    r"(?i:\b(?:we\s+(?:\w+\s+)?(?:propose|introduce|present|develop|design|call|term|name|dub)|our\s+(?:[\w-]+\s+){0,2}"
    r"(?:method|approach|framework|model|policy|algorithm|benchmark|dataset|system|procedure|metric|index)|called|"
    r"termed|dubbed|named)\b)"
    # "Our FooNet policy …", "Our \emph{Foo Net} (FN) …": a capitalised name right after "our" (case matters here)
    r"|\b[Oo]ur\s+(?:\\[a-z]+\{)?(?=[A-Z])",
)


def own_names(lexicon: Lexicon, texts: Iterable[tuple[str, str]], window: int = 80) -> dict[str, str]:
    """Abstract id -> the name of its own work: a corpus name that abstract alone uses and that it introduces (within
    ``window`` characters after "we propose/introduce/present …", "our method/framework/… ", "called/termed …"),
    the first so introduced. ``texts``: (id, text) pairs. Abstracts that introduce no such name are left out."""
    single = single_owner_names(lexicon)
    found: dict[str, str] = {}
    for aid, text in texts:
        name = introduced_name(lexicon, single.get(aid, ()), text, window)
        if name is not None:
            found[aid] = name
    return found


def single_owner_names(lexicon: Lexicon) -> dict[str, list[str]]:
    """Abstract id -> the lower-cased corpus names only that abstract uses (field vocabulary such as "GUI" aside)."""
    single: dict[str, list[str]] = defaultdict(list)
    for lowered, name in lexicon.names.items():
        if len(name.abstract_ids) == 1 and name.surface not in GENERIC_NAMES:  # "GUI", "OOD": field vocabulary
            single[next(iter(name.abstract_ids))].append(lowered)
    return single


def introduced_name(lexicon: Lexicon, candidates: Sequence[str], text: str, window: int = 80) -> str | None:
    """Which of ``candidates`` (lower-cased names of the abstract's own, see single_owner_names) ``text``
    introduces (own_names): the first so introduced, the longest there; None when it introduces none."""
    if not candidates:
        return None
    lowered_text = text.lower()
    if len(lowered_text) != len(text):  # lower-casing moved offsets (rare letters): cues read lower-cased
        text = lowered_text
    best: tuple[int, int, str] | None = None  # (position, -length, name): the first introduced, the longest there
    for cue in _INTRODUCES.finditer(text):
        tail = lowered_text[cue.end() : cue.end() + window]
        for lowered in candidates:
            at = _find_as_word(lowered, tail)
            if at >= 0 and (best is None or (cue.end() + at, -len(lowered)) < best[:2]):
                best = (cue.end() + at, -len(lowered), lowered)
        if best is not None:
            break
    return lexicon.names[best[2]].surface if best is not None else None


def _find_as_word(word: str, text: str) -> int:
    """Where ``word`` first occurs in ``text`` not inside a longer word (both lower-cased); -1 when it does not."""
    match = re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", text)
    return match.start() if match else -1
