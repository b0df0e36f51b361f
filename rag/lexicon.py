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
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from rapidfuzz import fuzz, process

from rag.corpus import GENERIC_NAMES
from rag.policy import AnswerPolicy
from rag.text import content_words, initials_run, name_singular, plural_s, sentence_spans

log = logging.getLogger(__name__)

_TOKEN = re.compile(r"(?<![\w&+-])([A-Za-z0-9][A-Za-z0-9]*(?:[-&+.][A-Za-z0-9]+)*)")
_NEGATED = re.compile(r"(?:\b(?:no|not|without|instead\s+of|rather\s+than)|\bw/o)\s+$", re.IGNORECASE)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[(\"“]\s*)$")

# Generic research vocabulary that looks like a name but names no work: venues, degrees, publishing words, and the
# chat abbreviations of how to answer ("ELI5", "TLDR"). (Common English words are recognised through the tokenizer
# vocabulary instead of a list.)
GENERIC_TERMS = frozenset(
    """neurips nips icml iclr aaai ijcai acl emnlp naacl eacl coling cvpr iccv eccv wacv kdd www sigir chi uai
    aistats colt corl rss icra iros miccai tmlr jmlr arxiv openreview github huggingface phd msc bsc ms ba ieee acm
    sota llm llms vlm vlms mllm mllms nlp ai ml rl gpu gpus cpu api apis
    eli5 tldr tl dr fyi btw imo imho tbh faq""".split()
)


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The alphabetic words of several word sets, as one vocabulary, without building their union (a set of the
    tokenizer's English words and a corpus's words is ~2 MiB of a serving process). Hashable: a cache key."""

    parts: tuple[Collection[str], ...]

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.isalpha() and any(word in part for part in self.parts)

    def __iter__(self) -> Iterator[str]:  # a word in several parts comes once per part
        return (w for part in self.parts for w in part if w.isalpha())


@lru_cache(maxsize=4)
def _by_length(vocabulary: Collection[str]) -> tuple[str, ...]:
    """The vocabulary's words once each, ordered by length then alphabetically (two stable sorts: no (length, word)
    key tuple per word, ~1.4 MiB of small objects the allocator would keep)."""
    return tuple(sorted(sorted(set(vocabulary)), key=len))


def words_of_lengths(vocabulary: Collection[str], shortest: int, longest: int) -> tuple[str, ...]:
    """The vocabulary's words of these lengths, once each, by length then alphabetically (a word k edits away
    differs in length by at most k): a slice of one ordered tuple per vocabulary, not a cached tuple per length
    window (a serving process held ~4 MiB of those after a few hundred questions)."""
    words = _by_length(vocabulary)
    return words[bisect_left(words, shortest, key=len) : bisect_right(words, longest, key=len)]


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

    def works_named(self, text: str, is_work: Callable[[str, str], bool]) -> list[tuple[int, str]]:
        """(where in the lower-cased text, abstract id) of the distinct works the text names, in the order it names
        them (each work once, where it is first named): each name linked as
        spelt (a typo-tolerant link may be another word) that one abstract alone uses and that ``is_work``
        (abstract id, lower-cased name) accepts as that abstract's own work ("How does FooNet differ from
        BarBench?" -> two; a dataset one paper merely evaluates on is no work)."""
        lowered = text.lower()
        owned = sorted(
            (lowered.find(link.mention.lower()), aid)
            for link in self.links
            if link.exact
            and len(link.name.abstract_ids) == 1
            and is_work(aid := next(iter(link.name.abstract_ids)), link.name.surface.lower())
        )
        first: dict[str, int] = {}
        for at, aid in owned:
            first.setdefault(aid, at)
        return [(at, aid) for aid, at in first.items()]

    @property
    def suggestions(self) -> list[tuple[str, str]]:
        """(as written, corpus name) for typo-tolerant links: the "did you mean" pairs."""
        return [(link.mention, link.name.surface) for link in self.links if not link.exact]


@dataclass(slots=True)
class Lexicon:
    names: dict[str, Name] = field(default_factory=dict)  # lower-cased name -> Name
    words: frozenset[str] = frozenset()  # every lower-cased token of the corpus
    stems: frozenset[str] = frozenset()  # every content word (rag.text.content_words) of the corpus
    lower_too: frozenset[str] = frozenset()  # names the corpus also writes in lower case ("rise" of "RISE")
    _vocabulary: list[str] | None = None  # spelling candidates, built on first use
    _vocabulary_set: frozenset[str] | None = None
    _short: list[str] | None = None  # corpus words of 3-6 characters (short typos), built on first use
    _by_start: dict[str, tuple[str, ...]] = field(default_factory=dict)  # known words by their first two letters
    _known_words: tuple[str, ...] | None = None  # corpus and tokenizer words (abbreviation checks), built on first use
    _stems_by_length: dict[int, list[str]] | None = None  # corpus stems without hyphens by length, built on first use
    _by_sound: dict[str, str] | None = None  # name keys written with "f" for "ph" -> the key, built on first use
    _alpha_words: tuple[str, ...] | None = None  # the corpus's alphabetic words, sorted (clippings), built on first use

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
                sentence = span.of(text).replace("--", "\u2013 ")  # LaTeX's en dash: "Burer--Monteiro"
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
        return cls(names, frozenset(words), frozenset(stems), frozenset(lowercase & names.keys()))

    def link(
        self,
        question: str,
        *,
        min_ratio: float = 80.0,
        min_chars: int = 5,
        corpus_text: CorpusText | None = None,
        common_zipf: float = 2.0,
        neighbour_zipf: float = 1.5,
        acronym_zipf: float = 0.0,
    ) -> Linking:
        """Link the question's name mentions to corpus names; report name-like tokens that match nothing.

        With ``corpus_text`` (the lower-cased corpus: a string, or text searched in place such as
        ``rag.manifest.LoweredText``), a run of capitalised words inside the question ("UK Biobank") that the corpus
        never writes together is reported as unknown too. A word in capitals the corpus never uses, rarer in English
        than ``acronym_zipf``, is an acronym, not the English word ("COCO").
        """
        from rag.word_frequency import zipf_frequency

        english = english_words()
        tokens = [(m.group(1).rstrip("."), m.start()) for m in _TOKEN.finditer(question)]
        links: dict[str, Link] = {}
        unknown: list[str] = []
        used: set[int] = set()
        # Multiword names first ("Who&When Pro"), then single tokens.
        # A name typed as separate words ("mmdg bench" for "MMDG-Bench", "assay bench" for "AssayBench") too.
        for n in (3, 2):
            for i in range(len(tokens) - n + 1):
                if any(j in used for j in range(i, i + n)):
                    continue
                words = [t.lower() for t, _ in tokens[i : i + n]]
                joined = [" ".join(words)]
                # "gated attention" is not "GatedAttention", nor "video LLMs" "Video-LLMs": field vocabulary. Words
                # of English joined into one ("assay bench": AssayBench) are a name typed apart when the corpus never
                # writes them apart (a word respelt as the corpus inflects it, "assays bench", too)
                singular = "".join(name_singular(w) for w in words)
                if not all(w in english or w in GENERIC_TERMS for w in words):
                    joined += ["-".join(words), "".join(words), singular]
                elif corpus_text is not None and joined[0] not in corpus_text:
                    joined += ["".join(words), singular]
                phrase = next((p for p in joined if p in self.names), None)
                if phrase is not None:
                    links.setdefault(phrase, Link(" ".join(t for t, _ in tokens[i : i + n]), self.names[phrase],
                                                  True, 100.0))  # fmt: skip
                    used.update(range(i, i + n))
        keys = list(self.names)
        for i, (token, start) in enumerate(tokens):
            if i in used:
                continue
            lowered = token.lower()
            # the singular of a plural name, and the plural of one the corpus writes only in the plural ("Sudokus")
            candidates = list(dict.fromkeys([lowered, name_singular(lowered), f"{lowered}s"]))
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
            plain = not name_like and not token[0].isupper()  # all lower case: a name only if it reads as none
            if plain and lowered not in english and zipf_frequency(lowered) < common_zipf:
                family = self._family(lowered)
                if family is not None:  # "qwen" for "Qwen2.5-7B": a model family typed in lower case
                    links.setdefault(lowered, Link(token, family, True, 100.0))
                    continue
            if not name_like:
                if common or (not plain and _starts_sentence(question, start)):
                    continue  # an ordinary (or mistyped ordinary) word, or a capital that starts a sentence
                if plain and not self._plain_name(lowered, english, common_zipf, neighbour_zipf):
                    continue  # a plain word: rare English, a compound ("multihead"), a typo, an abbreviation
                if not plain and lowered.isalpha() and self._shortened_or_joined(lowered, english):
                    continue  # a capitalised abbreviation or compound ("Hyperparams", "Multihead")
            elif _ordinary(lowered, english) and not (
                token.isupper() and len(lowered) >= 4 and lowered not in self.words
                and zipf_frequency(lowered) < acronym_zipf
            ):  # fmt: skip
                # "DNA", "PhD", "PhD-level": ordinary vocabulary, however capitalised; not a rarer word in capitals
                # the corpus never uses ("COCO", "SQUAD"): an acronym, a name
                continue
            family = self._family(lowered)
            if family is not None:  # "Qwen" for "Qwen2.5-7B" and "Qwen1.5-MoE": a model family's name
                links.setdefault(lowered, Link(token, family, True, 100.0))
                continue
            short = self._clipped_name(token)
            if short is not None:  # "AlphaQuant" for the corpus's "AlphaQ": the name its last capital clips
                links.setdefault(short, Link(token, self.names[short], False, float(fuzz.ratio(lowered, short))))
                continue
            if len(lowered) >= min_chars and keys:
                match = process.extractOne(lowered, keys, scorer=fuzz.ratio, score_cutoff=min_ratio)
                if match is None and ("ph" in lowered or "f" in lowered):
                    match = self._sounded(lowered, min_ratio)
                if match is not None and (not plain or match[0][0] == lowered[0]):
                    key, score, _ = match
                    links.setdefault(key, Link(token, self.names[key], False, float(score)))
                    continue
            if lowered in self.words or any(c in self.words for c in candidates):
                continue  # used in the corpus, though not as a name (e.g. a capitalised common word)
            parts = [p for p in re.split(r"[-&+.]", lowered) if p]
            if len(parts) > 1 and all(p in self.words or p in english or p in GENERIC_TERMS for p in parts):
                continue  # "burer-Monteiro": words the corpus (or English) uses, joined
            if len(lowered) < min_chars:
                # "PRs", "LLMs": an acronym's plural is read by its singular, not as a typo of a longer name ("PRR")
                plural = lowered[:-1] if token.endswith("s") and token[:-1].isupper() and len(token) > 2 else lowered
                near = self._near_short(plural)
                if near is not None:  # "TAC" for "TACO", "GUPs" for "GPUs": a short name mistyped
                    if near in self.names:
                        links.setdefault(near, Link(token, self.names[near], False, float(fuzz.ratio(lowered, near))))
                    continue
            if corpus_text is not None and token.isupper() and _spelt_out(lowered, corpus_text):
                continue  # an acronym of words the corpus uses together ("MCTS": Monte Carlo tree search)
            if corpus_text is not None and token == lowered and _clipped_phrase(lowered, corpus_text):
                continue  # two corpus words clipped and run together ("matmul": matrix multiplication)
            if _NEGATED.search(question[max(0, start - 16) : start]):
                continue  # "no IMDb credits", "without FooNet": a name the question rules out need be in no abstract
            if name_like or lowered not in english:
                unknown.append(token)
        if corpus_text is not None:
            unknown.extend(self._unknown_phrases(question, tokens, links, corpus_text))
        return Linking(tuple(links.values()), tuple(dict.fromkeys(unknown)))

    def _sounded(self, lowered: str, min_ratio: float) -> tuple[str, float, int] | None:
        """The corpus name ``lowered`` spells as it sounds, "ph" and "f" exchanged ("AlfaQ" for "AlphaQ", "Grafformer"
        for "Graphformer"): (key, ratio, 0) of the close name with both written with "f", else None."""
        if self._by_sound is None:
            self._by_sound = {}
            for key in self.names:
                self._by_sound.setdefault(key.replace("ph", "f"), key)
        match = process.extractOne(lowered.replace("ph", "f"), list(self._by_sound), scorer=fuzz.ratio,
                                   score_cutoff=min_ratio)  # fmt: skip
        if match is None or self._by_sound[match[0]] == lowered:
            return None
        return self._by_sound[match[0]], match[1], 0

    def _clipped_name(self, token: str, shortest: int = 4) -> str | None:
        """The corpus name (key) that ``token`` writes out in full where the corpus clips its last part to a capital:
        "AlphaQuant" for "AlphaQ", "ZedNetwork" for "ZedN" (the name, ``shortest`` characters or more, ends in a
        capital, and the token is the name followed by lower-case letters only); None when no one name is."""
        if len(token) <= shortest or token == token.lower():
            return None
        found = [
            key
            for key, name in self.names.items()
            if len(name.surface) >= shortest
            and name.surface[-1].isupper()
            and name.surface[:-1] != name.surface[:-1].upper()  # "AlphaQ", not an acronym ("GPT")
            and token.startswith(name.surface)
            and token[len(name.surface) :].isalpha()
            and token[len(name.surface) :].islower()
        ]
        return found[0] if len(found) == 1 else None

    def _plain_name(
        self, lowered: str, english: Collection[str], common_zipf: float, neighbour_zipf: float = 1.5
    ) -> bool:
        """Whether a word typed all in lower case that neither English nor the corpus uses reads as a name
        ("ecmwf", "textvqa", "dp-spd"): not a word English uses (wordfreq Zipf below ``common_zipf``), not two
        English or corpus words run together ("multihead", "pretraining"), not a typo of a known word (of the corpus or
        the tokenizer's words, or one edit from a word wordfreq gives a Zipf frequency of ``neighbour_zipf`` or more:
        "shakierr"), not an inflection of a word the corpus uses (its stem a corpus word's: "backpropagating" where an
        abstract writes "backpropagates"), and at least four letters unless it has digits ("tll" is a typo of many
        short words)."""
        from rag.word_frequency import zipf_frequency

        vocabulary = _Either(self.words, english)
        parts = [p for p in re.split(r"[-&+.]", lowered) if p]
        odd = [
            p
            for p in parts
            if sum(c.isalpha() for c in p) >= 2
            and (len(p) >= 4 or any(c.isdigit() for c in p))
            and p not in english
            and p not in self.words
            and p not in GENERIC_TERMS
            and zipf_frequency(p) < common_zipf
            and not _compound(p, vocabulary)
            and not self._mistyped(p, english)
            and not (p.isalpha() and self._inflects_corpus_word(p))
            and not (p.isalpha() and self._mistyped_inflection(p))
            and not (p.isalpha() and self._abbreviation(p, english))
            and not (p.isalpha() and english_neighbour(p, neighbour_zipf))
        ]
        return bool(odd)

    def _mistyped_inflection(self, word: str, shortest: int = 5) -> bool:
        """Whether ``word`` mistypes another form of a corpus word: its stem one edit (adjacent swaps included) from a
        corpus content-word stem of ``shortest`` letters or more, hyphens dropped ("qauntizing": "quantiz" of
        "quantization", "finetuing": "finetun" of "fine-tuning", "backpropagaing": "backpropag" of
        "backpropagates"), so it is a typo of vocabulary, not a name."""
        from rapidfuzz.distance import OSA

        stems = content_words(word)
        if len(stems) != 1 or len(stems[0]) < shortest:
            return False
        if self._stems_by_length is None:
            by_length: dict[int, list[str]] = defaultdict(list)
            for known in {w.replace("-", "") for w in self.stems}:
                if len(known) >= shortest and known.isalpha():
                    by_length[len(known)].append(known)
            self._stems_by_length = dict(by_length)
        own = stems[0]
        near = [w for n in (len(own) - 1, len(own), len(own) + 1) for w in self._stems_by_length.get(n, ())]
        return process.extractOne(own, near, scorer=OSA.distance, score_cutoff=1) is not None

    def _inflects_corpus_word(self, word: str) -> bool:
        """Whether ``word`` inflects a word the corpus uses: its stem is one of the corpus's content-word stems
        ("backpropagating" where an abstract writes "backpropagates"), so it is vocabulary, not a name."""
        stems = content_words(word)
        return bool(stems) and all(w in self.stems for w in stems)

    def _known(self, english: Collection[str]) -> tuple[str, ...]:
        """The alphabetic words of the corpus and of the tokenizer's vocabulary, once (read on first need)."""
        if self._known_words is None:
            self._known_words = tuple(sorted({w for w in self.words if w.isalpha()} | set(english)))
        return self._known_words

    def _shortened_or_joined(self, word: str, english: Collection[str]) -> bool:
        """An abbreviation, two known words run together, or a typo of a known word (not a name's spelling)."""
        return _compound(word, _Either(self.words, english)) or self._abbreviation(word, english)

    def _abbreviation(self, word: str, english: Collection[str]) -> bool:
        """Whether ``word`` (3+ letters) shortens a longer English or corpus word: its letters in order within that
        word, the first two letters shared, at least a third of its length ("attn": attention, "hyperparams":
        hyperparameters, "approx", "perf")."""
        if len(word) < 3:
            return False
        key = word[:2]
        if key not in self._by_start:
            self._by_start[key] = tuple(w for w in self._known(english) if w.startswith(key) and len(w) > 3)
        return any(
            len(w) > len(word) and 3 * len(word) >= len(w) and _subsequence(word, w) for w in self._by_start[key]
        )

    def _mistyped(
        self, word: str, english: Collection[str], edits: int = 1, long_edits: int = 2, long_chars: int = 8
    ) -> bool:
        """Whether ``word`` is ``edits`` edits (adjacent swaps included; ``long_edits`` from ``long_chars`` letters
        on) from a corpus word or a word of the tokenizer's vocabulary (as rag.abstain.looks_mistyped reads typos,
        from the same length-ordered candidates)."""
        from rapidfuzz.distance import OSA

        allowed = long_edits if len(word) >= long_chars else edits
        candidates = words_of_lengths(Vocabulary((self.words, english)), len(word) - allowed, len(word) + allowed)
        return process.extractOne(word, candidates, scorer=OSA.distance, score_cutoff=allowed) is not None

    def _near_short(self, lowered: str) -> str | None:
        """The corpus name, else corpus word, a short token (3-4 letters) mistypes by one edit (adjacent swaps
        included) keeping its first letter, when exactly one name (else one word) is that close; "" when several
        names are; None when nothing is."""
        from rapidfuzz.distance import OSA

        if len(lowered) < 3:
            return None
        for pool in (self.names, self._short_words()):
            near = [w for w in pool if w[:1] == lowered[:1] and len(w) >= 3 and abs(len(w) - len(lowered)) <= 1
                    and OSA.distance(lowered, w) <= 1]  # fmt: skip
            if len(near) == 1:
                return near[0]
            if near and pool is self.names:
                return ""  # a typo of one of several names ("TAC": "TAB" or "TACO"): none is linked
        return None

    def _short_words(self) -> list[str]:
        if self._short is None:
            self._short = [w for w in self.words if 3 <= len(w) <= 6]
        return self._short

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
            # an acronym of words the corpus uses together ("MCTS": Monte Carlo tree search) is placed as a linked
            # name is: "MCTS Track-and-Stop" writes a spelt-out term beside a name, not a name the corpus lacks
            if len(run) >= 2 and any(
                t.lower() not in linked
                and not _ordinary(t.lower(), english)
                and not (t.isupper() and _spelt_out(t.lower(), corpus_text))
                for t, _ in run
            ):
                phrase = " ".join(t for t, _ in run)
                if phrase.lower() not in corpus_text:
                    found.append(phrase)
            run = [(token, start)] if capital else []
        return found

    def correct(
        self,
        question: str,
        policy: AnswerPolicy | None = None,
        *,
        frequency: Callable[[str], float] | None = None,
        together: Callable[[str, Sequence[str]], int] | None = None,
        context: Callable[[str, Sequence[str]], int] | None = None,
    ) -> tuple[str, list[str]]:
        """Spell the question's unknown words as the corpus does ("screns" -> "screens", "AsayBench" ->
        "AssayBench", "bnech" -> "bench" of "MMDG-Bench"), else, for plain words only, as English does when that
        helps the question read against the corpus.

        A word is corrected when it is neither English nor used by the corpus (nor a common English word by wordfreq,
        Zipf at least ``common_zipf``). Corpus words are tried first: those ``edits`` edits away (adjacent swaps
        included; ``long_edits`` from ``long_chars`` letters on), or, for words of ``min_chars`` letters or more, at a
        rapidfuzz ratio of at least ``min_ratio``, with the same first letter; the fewest edits win, then the word
        more abstracts use (``frequency``: word -> how many documents use it; None: English frequency decides).
        Only then English (``_common_spelling``: "whcih" -> "which").

        With ``together`` (a corpus word and other content words -> the most of those one passage holds next to it,
        see ``cooccurrence``), an English word the corpus never uses, one edit from a corpus word of five letters or
        more ("patent" for "patient", "filed" for "failed"), is respelt when a passage holds that word with at least
        half (and two) of the question's other content words: the question then matches the corpus better; only by a
        slip likelier than one unrelated letter ("decay" stays beside a corpus "delay").
        With ``context`` (the same test over single sentences, see ``cooccurrence``), of two corpus words as many
        edits away the one a sentence holds with more of the question's other words wins ("active 3d maping" ->
        "mapping", not the more frequent "making").
        A name of the corpus typed in lower case is written as the corpus writes it ("anchorworld" -> "AnchorWorld",
        "ssm" -> "SSM"), unless it is a word of English (of the tokenizer's, or of wordfreq Zipf ``name_case_zipf`` or
        more for a name in capitals, 1 or more for a capitalised one) that the corpus also writes in lower case
        ("rise" of "RISE" stays; "flux" of "FLUX" does not when no abstract writes "flux"), and a hyphenated corpus word typed without its hyphen gets it back
        ("fewshot" -> "few-shot"). A word English uses (wordfreq Zipf at least ``keep_zipf``: "scarring", "preset")
        is no typo here, whatever corpus word is near (the ``together`` pass may still respell it), though it is
        written as the corpus inflects it ("sudoku" -> "sudokus"), or respelt when a slip costing at most
        ``keep_cost`` (``typing_cost``: two letters swapped, one doubled, a vowel dropped) makes it of an English word
        ``keep_gain`` or more Zipf more common ("recieve" -> "receive"). Candidates are the
        corpus words above and, for a word in lower case (or opening a sentence), the English words one slip away
        (``english_candidates``, Zipf at least ``english_zipf``), the likeliest slip first (``typing_cost``; an English
        word the corpus lacks costs ``english_cost`` more: "agens" is the corpus's "agents", not "agnes"). A
        capitalised typo keeps its capital. A word shorter than ``min_chars`` is respelt only by a slip costing at most
        ``short_cost`` (English spellings included): many words are one edit from it ("RMSE" is not "RISE"). A field
        acronym typed in lower case is written in capitals ("llm" -> "LLM", "gpus" -> "GPUs"). A word wordfreq gives
        Zipf ``common_zipf`` or more is respelt only within ``edits`` / ``long_edits`` edits, not by the fuzzy ratio
        alone, unless one word begins with the other ("analytically" is not "anatomically"); a plain one whose stems the
        corpus uses is another form of a corpus word, not a typo ("quantifies" is not "quantities"; written in the
        corpus's form when that is one or two edits away).
        The thresholds are ``policy``'s (AnswerPolicy, defaults when None): ``min_ratio`` is its fuzzy_min_ratio,
        ``min_chars`` fuzzy_min_chars, ``name_case_zipf`` name_case_zipf, and each other one its ``typo_`` field
        (``common_zipf`` typo_common_zipf, ``word_min_chars`` typo_min_chars, ``edits`` typo_edits, …).
        Returns the corrected question and the corpus spellings used."""
        from rag.word_frequency import zipf_frequency

        policy = policy or AnswerPolicy()
        min_ratio, min_chars, name_case_zipf = policy.fuzzy_min_ratio, policy.fuzzy_min_chars, policy.name_case_zipf
        common_zipf, word_min_chars = policy.typo_common_zipf, policy.typo_min_chars
        edits, long_edits, long_chars = policy.typo_edits, policy.typo_long_edits, policy.typo_long_chars
        keep_zipf, keep_gain, keep_cost = policy.typo_keep_zipf, policy.typo_keep_gain, policy.typo_keep_cost
        english_zipf, english_cost, short_cost = policy.typo_english_zipf, policy.typo_english_cost, policy.typo_short_cost

        english = english_words()
        vocabulary = self._spelling_vocabulary()

        def fix_word(token: str, opens_sentence: bool, whole: bool = True) -> str:
            lowered = token.lower()
            term = not lowered.isalpha() and _ordinary(lowered, english)  # "mixture-of-experts": English words joined
            if token == lowered and lowered in self.names and not term:  # "anchorworld", "llava-1.5": as the corpus
                surface = self.names[lowered].surface
                rare = zipf_frequency(lowered) if lowered.isalpha() else 0.0  # "ask-e": wordfreq reads "ask", "e"
                if lowered not in english and (rare < 1.0 or (is_name_like(surface) and rare < name_case_zipf)):
                    return surface
                if is_name_like(surface) and lowered not in self.lower_too:
                    return surface  # "flux" for "FLUX", an English word the corpus writes only as the name
                # "rise" for "RISE", which the corpus also writes as an English word ("gives rise to"): as typed
            acronym = _generic_acronym(lowered, english)
            if token == lowered and acronym is not None:
                return acronym  # "llm", "gpus": field acronyms written as acronyms ("LLM", "GPUs")
            if whole and (token == lowered or (opens_sentence and token[1:] == lowered[1:])) and lowered.isalpha():
                clipped = self.clipped_word(lowered, policy, frequency)
                if clipped is not None:  # "eval" -> "evaluation", "imgs" -> "images": a clipping of a corpus word
                    return clipped if token == lowered else clipped[:1].upper() + clipped[1:]
            if len(lowered) < word_min_chars or lowered in english or lowered in self.words or lowered in GENERIC_TERMS:
                return token
            if lowered in self.names or (lowered.isalpha() and lowered in self._spelling_set()):
                return token  # a corpus name, or a part of a hyphenated corpus word ("locator" of "co-locator")
            if any(c.isdigit() for c in lowered):
                return token
            # English spellings for plain words only: a capitalised word inside a sentence is a name ("Arena Hars")
            plain = token == lowered or (opens_sentence and token[1:] == lowered[1:])

            def cased(word: str) -> str:
                return word if token == lowered else word[:1].upper() + word[1:]

            joined = _hyphenated(lowered, self.words)
            if joined is not None:  # "fewshot" -> "few-shot": a hyphenated corpus word typed without its hyphen
                fixes.append(joined)
                return joined
            common = zipf_frequency(lowered)
            if common >= keep_zipf:
                # a word English uses ("scarring", "preset"): not a typo, whatever corpus word is near; written as the
                # corpus inflects it when the corpus has it in another form ("sudoku" -> "sudokus"), and respelt only
                # when one of the likeliest slips makes it of a far more common word ("recieve" -> "receive")
                inflected = self._inflected(lowered, vocabulary)
                if inflected is not None:
                    return inflected
                likely = [(typing_cost(lowered, w), -zipf_frequency(w), w)
                          for w in likeliest_respellings(lowered, common + keep_gain)] if plain and lowered.isalpha() else []  # fmt: skip
                best_slip = min((c for c in likely if c[0] <= keep_cost), default=None)
                return token if best_slip is None else cased(best_slip[2])
            stems_of = content_words(lowered)
            if common >= common_zipf and lowered.isalpha() and self._inflects_corpus_word(lowered):
                # a word English uses in another form of a corpus word ("quantifies" for "quantifying"): no typo of a
                # corpus word near it in letters ("quantities"); in the corpus's form when that is near
                inflected = self._inflected(lowered, vocabulary)
                return token if inflected is None else cased(inflected)
            own = set(stems_of)
            fits = None if context is None else (lambda word: context(word, [w for w in stems if w not in own]))
            spelt = (lambda: english_candidates(lowered, english_zipf)) if plain and lowered.isalpha() and english_zipf < 10 else None
            best = self._closest(lowered, vocabulary, min_ratio if len(lowered) >= min_chars else 101.0,
                                 long_edits if len(lowered) >= long_chars else edits, frequency, fits,
                                 spelt, english_cost)  # fmt: skip
            corpus_word = best is not None and (best in self.names or best in self._spelling_set())
            # a short word has many words one edit away: only a likely slip respells it ("RMSE" is not "RISE")
            slip = 0.0 if best is None else typing_cost(lowered, best) + (0.0 if corpus_word else english_cost)
            if best is not None and len(lowered) < min_chars and slip > short_cost:
                return token
            allowed = long_edits if len(lowered) >= long_chars else edits
            if best is not None and common >= common_zipf and slip > allowed and not _one_extends(lowered, best):
                return token  # a word English uses, only alike in letters ("analytically", not "anatomically")
            if best is None:
                return _common_spelling(token, opens_sentence, min_ratio, common_zipf, len(lowered) >= min_chars)
            surface = self.names[best].surface if best in self.names else best
            if token == lowered and not is_name_like(surface) and zipf_frequency(best) >= 1.0:
                surface = surface.lower()  # "thrseholding" -> "thresholding", not a capitalised "Thresholding"
            elif token[:1].isupper() and token[1:] == token[1:].lower() and surface == surface.lower():
                surface = surface[:1].upper() + surface[1:]  # "Tiken Hypothesis" -> "Token Hypothesis"
            if corpus_word:
                fixes.append(surface)  # a corpus spelling (English ones are no "did you mean")
            return surface

        fixes: list[str] = []
        stems = list(dict.fromkeys(content_words(question)))

        def fix(match: re.Match[str]) -> str:
            token = match.group(1)
            opens = _starts_sentence(question, match.start())
            fixed = fix_word(token, opens)
            if fixed != token or "-" not in token:
                return fixed
            # "chaain-of-thougnt": each part of a hyphenated word on its own
            parts = token.split("-")
            # (a part is no clipping: "RNA-seq", "l-inf" are terms as written)
            fixed_parts = [fix_word(part, opens and i == 0, whole=False) for i, part in enumerate(parts)]
            # a part respelt, not merely written in a name's capitals ("burer-monteiroo": not "Burer-monteiro")
            return "-".join(f if f.lower() != p.lower() else p for f, p in zip(fixed_parts, parts, strict=True))

        corrected = _TOKEN.sub(fix, question)
        if together is not None:
            corrected = self._real_word_errors(corrected, english, together, fixes)
        return corrected, fixes

    def clipped_word(
        self, lowered: str, policy: AnswerPolicy | None = None, frequency: Callable[[str], float] | None = None
    ) -> str | None:
        """The corpus word a lower-case word clips, as writers typing fast shorten words: its beginning ("eval" for
        "evaluation", "backprop" for "backpropagation", "params" for "parameters": a plural clips a plural) or its
        consonant skeleton ("imgs" for "images": the first letter and consonants only, in order). Only for a word
        neither the corpus, the tokenizer nor the generic list uses, rarer in English than ``clipping_max_zipf``, of
        ``clipping_min_chars`` letters or more, and only when one family of corpus words (one stem) holds at least
        ``clipping_share`` of the frequency (``frequency``: word -> how many documents use its stem; None: English
        frequency) of all the words it may clip; of that family the word English uses most. Not a word one likely
        slip of the fingers from a corpus word (``typing_cost`` at most ``typo_short_cost``: "taks" is "tasks"). None
        otherwise."""
        from rag.word_frequency import zipf_frequency

        policy = policy or AnswerPolicy()
        english = english_words()
        if (
            len(lowered) < policy.clipping_min_chars
            or not lowered.isalpha()
            or lowered in english
            or lowered in self.words
            or lowered in GENERIC_TERMS
            or lowered in self.names
            or zipf_frequency(lowered) >= policy.clipping_max_zipf
        ):
            return None
        from rapidfuzz.distance import OSA

        near = process.extract(lowered, self._spelling_vocabulary(), scorer=OSA.distance, score_cutoff=1, limit=5)
        if any(w != lowered and typing_cost(lowered, w) <= policy.typo_short_cost for w, _, _ in near):
            return None  # a likely slip of the fingers ("taks" for "tasks"), no clipping
        if self._alpha_words is None:
            self._alpha_words = tuple(sorted(w for w in self.words if w.isalpha()))
        words = self._alpha_words
        bases = [(lowered, False)]
        if plural_s(lowered) and len(lowered) > policy.clipping_min_chars:
            bases.append((lowered[:-1], True))  # "params": a plural of a clipped "param"
        found: set[str] = set()
        for base, plural in bases:
            start = bisect_left(words, base)
            for w in words[start : bisect_right(words, base + "\uffff")]:
                if len(w) >= len(base) + 2 and (not plural or plural_s(w)):
                    found.add(w)
            if len(base) >= 3 and not any(c in _VOWELS for c in base[1:]):  # a consonant skeleton: "img", "msg"
                for w in words[bisect_left(words, base[0]) : bisect_right(words, base[0] + "\uffff")]:
                    if (
                        len(base) + 2 <= len(w) <= 3 * len(base)
                        and _skeleton_of(base, w)
                        and (not plural or plural_s(w))
                    ):
                        found.add(w)
        if not found:
            return None
        families: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for w in found:
            stems = tuple(content_words(w))
            if stems:
                families[stems].append(w)
        if not families:
            return None

        def weight(members: list[str]) -> float:
            if frequency is not None:
                return max(frequency(w) for w in members)
            return max(10 ** zipf_frequency(w) for w in members)

        weights = {stems: weight(members) for stems, members in families.items()}
        total = sum(weights.values())
        best = max(weights, key=lambda stems: (weights[stems], stems))
        if total <= 0 or weights[best] < policy.clipping_share * total:
            return None
        return max(families[best], key=lambda w: (zipf_frequency(w), -len(w), w))

    def _real_word_errors(
        self, question: str, english: Collection[str], together: Callable[[str, Sequence[str]], int], fixes: list[str]
    ) -> str:
        """``correct``'s second pass: English words the corpus never uses that one passage's words say were meant."""
        from rapidfuzz.distance import OSA

        stems = content_words(question)

        def fix(match: re.Match[str]) -> str:
            token = match.group(1)
            if token != token.lower() or not token.isalpha() or len(token) < 5 or token in self.words:
                return token
            own = content_words(token)
            if not own or any(w in self.stems for w in own):
                return token  # a stop word, or a word whose stem the corpus uses ("models" for "model")
            others = [w for w in dict.fromkeys(stems) if w not in own]
            needed = max(2, (len(others) + 1) // 2)
            near = process.extract(token, self._spelling_vocabulary(), scorer=OSA.distance, score_cutoff=1, limit=10)
            best, support = None, 0
            for word, _, _ in near:
                if word[0] != token[0] or len(word) < 5 or not word.isalpha():
                    continue
                if typing_cost(token, word) >= _UNRELATED_LETTER:  # a word of its own ("decay", not "delay")
                    continue
                held = together(word, others)
                if held >= needed and held > support:
                    best, support = word, held
            if best is None:
                return token
            fixes.append(best)
            return best

        return _TOKEN.sub(fix, question)

    @staticmethod
    def _inflected(lowered: str, vocabulary: Sequence[str]) -> str | None:
        """The corpus word, one or two edits away, that is ``lowered`` in another form (the same content-word stem, or
        its plural or singular: "sudoku" -> "sudokus"), the closest; None when there is none."""
        from rapidfuzz.distance import OSA

        stems = content_words(lowered)
        if not stems:
            return None
        near = process.extract(lowered, vocabulary, scorer=OSA.distance, score_cutoff=2, limit=10)
        same = [
            (dist, word)
            for word, dist, _ in near
            if word[0] == lowered[0]
            and (content_words(word) == stems or lowered in (name_singular(word), word[:-1]) or word == lowered[:-1])
        ]
        return min(same)[1] if same else None

    @staticmethod
    def _closest(
        lowered: str,
        vocabulary: Sequence[str],
        min_ratio: float,
        max_edits: int,
        frequency: Callable[[str], float] | None,
        context: Callable[[str], int] | None = None,
        english: Callable[[], Sequence[str]] | None = None,
        english_cost: float = 0.25,
    ) -> str | None:
        """The vocabulary word ``lowered`` most likely mistypes (see ``correct``), or None: the one a slip of the
        fingers most likely turns into it (``typing_cost``: "plann" is "plan", not "plane"), then, among as likely
        ones, the one ``context`` (candidate -> how many of the question's other words one passage holds with it)
        says the rest of the question is written about ("active 3d maping" -> "mapping", not the more frequent
        "making"), then the more frequent one. ``english``: English words one edit away that the vocabulary lacks
        (``english_candidates``, read when called), candidates too at ``english_cost`` more ("decyaing" -> "decaying", not the corpus's
        "decoding")."""
        from rapidfuzz.distance import OSA

        from rag.word_frequency import zipf_frequency

        found: dict[str, float] = {}
        if max_edits > 0:
            near = process.extract(lowered, vocabulary, scorer=OSA.distance, score_cutoff=max_edits, limit=20)
            found.update((word, typing_cost(lowered, word)) for word, _, _ in near if word[0] == lowered[0])
        if min_ratio <= 100.0:
            match = process.extractOne(lowered, vocabulary, scorer=fuzz.ratio, score_cutoff=min_ratio)
            distance = int(OSA.distance(lowered, match[0])) if match is not None else 0
            # close by ratio, but not by dropping a part ("simplicity-bias" is not "simplicity")
            if match is not None and match[0][0] == lowered[0] and distance <= max_edits + 1:
                found.setdefault(match[0], typing_cost(lowered, match[0]))
        # English words only when no corpus word is as likely a slip as the likeliest English one could be (the
        # lookups cost a few milliseconds a word)
        if english is not None and (not found or min(found.values()) > _LIKELIEST_SLIP + english_cost):
            for word in english():
                found.setdefault(word, typing_cost(lowered, word) + english_cost)
        if not found:
            return None

        def weight(word: str) -> float:
            return frequency(word) if frequency is not None else zipf_frequency(word)

        fewest = min(found.values())
        fits = {w: context(w) for w in found if found[w] == fewest} if context is not None and len(found) > 1 else {}
        return min(found, key=lambda w: (found[w], -fits.get(w, 0), -weight(w), -fuzz.ratio(lowered, w), w))

    def _spelling_set(self) -> frozenset[str]:
        if self._vocabulary_set is None:
            self._vocabulary_set = frozenset(self._spelling_vocabulary())
        return self._vocabulary_set

    def _spelling_vocabulary(self) -> list[str]:
        """Corpus words of four letters or more (the parts of hyphenated words too: "bench" of "mmdg-bench") and
        the corpus's names."""
        if self._vocabulary is None:
            parts = {p for w in self.words if "-" in w for p in w.split("-")}
            words = {w for w in self.words | parts if len(w) >= 4 and w.isalpha()}
            self._vocabulary = sorted(words | set(self.names))
        return self._vocabulary


@lru_cache(maxsize=1)
def _common_vocabulary() -> tuple[str, ...]:
    """Common English words of four letters or more (the tokenizer's whole words), for spelling ordinary words."""
    return tuple(sorted(w for w in english_words() if len(w) >= 4))


def _common_spelling(
    token: str, opens_sentence: bool, min_ratio: float, common_zipf: float, by_ratio: bool = True
) -> str:
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
    best = None
    if by_ratio:
        best = process.extractOne(lowered, _common_vocabulary(), scorer=fuzz.ratio, score_cutoff=min_ratio)
    if best is None or best[0][0] != lowered[0]:
        if by_ratio:
            return token
        # a short word ("taks"): one edit, adjacent swaps included, from a common word of the same first letter
        from rapidfuzz.distance import OSA

        near = process.extract(lowered, _common_vocabulary(), scorer=OSA.distance, score_cutoff=1, limit=20)
        near = [w for w, _, _ in near if w[0] == lowered[0]]
        if not near:
            return token
        best = (max(near, key=lambda w: (zipf_frequency(w), w)), 0.0, 0)
    return best[0].capitalize() if first_capital else best[0]


class _Either:
    """Membership in either of two word sets, without building their union."""

    def __init__(self, first: Collection[str], second: Collection[str]) -> None:
        self.first, self.second = first, second

    def __contains__(self, word: object) -> bool:
        return word in self.first or word in self.second


_KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_KEYBOARD = {  # each letter -> the letters around it on a QWERTY keyboard
    c: "".join(
        _KEY_ROWS[r][k]
        for r in range(max(0, row - 1), min(3, row + 2))
        for k in range(max(0, col - 1), col + 2)
        if k < len(_KEY_ROWS[r]) and _KEY_ROWS[r][k] != c
    )
    for row, keys in enumerate(_KEY_ROWS)
    for col, c in enumerate(keys)
}


def english_neighbour(word: str, min_zipf: float) -> bool:
    """Whether a word one typing slip from ``word`` (a letter doubled or added, a vowel or a keyboard neighbour
    dropped or hit instead, two adjacent letters swapped) is one English uses (wordfreq Zipf frequency at least
    ``min_zipf``): ``word`` then reads as a typo of it. About 150 lookups for an eight-letter word; asked only of
    lower-case words neither English nor the corpus uses."""
    from rag.word_frequency import zipf_frequency

    edits = one_slip_edits(word, first=0, vowels_for_letters=False, doubled=False)
    return any(len(e) >= 2 and zipf_frequency(e) >= min_zipf for e in edits)


def one_slip_edits(word: str, *, first: int, vowels_for_letters: bool, doubled: bool) -> set[str]:
    """The strings one slip of the fingers from ``word``, changing nothing before position ``first``: a letter
    dropped, two adjacent letters swapped, a letter replaced by a neighbouring key (or, with ``vowels_for_letters``,
    by a vowel), and a letter added that the slip most likely lost: a vowel or a keyboard neighbour of the letters
    around it (with ``doubled``, those letters themselves too). Without ``word`` itself."""

    def lost(i: int) -> str:  # the letters a slip at position i most likely lost
        around = _KEYBOARD.get(word[i - 1 : i], "") + _KEYBOARD.get(word[i : i + 1], "")
        return "aeiou" + (word[i - 1 : i + 1] if doubled else "") + around

    vowels = "aeiou" if vowels_for_letters else ""
    edits = {word[:i] + word[i + 1 :] for i in range(first, len(word))}
    edits |= {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(first, len(word) - 1)}
    edits |= {word[:i] + c + word[i + 1 :] for i in range(first, len(word)) for c in _KEYBOARD.get(word[i], "") + vowels}
    edits |= {word[:i] + c + word[i:] for i in range(first, len(word) + 1) for c in set(lost(i))}
    edits.discard(word)
    return edits


def _one_extends(typed: str, word: str) -> bool:
    """Whether one of the two words (lower-cased) begins with the other: a longer or shorter form of one word
    ("nonlinearity", "nonlinear"), which a spelling correction may put in the corpus's form."""
    return typed.startswith(word) or word.startswith(typed)


def typing_cost(typed: str, word: str) -> float:
    """How unlikely a slip of the fingers turns ``word`` into ``typed``: the edits between them (adjacent swaps
    included), each weighted by how often people make it. A letter typed twice or two letters swapped cost little, a
    neighbouring key or a dropped letter more, an unrelated letter a whole edit: "plann" is "plan" (a doubled n), not
    "plane"; "sehd" is "shed", not "send". Several edits cost one each. Both words lower-cased."""
    from rapidfuzz.distance import OSA

    edits = int(OSA.distance(typed, word))
    if edits != 1:
        return float(edits)
    if len(typed) == len(word) + 1:  # a letter too many: typed twice, or a neighbouring key hit as well
        i = next((k for k in range(len(word)) if typed[k] != word[k]), len(word))
        extra = typed[i]
        around = typed[i - 1 : i] + typed[i + 1 : i + 2]
        if extra in around:
            return 0.5
        return 0.7 if any(extra in _KEYBOARD.get(c, "") for c in around) else 0.9
    if len(typed) + 1 == len(word):  # a letter dropped; a doubled letter typed once, or a vowel, most often
        i = next((k for k in range(len(typed)) if typed[k] != word[k]), len(typed))
        return 0.6 if word[i] in word[i - 1 : i] + word[i + 1 : i + 2] or word[i] in "aeiou" else 0.8
    at = [k for k in range(len(word)) if typed[k] != word[k]]
    if len(at) == 2:  # two adjacent letters swapped
        return 0.6
    a, b = typed[at[0]], word[at[0]]
    if a in _KEYBOARD.get(b, ""):
        return 0.7
    return 0.8 if a in "aeiou" and b in "aeiou" else 1.0


_LIKELIEST_SLIP = 0.5  # what typing_cost gives the likeliest slip (a letter typed twice)
_UNRELATED_LETTER = 1.0  # what typing_cost gives one unrelated letter: a different word, no slip of the fingers


def likeliest_respellings(word: str, min_zipf: float) -> tuple[str, ...]:
    """The words English uses (wordfreq Zipf at least ``min_zipf``) that the likeliest slips make ``word`` of: two
    adjacent letters swapped, a letter typed twice, a vowel or a doubled letter dropped (``typing_cost`` 0.5-0.6);
    about 7 lookups a letter, a fraction of ``english_candidates``'."""
    from rag.word_frequency import zipf_frequency

    edits = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(1, len(word) - 1)}
    edits |= {word[:i] + word[i + 1 :] for i in range(1, len(word)) if word[i] == word[i - 1]}
    edits |= {word[:i] + c + word[i:] for i in range(1, len(word) + 1) for c in set("aeiou" + word[i - 1])}
    edits.discard(word)
    lookup = zipf_frequency.__wrapped__  # not through its cache (see english_candidates)
    return tuple(sorted(e for e in edits if lookup(e) >= min_zipf))


@lru_cache(maxsize=256)
def english_candidates(word: str, min_zipf: float) -> tuple[str, ...]:
    """The words English uses (wordfreq Zipf frequency at least ``min_zipf``) one edit from ``word`` (a letter
    dropped, added, replaced, or two adjacent ones swapped), keeping its first letter, as a slip makes it (a letter replaced
    by a neighbouring key or a vowel; a vowel, a doubled letter or a neighbouring key's letter dropped): the English
    spellings a typo may stand for when neither the corpus nor the tokenizer has the word ("clariyfing" ->
    "clarifying"). About 15 lookups per letter, each a binary search in the on-disk frequency list."""
    from rag.word_frequency import zipf_frequency

    edits = one_slip_edits(word, first=1, vowels_for_letters=True, doubled=True)
    lookup = zipf_frequency.__wrapped__  # not through its cache: hundreds of made-up strings a word would fill it
    return tuple(sorted(e for e in edits if len(e) >= 3 and lookup(e) >= min_zipf))


def _generic_acronym(lowered: str, english: Collection[str]) -> str | None:
    """A field acronym typed in lower case, in capitals ("llm" -> "LLM", "gpus" -> "GPUs"), unless the tokenizer
    reads it as an English word ("api"); None for anything else. Written so, it reads as the acronym it is wherever a
    question's capitals matter (its specific terms, what it asks about)."""
    stem = lowered[:-1] if lowered.endswith("s") and lowered[:-1] in _FIELD_ACRONYMS else lowered
    if stem not in _FIELD_ACRONYMS or lowered in english:
        return None
    return stem.upper() + lowered[len(stem) :]


_FIELD_ACRONYMS = frozenset("llm vlm mllm nlp gpu cpu api".split())


def _hyphenated(word: str, words: Collection[str], shortest: int = 3) -> str | None:
    """The hyphenated word of ``words`` that ``word`` writes without its hyphen ("fewshot" -> "few-shot"), each part
    ``shortest`` letters or more; None when there is none."""
    for i in range(shortest, len(word) - shortest + 1):
        joined = f"{word[:i]}-{word[i:]}"
        if joined in words:
            return joined
    return None


def _subsequence(short: str, word: str) -> bool:
    """Whether the letters of ``short`` occur in ``word`` in order."""
    rest = iter(word)
    return all(c in rest for c in short)




def _skeleton_of(skeleton: str, word: str, skipped: int = 1) -> bool:
    """Whether ``skeleton`` (a first letter, then consonants: "img", "ctx") writes ``word``'s first letter and its
    consonants in order, leaving out at most ``skipped`` of them before the last it writes ("images", "context"; not
    "improving")."""
    if skeleton[:1] != word[:1]:
        return False
    consonants = [c for c in word[1:] if c not in _VOWELS]
    at, left_out = 0, 0
    for c in skeleton[1:]:
        while at < len(consonants) and consonants[at] != c:
            at, left_out = at + 1, left_out + 1
        if at == len(consonants):
            return False
        at += 1
    return left_out <= skipped


def _compound(word: str, vocabulary: _Either, shortest: int = 3) -> bool:
    """Whether ``word`` is two known words run together ("multihead", "pretraining"), each ``shortest`` letters or
    more (or a two-letter English prefix such as "co", "re": "coattention")."""
    for i in range(2, len(word) - shortest + 1):
        head, tail = word[:i], word[i:]
        if (len(head) >= shortest or head in _SHORT_PREFIXES) and head in vocabulary and tail in vocabulary:
            return True
    return False


_SHORT_PREFIXES = frozenset({"co", "re", "de", "un", "bi", "in"})
_VOWELS = frozenset("aeiouy")


def _spelt_out(acronym: str, corpus_text: CorpusText) -> bool:
    """Whether the (lower-cased) corpus has words whose initials spell the acronym, e.g. "mcts" in "monte carlo
    tree search" (4-6 letters, each word of 3 or more letters, so chance runs of short words do not count; hyphens
    join words too)."""
    letters = [c for c in acronym if c.isalpha()]
    if not 4 <= len(letters) <= 6 or len(letters) != len(acronym):
        return False
    pattern = re.compile(r"\b" + initials_run("".join(letters), r"[a-z0-9]{2,}", r"[\s-]+") + r"\b")
    return _corpus_has(pattern, corpus_text)


def _corpus_has(pattern: re.Pattern[str], corpus_text: CorpusText) -> bool:
    """Whether the (lower-cased) corpus text matches ``pattern``, a pattern no match of which holds a full stop (a
    SearchedText is searched in blocks split at one)."""
    if isinstance(corpus_text, str):
        return pattern.search(corpus_text) is not None
    return corpus_text.search(pattern, ".")


def _clipped_phrase(word: str, corpus_text: CorpusText, shortest: int = 3) -> bool:
    """Whether ``word`` (letters only, 6 to 10 of them) runs together the beginnings of two words the (lower-cased)
    corpus writes one after the other, each ``shortest`` letters or more and the first clipped ("matmul": matrix
    multiplication, "convnet": convolutional network), as writers shorten a term of two words; or, written with a 2,
    the beginnings of two words the corpus joins by "to" ("seq2seq": sequence-to-sequence)."""
    to = re.fullmatch(r"([a-z]{2,})2([a-z]{2,})", word)  # "seq2seq": sequence-to-sequence, "img2img"
    if to is not None:
        pattern = re.compile(rf"\b{to.group(1)}[a-z]*[\s-]+to[\s-]+{to.group(2)}[a-z]*\b")
        return _corpus_has(pattern, corpus_text)
    if not word.isalpha() or not 2 * shortest <= len(word) <= 10:
        return False
    for i in range(shortest, len(word) - shortest + 1):
        head, tail = word[:i], word[i:]
        pattern = re.compile(rf"\b{head}[a-z]+[\s-]+{tail}[a-z]*\b")
        if _corpus_has(pattern, corpus_text):
            return True
    return False


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


def introduces(text: str, lowered: str, window: int = 80) -> bool:
    """Whether ``text`` introduces the (lower-cased) name: within ``window`` characters after one of the cues of
    introduced_name ("we propose", "our method", "called" …)."""
    lowered_text = text.lower()
    if len(lowered_text) != len(text):  # lower-casing moved offsets (rare letters): cues read lower-cased
        text = lowered_text
    return any(
        _find_as_word(lowered, lowered_text[cue.end() : cue.end() + window]) >= 0 for cue in _INTRODUCES.finditer(text)
    )


def _find_as_word(word: str, text: str) -> int:
    """Where ``word`` first occurs in ``text`` not inside a longer word (both lower-cased); -1 when it does not."""
    match = re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", text)
    return match.start() if match else -1


class _Index(Protocol):
    vocabulary: Mapping[str, int]
    weights: object  # rag.bm25.CscWeights: ``indptr`` bounds each term's column


def cooccurrence(
    index: _Index, group: Callable[[int], str] | None = None
) -> Callable[[str, Sequence[str]], int]:
    """(word, other content words) -> the most of the others that one document of a BM25 index
    (rag.bm25.BM25Index: chunks) holds together with the word's stem, documents taken together by ``group`` (row ->
    its abstract: one abstract's chunks as one passage): ``Lexicon.correct``'s test that a respelling makes the
    question match a passage."""
    weights = index.weights

    def rows(stem: str) -> set:
        column = index.vocabulary.get(stem)
        if column is None:
            return set()
        lo, hi = int(weights.indptr[column]), int(weights.indptr[column + 1])  # type: ignore[attr-defined]
        found = weights.indices[lo:hi].tolist()  # type: ignore[attr-defined]
        return {group(r) for r in found} if group is not None else set(found)

    def held(word: str, others: Sequence[str]) -> int:
        stems = content_words(word)
        if not stems:
            return 0
        docs = set.intersection(*(rows(s) for s in stems))
        if not docs:
            return 0
        counts = dict.fromkeys(docs, 0)
        for other in dict.fromkeys(others):
            for doc in rows(other) & docs:
                counts[doc] += 1
        return max(counts.values())

    return held


def document_frequency(index: _Index) -> Callable[[str], float]:
    """word -> how many documents of a BM25 index (rag.bm25.BM25Index) use its stem: the tie-break of
    ``Lexicon.correct`` between equally close corpus words ("taks": "tasks" over "takes" in a corpus about tasks)."""
    indptr = index.weights.indptr  # type: ignore[attr-defined]

    def frequency(word: str) -> float:
        stems = content_words(word)
        if not stems:  # a stop word ("their", "with", "paper"): as common as words get
            return float(index.weights.shape[0])  # type: ignore[attr-defined]
        columns = [index.vocabulary[s] for s in stems if s in index.vocabulary]
        return float(min((int(indptr[c + 1] - indptr[c]) for c in columns), default=0))

    return frequency
