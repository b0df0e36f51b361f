"""Whether the abstracts answer a question: one calibrated score, one threshold. Pure.

No single signal decides. Each adds log-odds (weights in AnswerPolicy, fitted on the dev split):
- subject names close to no name in the corpus (a model, dataset or acronym the corpus never uses);
- linked names the answering abstract(s) do not mention (the detail asked about is stated elsewhere);
- the share of the asked-about words (what is counted or named) missing from the answering abstract;
- a number asked for with no number in the quoted evidence;
- how far the best evidence similarity falls below a floor (skipped when the encoder cannot read the question);
- the share of the question's topic words the answering abstract lacks, and of those no abstract uses at all (each
  of these counting by its English rarity, rarity_share: "honest" little, "federated" much);
- the share of the question's topic words no abstract uses that look mistyped (a rare word one or two edits from a
  known one: "electricaty"), kept apart from topic_unknown so a typo is not read as an absent topic;
- a list, summary or yes/no question whose best evidence sentence is far from the question (similarity_list);
- a question asking for names (which datasets, models…) where no quoted sentence names anything new;
- a question asking for a duration, a licence, named hardware or a value, where the answering abstract states none
  (rag.question.answer_type: the expected answer type from the question's wh-phrase and head noun);
- a question asking for a value whose measure ("what learning rate", "the pass@1") its answering abstract never writes
  (measure_unwritten): it states no value of that measure, however many other numbers it gives;
- a question asking for a value or for names, where no sentence of the answering abstract that holds such an answer
  (a number the question does not state, a name it does not give) also holds the question's detail words (the answer
  slot is filled about something else: "what accuracy on benchmark B" answered by an accuracy on benchmark A); and
  the same read within a few words of the answer (slot_near_missing: "on real graphs, FooNet beats BarLib" holds a
  name and "graphs" in one sentence, yet names no graph);
- a list, summary or yes/no question whose best paper lacks the topic's rare words (idf-weighted; a word no abstract
  uses weighs by how rare it is in English, so "anyone" or "give" weigh little and "oversmoothing" much), and the
  same, with its own weight, for a terse keyword query ("optical flow estimation kitti"), which names a topic too;
- and, against abstaining, a name of the corpus spelt exactly, and (list, summary and yes/no questions) the idf mass
  of the topic words the best paper does hold (topic_matched): a description in plain words ("blood tests that pick
  up fragments shed by organs") leaves many words unmatched, yet the few rare words it shares with one paper
  ("shed", "organ") are evidence for it, while an absent topic shares only common words with any paper. Shares of
  missing words alone read a long plain description as an absent topic. Besides the first cited paper's, the most
  that any cited paper holds (topic_matched_any): the paper on the topic is not always the one whose line leads;
- and, against abstaining, for list, summary and yes/no questions, how far the shortlisted paper most similar to
  the question's topic said alone (the mean similarity of its few sentences most like it, AnswerPolicy.
  topic_peak_sentences; 0: of all its sentences to the whole question) stands above the shortlist's median
  (topic_peak): a topic some paper treats makes that paper stand out of the papers near it, however the question
  is worded (a long plain description is less similar to every abstract, not to one); an absent topic leaves the
  nearest papers level. The same read off the retrieval itself (question_peak): how far the retrieved paper most
  similar to the whole question (its pooled sentence similarity, rag.retrieve) stands above the median of the papers
  retrieved with it; a question in other words than its paper's ("which work makes my photos useless for training")
  shares few of its words, yet its meaning singles that paper out, so the words the best paper lacks (focus_list,
  phrase_list, topic_rare_list) count the less the more clearly it does (meaning_clarity), as BM25 counts the less
  in retrieval against a clear dense winner; and the less the longer the question describes the one work it asks
  for by what it does or finds ("which work shows that …": described_reading), whose words paraphrase that work.
- a single-paper question naming its work by a short description, as a term ("the paper on X", "the X study":
  rag.question.work_description) whose answering abstract lacks the description's words (their mass, each word
  weighing its idf times its English rarity: described_missing): a question about "the paper on quux autoencoders"
  answered by a paper on another kind of model is about a neighbouring topic the corpus lacks, while the everyday
  words of a paraphrased description weigh little; and the same for what the question asks the work to say
  something about ("what does FooNet report about X": rag.question.asked_aspect, aspect_missing), and how far that
  aspect said alone falls, by its meaning, below every sentence of the answering abstract (aspect_far: "what does
  the hand pose paper say about sign language recognition" shares no word with it, yet no sentence is near it).
List, summary and yes/no questions ask whether any paper qualifies, single-paper questions what one paper states:
the signals both kinds share (names close to no corpus name, linked names, the share of asked-about words missing,
the share of word pairs no sentence holds) carry their own weights for each kind (the ``*_list`` features), so the
list shape's weight is the offset of the list model, not a prior swamping its evidence.
The score is the logistic of their sum: 0 (answer) .. 1 (abstain). It is computed for every question, so the
abstain / false-abstain trade-off can be drawn from it.
"""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from rag.policy import AnswerPolicy
from rag.text import NUMBER_WORDS, initials_run

LIST_SHAPES = frozenset({"list", "summary", "yes_no"})


@dataclass(frozen=True, slots=True)
class AbstentionSignals:
    shape: str = "fact"
    unknown_names: tuple[str, ...] = ()  # name-like subject tokens close to no corpus name
    missing_names: tuple[str, ...] = ()  # linked names the answering abstract(s) do not mention
    linked_exact: bool = False  # the question names a work of the corpus, spelt as the corpus spells it
    focus_missing: float = 0.0  # share of the asked-about words absent from the answering abstract
    number_missing: bool = False  # a number was asked for and no quoted sentence holds one
    best_dense: float | None = None  # best MiniLM similarity of the evidence; None when the encoder cannot read it
    topic_missing: float = 0.0  # share of the question's topic words the answering abstract lacks (corpus has them)
    topic_unknown: float = 0.0  # share of the question's topic words no abstract of the corpus uses
    has_evidence: bool = True  # there is anything to quote at all
    phrase_missing: float = 0.0  # share of adjacent detail-word pairs no sentence of the answering abstract(s) holds
    topic_garbled: float = 0.0  # share of the topic words no abstract uses that look like typos of known words
    names_missing: bool = False  # names are asked for and no quoted sentence names anything the question does not
    value_missing: bool = False  # a value is asked for (a count, a score) and no quoted number sits next to it
    slot_missing: float = 0.0  # 1 - detail-word coverage of the answering abstract's best sentence holding an answer
    topic_rare_missing: float = 0.0  # idf- and English-rarity-weighted share of topic words the best paper lacks
    terse: bool = False  # a keyword query ("optical flow kitti"): its words are all topic, like a list's
    topic_matched: float = 0.0  # idf mass of the topic words the best paper holds, in units of the largest idf
    type_missing: bool = False  # a duration, licence, hardware or value is asked for and the abstract states none
    type_asked: str = ""  # the kind of answer the question expects (rag.question.AnswerType), for the reason shown
    topic_matched_any: float = 0.0  # topic_matched of the cited paper holding the most (list, summary, yes/no)
    topic_peak: float | None = None  # best shortlisted paper's topic similarity minus the shortlist's median
    described_missing: float = 0.0  # idf- and rarity-weighted mass of a short work description's words its paper lacks
    aspect_missing: float = 0.0  # the same for what the work is asked to say something about ("report about X")
    slot_near_missing: float = 0.0  # slot_missing with the detail words within a few words of the answer, not anywhere
    aspect_similarity: float | None = None  # an asked aspect's best similarity to the answering abstract's sentences
    question_peak: float | None = None  # best retrieved paper's similarity to the whole question minus their median
    measure_absent: float = 0.0  # share of the asked measure's words ("learning rate") its abstract never writes
    topic_similarity: float | None = None  # the topic phrase's best similarity to a sentence of the top papers
    topic_rarity: float = 0.0  # English rarity of the topic phrase's rarest word
    topic_rare_absent: float = 0.0  # the part of topic_rare_missing's weight on topic words no abstract uses
    described_words: int = 0  # content words describing the one work a request asks for by what it does or finds


@dataclass(frozen=True, slots=True)
class Decision:
    abstain: bool
    score: float  # 0..1, higher = more likely to abstain
    reason: str  # for the user, naming the strongest signal


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, x))))


# Each signal's feature name -> the AnswerPolicy weight it is multiplied by (log-odds per unit).
WEIGHTS = {
    "unknown": "w_unknown_name",
    "missing": "w_missing_name",
    "linked": "w_linked",
    "focus": "w_focus_missing",
    "number": "w_number_missing",
    "topic": "w_topic_missing",
    "topic_unknown": "w_topic_unknown",
    "list_shape": "w_list_shape",
    "similarity": "w_similarity",
    "phrase": "w_phrase_missing",
    "topic_unknown_list": "w_topic_unknown_list",
    "garbled": "w_topic_garbled",
    "similarity_list": "w_similarity_list",
    "names_missing": "w_names_missing",
    "value": "w_value_missing",
    "slot": "w_slot_missing",
    "topic_rare_list": "w_topic_rare_missing_list",
    "topic_rare_terse": "w_topic_rare_missing_terse",
    "topic_matched": "w_topic_matched",
    "type": "w_type_missing",
    "unknown_list": "w_unknown_name_list",
    "linked_list": "w_linked_list",
    "focus_list": "w_focus_missing_list",
    "phrase_list": "w_phrase_missing_list",
    "topic_matched_any": "w_topic_matched_any",
    "topic_peak": "w_topic_peak",
    "described": "w_described_missing",
    "aspect": "w_aspect_missing",
    "slot_near": "w_slot_near_missing",
    "aspect_far": "w_aspect_far",
    "measure": "w_measure_absent",
    "topic_far": "w_topic_far",
}


def meaning_clarity(signals: AbstentionSignals, policy: AnswerPolicy) -> float:
    """How clearly the question's meaning singles out one retrieved paper (0..1): its question_peak through
    AnswerPolicy.meaning_peak_low/high; 0 when the encoder cannot read the question or when the question is about one
    paper (its own signals read the answering abstract)."""
    if signals.question_peak is None or signals.shape not in LIST_SHAPES:
        return 0.0
    low, high = policy.meaning_peak_low, policy.meaning_peak_high
    if high <= low:
        return 1.0 if signals.question_peak >= high else 0.0
    return min(1.0, max(0.0, (signals.question_peak - low) / (high - low)))


def described_reading(signals: AbstentionSignals, policy: AnswerPolicy) -> float:
    """How fully a list, summary or yes/no question reads as a description of one work rather than a topic (0..1):
    the content words describing the one work it asks for by what it does or finds ("which work shows that …", "is
    there a paper showing …": rag.question.described_work_words) through AnswerPolicy.described_work_low/high. Its
    words paraphrase that work, which need not use them, so the words its best paper lacks count the less; a short
    description ("is there a paper on FooNet pruning?") reads as a topic the papers must treat."""
    if signals.shape not in LIST_SHAPES or not signals.described_words:
        return 0.0
    low, high = policy.described_work_low, policy.described_work_high
    if high <= low:
        return 1.0 if signals.described_words >= high else 0.0
    return min(1.0, max(0.0, (signals.described_words - low) / (high - low)))


def features(signals: AbstentionSignals, policy: AnswerPolicy) -> dict[str, float]:
    """The signals as numbers, one per weight (what `python -m eval.fit_abstention` fits the weights on)."""
    listing = signals.shape in LIST_SHAPES
    single, many = (0.0, 1.0) if listing else (1.0, 0.0)  # a signal both kinds share: one weight for each kind
    # the words a list, summary or yes/no question's best paper lacks count the less the more clearly the question's
    # meaning singles that paper out: a question in other words than its paper's shares few of them however well
    # it describes it, and the less the longer the question describes one work by what it does (a paraphrase of it)
    described = described_reading(signals, policy)
    worded = (1.0 - meaning_clarity(signals, policy)) * (1.0 - described)
    return {
        "unknown": single * len(signals.unknown_names),
        "missing": float(len(signals.missing_names)),
        "linked": single * signals.linked_exact,
        "focus": single * signals.focus_missing,
        "number": float(signals.number_missing),
        "topic": signals.topic_missing,
        "topic_unknown": signals.topic_unknown,
        "list_shape": many,
        # skipped (0) when the encoder cannot read the question
        "similarity": 0.0 if signals.best_dense is None else policy.similarity_floor - signals.best_dense,
        "phrase": single * signals.phrase_missing,
        # a list or yes/no question about a topic word no abstract uses: there is no paper to list
        "topic_unknown_list": signals.topic_unknown if signals.shape in LIST_SHAPES else 0.0,
        "garbled": signals.topic_garbled,
        # a list's best sentence is the best of many papers: a low one means no paper is on the topic
        "similarity_list": 0.0
        if signals.best_dense is None or signals.shape not in LIST_SHAPES
        else policy.similarity_floor - signals.best_dense,
        "names_missing": float(signals.names_missing),
        "value": float(signals.value_missing),
        "slot": signals.slot_missing,
        # a description of one work paraphrases it in words its paper need not use, yet a term no abstract uses
        # ("quux watermarking") still names a topic the corpus lacks
        "topic_rare_list": (1.0 - meaning_clarity(signals, policy))
        * (signals.topic_rare_missing - described * max(0.0, signals.topic_rare_missing - signals.topic_rare_absent))
        if signals.shape in LIST_SHAPES
        else 0.0,
        # a keyword query names a topic, not a detail of a paper: its best paper must use the topic's rare words
        "topic_rare_terse": signals.topic_rare_missing
        if signals.terse and signals.shape not in LIST_SHAPES and signals.shape != "compare"
        else 0.0,
        # what a topic's best paper does share with the question, however much else the question says in plain words
        "topic_matched": signals.topic_matched if signals.shape in LIST_SHAPES else 0.0,
        "type": float(signals.type_missing),
        # a name close to no corpus name: in a list question often the topic itself ("papers on FooNet-style …")
        "unknown_list": many * len(signals.unknown_names),
        # a name of the corpus spelt exactly: the papers naming it are the list
        "linked_list": many * signals.linked_exact,
        # the share of the topic's words the best paper lacks
        "focus_list": many * worded * signals.focus_missing,
        "phrase_list": many * worded * signals.phrase_missing,
        "topic_matched_any": many * signals.topic_matched_any,
        # skipped (0) when the encoder cannot read the question; in units of topic_peak_unit (a cosine gap)
        "topic_peak": many * (signals.topic_peak or 0.0) / policy.topic_peak_unit,
        # a single-paper question naming its work by a description ("the paper on X"): the paper must be about X
        "described": single * signals.described_missing,
        # "what does FooNet report about X": the paper must mention X
        "aspect": single * signals.aspect_missing,
        # the answer slot read in a window: a name or value said next to the asked details, not elsewhere in its sentence
        "slot_near": single * signals.slot_near_missing,
        # "what does FooNet say about X": X by its meaning far from every sentence of FooNet's abstract
        "aspect_far": single * aspect_far(signals.aspect_similarity, policy),
        # "what learning rate …": an abstract that never writes the measure states no value of it
        "measure": single * signals.measure_absent,
        # the topic said alone far from every sentence of the best-ranked papers, counting by how technical it is
        "topic_far": signals.topic_rarity * topic_far(signals.topic_similarity, policy),
    }


def measure_unwritten(measure: str, abstract: str, generic: Collection[str] = ()) -> float:
    """The share of the content words of the measure a value question asks ("learning rate", "pass@1", "FID") that
    the abstract never writes (``generic``: stems that say only that a value is asked, "number", "size", left out):
    an abstract that never names the measure states no value of it, however many other numbers it gives. 0.0 when
    no word is left."""
    from rag.text import content_words

    words = [w for w in dict.fromkeys(content_words(measure)) if w not in generic]
    if not words:
        return 0.0
    held = set(content_words(abstract))
    return sum(w not in held for w in words) / len(words)


def aspect_far(similarity: float | None, policy: AnswerPolicy) -> float:
    """How far an asked aspect's best similarity to the answering abstract's sentences falls below
    policy.aspect_far_floor, in units of policy.aspect_far_unit; 0.0 at or above it, or when there is none."""
    if similarity is None:
        return 0.0
    return max(0.0, policy.aspect_far_floor - similarity) / policy.aspect_far_unit


def topic_far(similarity: float | None, policy: AnswerPolicy) -> float:
    """How far the question's topic phrase's best similarity to a sentence of the best-ranked papers falls below
    policy.topic_far_floor, in units of policy.topic_far_unit; 0.0 at or above it, or when there is none."""
    if similarity is None:
        return 0.0
    return max(0.0, policy.topic_far_floor - similarity) / policy.topic_far_unit


def contributions(signals: AbstentionSignals, policy: AnswerPolicy) -> dict[str, float]:
    """Each signal's log-odds contribution (for the reason and for inspection)."""
    return {name: getattr(policy, WEIGHTS[name]) * value for name, value in features(signals, policy).items()}


def abstention_score(signals: AbstentionSignals, policy: AnswerPolicy) -> float:
    if not signals.has_evidence:
        return 1.0
    return _logistic(policy.abstain_bias + sum(contributions(signals, policy).values()))


def _quoted(terms: tuple[str, ...]) -> str:
    return ", ".join(f"“{t}”" for t in terms)


def reason_for(signals: AbstentionSignals, policy: AnswerPolicy) -> str:
    parts = contributions(signals, policy)
    if not signals.has_evidence:
        return "No abstract matches the question (a question not in English is matched by the names and numbers in it)."
    top = max(parts, key=lambda k: parts[k])
    if top in ("unknown", "unknown_list") and signals.unknown_names:
        return f"No abstract mentions {_quoted(signals.unknown_names)}."
    if top == "missing" and signals.missing_names:
        return f"The abstracts that answer do not mention {_quoted(signals.missing_names)}."
    if top in ("number", "value") or (top == "slot" and signals.shape == "number"):
        return "No abstract states the number asked for."
    if top == "type" and signals.type_asked in _TYPE_NOT_STATED:
        return _TYPE_NOT_STATED[signals.type_asked]
    if top in ("slot", "slot_near", "type", "measure"):
        return "The most relevant abstract does not state what the question asks for."
    if top in ("focus", "focus_list", "aspect", "aspect_far"):
        return "The most relevant abstract does not mention what the question asks about."
    if top == "names_missing":
        return "The most relevant abstract does not name what the question asks for."
    if top in ("phrase", "phrase_list"):
        return "The abstracts that match do not state what the question asks about."
    if top in (
        "topic",
        "topic_unknown",
        "topic_unknown_list",
        "similarity_list",
        "topic_rare_list",
        "topic_rare_terse",
        "described",
        "topic_far",
    ):
        return "No abstract is about the question's topic."
    return "No abstract is close enough to the question."


# What a refusal says when the abstract states no answer of the kind asked (an abstract lists no authors; few state
# their own limitations)
_TYPE_NOT_STATED = {
    "author": "Abstracts do not list their authors or affiliations, and the most relevant one does not say who wrote it.",
    "limitation": "The most relevant abstract states no limitation of its own work.",
    "hardware": "The most relevant abstract does not state the hardware used.",
    "time": "The most relevant abstract does not state how long it takes.",
    "extent": "The most relevant abstract does not state how long it is or takes.",
    "license": "The most relevant abstract does not state a licence.",
    "availability": "The most relevant abstract does not say whether its code, data or models are released.",
}


def decide(signals: AbstentionSignals, policy: AnswerPolicy | None = None) -> Decision:
    policy = policy or AnswerPolicy()
    score = abstention_score(signals, policy)
    abstain = score >= policy.abstain_threshold
    return Decision(abstain, score, reason_for(signals, policy) if abstain else "")


_WORD = re.compile(r"[A-Za-z][A-Za-z-]*")


def looks_mistyped(
    word: str, vocabulary: Collection[str], *, common_zipf: float = 2.0, short_edits: int = 1, long_edits: int = 2,
    long_chars: int = 8,
) -> bool:
    """Whether ``word`` (lower case) reads as a typo of a known word: it is not in ``vocabulary``, not a common
    English word (wordfreq Zipf frequency below ``common_zipf``: "federated" and "lidar" are words, "electricaty"
    is not), and it is ``short_edits`` (``long_edits`` from ``long_chars`` letters on) edits, adjacent swaps
    included, from a word of the vocabulary (rapidfuzz's optimal string alignment distance)."""
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    from rag.lexicon import words_of_lengths
    from rag.word_frequency import zipf_frequency

    if len(word) < 4 or word in vocabulary or zipf_frequency(word) >= common_zipf:
        return False
    edits = long_edits if len(word) >= long_chars else short_edits
    candidates = words_of_lengths(vocabulary, len(word) - edits, len(word) + edits)
    return process.extractOne(word, candidates, scorer=OSA.distance, score_cutoff=edits) is not None


def mistyped_stems(
    question: str, known_stems: Collection[str], vocabulary: Collection[str], **limits: float
) -> set[str]:
    """The content-word stems of the question's words that no abstract uses and that look mistyped
    (``looks_mistyped``). Words with capitals after the first letter ("RMSE", "FooNet") are names, never typos."""
    from rag.text import content_words

    found: set[str] = set()
    for match in _WORD.finditer(question):
        whole = match.group(0)
        if whole[1:] != whole[1:].lower():
            continue
        for raw in dict.fromkeys([whole, *whole.split("-")]):  # "statte-of-the-art": its parts too
            stems = [w for w in content_words(raw) if w not in known_stems]
            if stems and looks_mistyped(raw.lower(), vocabulary, **limits):  # type: ignore[arg-type]
                found.update(stems)
    return found


_NAME_TOKEN = re.compile(r"(?<![\w-])([A-Za-z0-9]\w*(?:[-.&]\w+)*)")  # "Who&When" is one name


_COUNT_WORDS = {w: n for w, n in NUMBER_WORDS.items() if n <= 12 and w != "dozen"}  # "two" .. "twelve"
_COUNTED = re.compile(r"\b(?:which|what)\s+(?:are\s+the\s+|were\s+the\s+)?(\d+|" + "|".join(_COUNT_WORDS) + r")\b", re.I)


def names_counted(question: str) -> int:
    """How many names the question asks for when it says so ("which five backbones …", "what are the six
    datasets …"): 0 when it gives no count."""
    match = _COUNTED.search(question)
    if match is None:
        return 0
    token = match.group(1).lower()
    return int(token) if token.isdigit() else _COUNT_WORDS[token]


def names_new(
    sentences: Iterable[str], asked: Collection[str], at_least: int = 1, accept: Callable[[str], bool] | None = None
) -> bool:
    """Whether any sentence names something (CamelCase, ALLCAPS, letters with digits) that is not among ``asked``
    (the question's own names, lower case) nor a part of one: what a "which datasets / models …" answer has to
    quote. A token opening with a digit ("4-model", "3D") is a quantity, not a name. ``at_least``: how many
    different names there must be (a question asking for "the six datasets" is not answered by one name).
    ``accept``: which names are of the kind asked for (rag.question.looks_like_model_name for "which LLM …")."""
    from rag.lexicon import is_name_like

    parts = {part for name in asked for part in re.split(r"[-.]", name) if part}  # "MMDG" of "mmdg-bench"
    found = {
        token.lower()
        for sentence in sentences
        for token in (m.group(1) for m in _NAME_TOKEN.finditer(sentence))
        if is_name_like(token) and not token[0].isdigit() and token.lower() not in asked and token.lower() not in parts
        and (accept is None or accept(token))
    }
    return len(found) >= at_least


_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-'\u2019.,][A-Za-z0-9]+)*%?")
_NUMERIC = re.compile(r"^[-+]?\d[\d,]*(?:\.\d+)?(?:%|[KMB])?$|^\d+(?:\.\d+)?[x×]$")


def number_near(
    sentence: str, stems: Collection[str], *, stated: Collection[str] = (), window: int = 5, count_words: bool = False
) -> bool:
    """Whether the sentence states a number within ``window`` words of one of ``stems`` (content-word stems of what
    is counted or measured): "1,920 CRISPR screens" for "screen", "an accuracy of 81.2%" for "accuraci", "seven
    models" (``count_words``: for a question asking how many) and "a 310-prompt benchmark" for "model" and "prompt".
    A number the question itself states (``stated``, normalised) does not count."""
    from rag.text import content_words, normalize_number

    tokens = _TOKEN.findall(spelled_out(sentence))
    numbers = [
        i
        for i, t in enumerate(tokens)
        if _is_value_token(t, stated, normalize_number, count_words) and not _version_of(tokens, i)
    ]
    if not numbers or not stems:
        return False
    near = [i for i, t in enumerate(tokens) if any(s in stems for s in content_words(t))]
    return any(abs(i - j) <= window for i in numbers for j in near)


def largest_idf(n_docs: int) -> float:
    """The idf (Lucene's, as BM25's) of a word no abstract of ``n_docs`` uses: the most a word can weigh."""
    return math.log1p((n_docs + 0.5) / 0.5)


def idf_weights(
    words: Iterable[str], doc_freq: Mapping[str, int], n_docs: int, absent: Mapping[str, float] | None = None
) -> dict[str, float]:
    """Each word's weight: its idf over the abstracts (Lucene's, as BM25's) when some abstract uses it; a word no
    abstract uses weighs the largest idf times ``absent[word]`` (0..1; 1 when not given)."""
    top = largest_idf(n_docs)
    absent = absent or {}
    return {
        w: math.log1p((n_docs - doc_freq[w] + 0.5) / (doc_freq[w] + 0.5)) if doc_freq.get(w) else top * absent.get(w, 1.0)
        for w in dict.fromkeys(words)
    }


def matched_mass(weights: Mapping[str, float], present: Collection[str], unit: float) -> float:
    """The summed weight (idf) of the words (``weights``) in ``present``, in units of ``unit`` (the largest idf, of a word
    no abstract uses: a word one abstract of 73 uses counts about 0.8, a word half of them use about 0.15)."""
    return sum(v for w, v in weights.items() if w in present) / unit if unit > 0 else 0.0


def mean_similarity(pairs: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Each paper's mean similarity to the question over its sentences, from (paper id, sentence similarity) pairs:
    how the abstract as a whole resembles the question, not one sentence of it."""
    sums: dict[str, list[float]] = {}
    for paper, similarity in pairs:
        sums.setdefault(paper, []).append(similarity)
    return {paper: sum(values) / len(values) for paper, values in sums.items()}


def peak_above_median(values: Iterable[float]) -> float:
    """How far the largest value stands above the median of all of them (0.0 for fewer than two): a shortlisted
    paper clearly closer to the question than the papers retrieved with it, rather than one of a level field."""
    values = list(values)
    return max(values) - statistics.median(values) if len(values) >= 2 else 0.0


def weighted_missing(weights: Mapping[str, float], present: Collection[str]) -> float:
    """The weighted share of the words (``weights``) not in ``present``; 0.0 when nothing weighs."""
    total = sum(weights.values())
    return sum(v for w, v in weights.items() if w not in present) / total if total > 0 else 0.0


def rarity_share(words: Iterable[str], total: int, rarity: Callable[[str], float]) -> float:
    """The share of a question's ``total`` topic words that ``words`` (those no abstract uses) make up, each counting
    by its English rarity (``rarity``: word -> 0..1): an everyday word no abstract happens to use ("honest",
    "cheap") counts little, a term of a field the corpus lacks ("federated") or an invented word much; 0.0 when
    ``total`` is 0."""
    return sum(rarity(w) for w in words) / total if total > 0 else 0.0


def least_missing(
    weights: Mapping[str, float], held: Iterable[Collection[str]], parts: Sequence[Sequence[str]] = ()
) -> float:
    """The weighted share of the words (``weights``) missing from the paper that holds most of them (``held``: the
    words each paper holds); 1.0 when there is no paper. A request for papers names a topic that one paper of the
    list must treat, and the paper most on it is not always the one whose line leads the list. ``parts``: the
    topic's words grouped by its coordinated parts ("X, Y or Z", rag.question.coordinated_parts): a paper treating
    one of the alternatives treats the topic, so each paper's share is also read by its best part (part_missing)."""
    return min((part_missing(weights, words, parts) for words in held), default=1.0)


def part_missing(weights: Mapping[str, float], present: Collection[str], parts: Sequence[Sequence[str]]) -> float:
    """weighted_missing, or, when the topic has several coordinated ``parts`` and that is less, one minus the weight
    ``present`` holds of its best part over the weight of the heaviest part: a paper holding all of one part's words
    misses nothing of a topic of alternatives, while a part of common words alone ("data") weighs little against
    the part holding the topic's rare words, so holding it is not holding the topic."""
    missing = weighted_missing(weights, present)
    masses = [sum(weights.get(w, 0.0) for w in dict.fromkeys(part)) for part in parts]
    heaviest = max(masses, default=0.0)
    if len(parts) < 2 or heaviest <= 0:
        return missing
    best = max(sum(weights.get(w, 0.0) for w in dict.fromkeys(part) if w in present) for part in parts)
    return min(missing, 1.0 - best / heaviest)


def english_rarity(word: str, scale: float) -> float:
    """How rare a word is in English, 0 (as common as "the") .. 1 (unknown to wordfreq): 1 - Zipf / ``scale``."""
    from rag.word_frequency import zipf_frequency

    return min(1.0, max(0.0, 1.0 - zipf_frequency(word) / scale))


def without_compounds(words: Sequence[str]) -> list[str]:
    """The content-word stems without the hyphenated ones whose parts are all among them ("privacy-rel" next to
    "privaci" and "relat"): a compound counted besides its parts weighs twice, and as a stem no abstract uses."""
    from rag.text import stem

    plain = [w for w in words if "-" not in w]

    def covered(part: str) -> bool:  # the compound's stem cuts its last part short: "rel" of "related" ~ "relat"
        part = stem(part)
        return len(part) < 2 or any(w.startswith(part) or part.startswith(w) for w in plain)

    return [w for w in dict.fromkeys(words) if "-" not in w or not all(covered(p) for p in w.split("-"))]


def slot_missing(
    sentences: Iterable[str],
    weights: Mapping[str, float],
    holds_answer: Callable[[str], bool],
    present: Callable[[str], Collection[str]] | None = None,
) -> float:
    """1 - the best weighted share of the detail words (``weights``) that one sentence holding an answer
    (``holds_answer(sentence)``: a number, a name) also holds; 1.0 when no sentence holds an answer, 0.0 when
    nothing weighs. The answer to "what accuracy on B" is a number said of B, not any number of the abstract.
    ``present(sentence)``: the keys of ``weights`` the sentence holds (its content-word stems when not given; a
    caller adds other anchors, such as a name or a number the question states)."""
    from rag.text import content_words

    if sum(weights.values()) <= 0:
        return 0.0
    present = present or (lambda s: set(content_words(s)))
    missing = (weighted_missing(weights, set(present(s))) for s in sentences if holds_answer(s))
    return min(missing, default=1.0)


_WORD = re.compile(r"\S+")


def answer_windows(sentence: str, is_answer: Callable[[str], bool], window: int) -> list[str]:
    """The stretches of the sentence within ``window`` words of each word holding an answer (``is_answer(word)``: a
    name the question does not give, a value it does not state): what the sentence says of that answer. In "On real
    graphs, FooNet reaches a 10x speedup over BarLib", "BarLib" is said of a speedup, not of the graphs."""
    words = _WORD.findall(sentence)
    return [" ".join(words[max(0, i - window) : i + window + 1]) for i, w in enumerate(words) if is_answer(w)]


# a count written as a word: "two" .. "twelve" (_COUNT_WORDS) or a round amount ("dozens", "a million")
_COUNT_WORD = re.compile(r"\b(?:" + "|".join(_COUNT_WORDS) + r"|dozens?|hundreds?|thousands?|millions?|billions?)\b", re.I)


_COUNT_TOKEN = re.compile(r"^\d[\d,]*-[a-z]{3,}$")  # "310-prompt": a count joined to what it counts


# a value written in words: "less than one percent", "three times faster", "a two-fold gain"
_SPELLED_VALUE = re.compile(
    r"\b(one|" + "|".join(_COUNT_WORDS) + r")(?:\s+|-)(percent|per\s+cent|percentage\s+points?|times|fold)\b", re.I
)


def spelled_out(sentence: str) -> str:
    """``sentence`` with a value written in words put in digits ("one percent" -> "1 %", "two-fold" -> "2x"), so
    that it reads as the value it states."""

    def digits(match: re.Match[str]) -> str:
        number = _COUNT_WORDS.get(match.group(1).lower(), 1)
        unit = match.group(2).lower()
        return f"{number}%" if unit.startswith("per") else f"{number}x"

    return _SPELLED_VALUE.sub(digits, sentence)


def _is_value_token(token: str, stated: Collection[str], normalize_number, count_words: bool = False) -> bool:
    """A token stating a value: a number ("0.855", "45.9%", "3x"), a count joined to its noun ("310-prompt") or,
    with ``count_words``, a number word ("seven"), unless the question states that number."""
    if _COUNT_WORD.fullmatch(token):
        return count_words
    if _COUNT_TOKEN.match(token):
        return normalize_number(token.split("-")[0]) not in stated
    return bool(_NUMERIC.match(token)) and normalize_number(token.rstrip("x×")) not in stated


def stated_values(text: str) -> set[str]:
    """The numbers the text states as words of their own ("0.855", "45.9%", "6,289", "12"), normalised; not the
    digits of a name, a formula or a compound ("3D", "1B-scale", "GPT-4", "SE(3)")."""
    from rag.text import normalize_number

    text = re.sub(r"(?<=\w)\([\d.,]+\)", "", text)  # "SE(3)", "O(n)": part of a name or formula
    return {normalize_number(t.rstrip("x×")) for t in _TOKEN.findall(text) if _NUMERIC.match(t)}


def values_in(sentence: str, stated: Collection[str] = (), count_words: bool = False) -> bool:
    """Whether the sentence states a value: a number standing as a word of its own ("0.855", "45.9%", "1,920",
    "3x", "310-prompt", "one percent"), not inside a name ("Qwen2.5-7B", "GPT-4"), nor one the question states (``stated``,
    normalised); or, with ``count_words`` (a question asking how many), a number written as a word ("six")."""
    from rag.text import normalize_number

    tokens = _TOKEN.findall(spelled_out(sentence))
    return any(
        _is_value_token(t, stated, normalize_number, count_words) and not _version_of(tokens, i)
        for i, t in enumerate(tokens)
    )


_VERSION = re.compile(r"^[1-9](?:\.\d)?$")  # "3", "2.0", "3.5": how a version is numbered


def _version_of(tokens: Sequence[str], i: int) -> bool:
    """Whether token ``i`` is the version or label of the capitalised word just before it ("TB 2.0", "Llama 3",
    "Table 2"): a small number written after a name is part of it, not a value the sentence states. A word opening
    the sentence is capitalised whatever it is ("In 3 settings"), so it counts only with capitals after its first
    letter."""
    if i == 0 or not _VERSION.match(tokens[i]):
        return False
    before = tokens[i - 1]
    capitals = any(c.isupper() for c in before[1:])
    return before[:1].isupper() and before.isalpha() and (capitals or i > 1)


_MODIFIER = re.compile(r"^(?P<core>.*[A-Z0-9].*?)-(?P<word>[a-z]{3,})$")  # "LLM-based", "GPT-4-style"
_INITIAL_WORD = re.compile(r"[A-Za-z]+")  # a word whose initial may stand in an acronym


def name_core(mention: str, common_zipf: float = 3.0) -> str:
    """The name inside a mention that joins it to an English modifier with a hyphen: "LLM-based" -> "LLM",
    "ViT-style" -> "ViT" (an abstract writes "large language model (LLM)-based" or "ViT backbones"); the mention
    itself otherwise ("GPT-4o", "Co-Locator": a hyphenated name, not a name and a word)."""
    from rag.word_frequency import zipf_frequency

    match = _MODIFIER.match(mention)
    if match is None or zipf_frequency(match.group("word")) < common_zipf:
        return mention
    return match.group("core")


def acronym_letters(name: str) -> str:
    """The letters of an acronym ("MoE" -> "moe", "LLMs" -> "llm"); "" for a name that is not one (two to six
    letters, at least two capitals, nothing else)."""
    letters = name[:-1] if name.endswith("s") and name[:-1].isupper() else name
    if not letters.isalpha() or sum(c.isupper() for c in letters) < 2 or not 2 <= len(letters) <= 6:
        return ""
    return letters.lower()


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[-\u2010-\u2014]", " ", text.lower()).split())


def expansion_of(acronym: str, texts: Iterable[str]) -> str | None:
    """The words an acronym stands for, as a text defines it: "Mixture-of-Experts (MoE)" -> "mixture of experts"
    (the words just before the parenthesis whose initials are its letters); None when no text defines it."""
    letters = acronym_letters(acronym)
    if not letters:
        return None
    words = r"((?:[A-Za-z]+[\s-]+){" + str(len(letters)) + "})"
    pattern = re.compile(words + r"\(" + re.escape(acronym.rstrip("s")) + r"s?\)")
    for text in texts:
        for match in pattern.finditer(text):
            words = _INITIAL_WORD.findall(match.group(1))
            if [w[0].lower() for w in words] == list(letters):
                return _plain(" ".join(words))
    return None


_ACRONYM = re.compile(r"(?<![\w-])[A-Za-z]*[A-Z][A-Za-z]*[A-Z][a-z]?s?(?![\w-])")  # "LMs", "MoE", "CoT"


def with_long_forms(sentence: str, abstract: str) -> str:
    """The sentence with the long form of each acronym it uses that its abstract spells out written beside it:
    "outputs from five 1B-scale LMs" reads "… five 1B-scale LMs (language models)" where the abstract defines
    "language models (LMs)", so a question asking how many language models finds its count."""
    forms = {token: expansion_of(token, [abstract]) for token in dict.fromkeys(_ACRONYM.findall(sentence))}
    forms = {token: form for token, form in forms.items() if form}
    if not forms:
        return sentence
    # in place, beside the acronym, so that what stands near it (a count) stands near its words too
    return _ACRONYM.sub(lambda m: f"{m.group(0)} ({forms[m.group(0)]})" if m.group(0) in forms else m.group(0), sentence)


def mentioned_in(mention: str, text: str, defining: Iterable[str] = ()) -> bool:
    """Whether ``text`` (an abstract) writes the name the question mentions, however it writes it: as typed (any
    case, a plural "s" aside), its name without a hyphen-joined English modifier ("LLM" of "LLM-based"), or, for
    an acronym, spelt out as one of the ``defining`` texts (the abstracts using the name) defines it ("mixture of
    experts" for "MoE"). A linked name an abstract writes so is not missing from it."""
    from rag.question import term_occurs

    lowered = text.lower()
    core = name_core(mention)
    if any(term_occurs(term.lower(), lowered) for term in dict.fromkeys([mention, core])):
        return True
    defining = list(defining)
    for term in dict.fromkeys([mention, core]):
        long_form = expansion_of(term, defining)
        if long_form and re.search(r"(?<![a-z])" + re.escape(long_form.rstrip("s")), _plain(text)):
            return True
    return spelt_out_in(mention, text)


def spelt_out_in(acronym: str, text: str) -> bool:
    """Whether ``text`` writes the words an acronym's letters begin, one after another ("pull requests" for "PRs",
    "Monte Carlo tree search" for "MCTS"), each of three letters or more; an acronym of two letters only in its
    plural against words whose last is plural ("PRs": "pull requests"), as chance pairs of words are many."""
    letters = acronym_letters(acronym)
    plural = acronym.endswith("s") and acronym[:-1].isupper()
    if not letters or not acronym[:-1 if plural else None].isupper() or (len(letters) < 3 and not plural):
        return False
    words = initials_run(letters, r"[a-z]{2,}", r"\s+") + ("s" if len(letters) < 3 else "s?")
    return re.search(r"(?<![a-z])" + words + r"(?![a-z])", _plain(text)) is not None
