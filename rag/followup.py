"""Follow-up questions -> standalone queries, without a model (history-aware heuristics). Pure functions.

History entries are ``{"role": "user"|"assistant", "content": str}``; an assistant entry may also carry
``"sources": [{"number": n, "id": ..., "label": ...}, ...]`` (what the UI and CLI keep from the last answer).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rag.question import asks_for_one_paper, profile, specific_terms
from rag.text import content_words

_ORDINALS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5, "5th": 5,
    "former": 1, "latter": 2,
}  # fmt: skip
_LAST_WORDS = frozenset({"last", "latter"})  # the last of the works listed, however many there were
# "the second one", "the third paper"; "what about the second?" (the noun left out at the end of a clause), "the
# latter's results", "was the first evaluated on X?" (the noun left out before a verb)
_ORDINAL_WORDS = "|".join([*_ORDINALS, "last"])
_ORDINAL_VERB = (
    r"is|was|are|were|does|did|do|has|had|have|can|could|would|will|uses?|used|reports?|reported|shows?|showed|"
    r"finds?|found|proposes?|proposed|introduces?|introduced|achieves?|achieved|gets?|got|evaluates?|evaluated|"
    r"tests?|tested|needs?|requires?|required|improves?|improved|claims?|claimed|performs?|performed|handles?|"
    r"handled|studies|studied|focus(?:es)?|focused|targets?|targeted|addresses|addressed|trains?|trained"
)
_ORDINAL_REF = re.compile(
    rf"\b(?:the\s+)?(?P<named>{_ORDINAL_WORDS})\s+(?:one|paper|abstract|work|source|result|method)\b|"
    rf"\bthe\s+(?P<bare>{_ORDINAL_WORDS})(?=\s*(?:[?.!,;]|$)|['’]s\b|\s+(?:{_ORDINAL_VERB})\b)",
    re.I,
)


# "the other one", "what about the other paper?": of two works discussed, the one the conversation is not on now
_OTHER_REF = re.compile(
    r"\bthe\s+other(?:\s+(?:one|paper|abstract|work|method|benchmark|model|approach|study|dataset))?\b"
    r"(?!\s+(?:papers|works|ones|methods|approaches|studies|benchmarks|models|abstracts)\b)",
    re.I,
)


def _ordinal_word(match: re.Match[str]) -> str:
    return (match.group("named") or match.group("bare")).lower()


_NUMBER_REF = re.compile(r"(?:\b(?:paper|source|abstract|reference)\s*#?\s*|\[)(\d{1,2})\]?", re.I)
# References to a whole paper. "the dataset" / "the model" are what a follow-up asks about, not references.
_PRONOUN_REF = re.compile(
    r"\b(?:this|that)\s+(?:one|paper|abstract|work|method|benchmark|model|approach|study|dataset)\b"
    # not "the paper on aptamers", "the study that X": a paper described, which may be a new subject
    r"|\bthe\s+(?:paper|abstract|work|study)\b(?!\s+(?:on|about|with|that|which|where|using|introducing|proposing)\b)"
    r"|\b(?:it|its|they|their|them)\b",
    re.I,
)


# The earlier paper set against a work the follow-up names: "how is it different from FooNet?", "compare it with
# FooNet", "is this one better than FooNet?", "FooNet vs it". The pronoun is one side of a comparison, so it reads
# as the earlier paper even though the question names another work.
_AGAINST = r"(?:differ\w*|compar\w*|contrast\w*|versus|vs\.?|better|worse|faster|slower|relat\w*|similar)"
_PRONOUN_COMPARED = re.compile(
    rf"\b(?:it|this(?:\s+one)?|that(?:\s+one)?|they|them)\b(?:\s+\w+){{0,3}}?\s+{_AGAINST}\b"
    rf"|\b{_AGAINST}\s+(?:to\s+|with\s+|from\s+|than\s+|and\s+)?(?:it|this(?:\s+one)?|that(?:\s+one)?|them)\b"
    r"(?!\s+(?:is|are|was|were|does|do|did|has|have|can|could|would|will)\b)",
    re.I,
)


FOLLOW_UP_TO = "follow-up to:"  # how a rewritten follow-up carries the earlier question along


def is_opening_words(label: str) -> bool:
    """A source label made of its abstract's opening words ("Films introduce characters as…"), not a name."""
    return label.rstrip().endswith(("…", "..."))


def with_names(history: Sequence[dict], names: dict[str, str]) -> list[dict]:
    """``history`` whose last answer's sources are labelled by the name of their work (``names``: abstract id ->
    name) where their label is the abstract's opening words: "how does it work?" then reads "how does FooNet
    work?"."""
    out = [dict(entry) for entry in history]
    for entry in reversed(out):
        if entry.get("role") == "assistant" and entry.get("sources"):
            entry["sources"] = [
                {**s, "label": names[str(s.get("id"))]}
                if str(s.get("id")) in names and is_opening_words(str(s.get("label", "")))
                else s
                for s in entry["sources"]
            ]
            break
    return out


def answers_sources(history: Sequence[dict]) -> list[list[dict]]:
    """The sources of each earlier answer that cited any, the last answer first."""
    return [list(e["sources"]) for e in reversed(history) if e.get("role") == "assistant" and e.get("sources")]


def last_sources(history: Sequence[dict], question: str = "") -> list[dict]:
    """The sources of the last answer; with ``question``, an ordinal in it ("what about the second one?" after an
    answer about one paper) points into the last answer that has that many."""
    wanted = max((_ORDINALS.get(_ordinal_word(m), 1) for m in _ORDINAL_REF.finditer(question)), default=1)
    answers = answers_sources(history)
    return next((sources for sources in answers if len(sources) >= wanted), answers[0] if answers else [])


def points_by_position(question: str) -> bool:
    """Whether the question picks a source by its place in an answer ("the second one", "paper [2]", "the other
    one")."""
    return bool(_ORDINAL_REF.search(question) or _NUMBER_REF.search(question) or _OTHER_REF.search(question))


def other_source(history: Sequence[dict]) -> dict | None:
    """The source "the other one" means: the second of the last answer's works when it had several (a comparison:
    its first is the one spoken of first), else the latest work of an earlier answer that is not the last answer's
    ("What is FooNet?", "What is BarNet?", "what about the other one?" -> FooNet; "Compare FooNet and BarNet",
    "tell me more about the second one", "and the other one?" -> FooNet). None when there is no other."""
    answers = answers_sources(history)
    if not answers:
        return None
    if len(answers[0]) > 1:
        return answers[0][1]
    current = str(answers[0][0].get("id"))
    return next((s for sources in answers[1:] for s in sources if str(s.get("id")) != current), None)


def last_user_question(history: Sequence[dict]) -> str | None:
    for entry in reversed(history):
        if entry.get("role") == "user" and str(entry.get("content", "")).strip():
            return str(entry["content"])
    return None


def names_a_work(question: str, history: Sequence[dict], is_work: Callable[[str], bool] | None = None) -> bool:
    """Whether a term the question names (rag.question.specific_terms) is a work: a source of an earlier answer
    ("what does their method improve on FooBench?" after an answer citing FooBench), or one ``is_work`` knows (the
    corpus's works). A term that is no work ("what QA datasets is it tested on?", "does it use ImageNet?") is what
    the question asks of the paper its pronoun means."""
    terms = [t.lower() for t in specific_terms(question)]
    if not terms:
        return False
    labels = {str(s.get("label", "")).lower() for e in history for s in e.get("sources") or ()}
    return any(t in labels or (is_work is not None and is_work(t)) for t in terms)


# How a follow-up asks the previous question again of another work: "and for FooNet?", "what about FooNet?", "same
# question for FooNet", "ok, and FooNet?"
_AGAIN_LEAD = re.compile(
    r"^\W*(?:(?:and|so|ok(?:ay)?|now|then|thanks)[\s,!.]+)*(?:(?:what|how)\s+about(?:\s+for)?|(?:the\s+)?same\s+"
    r"(?:question\s+|thing\s+)?(?:for|about|with)|for)?\s*",
    re.I,
)


def asked_again(question: str, history: Sequence[dict], is_work: Callable[[str], bool] | None) -> str | None:
    """The previous question asked of the work a follow-up names and nothing else ("How many screens does FooNet
    use?", then "and for BarNet?" -> "How many screens does BarNet use?"): the previous answer's one paper's name in
    that question replaced by the work's. None when the follow-up asks anything else, names no work of the corpus
    (``is_work``), or the previous question did not name the paper it was answered from."""
    lead = _AGAIN_LEAD.match(question)
    if is_work is None or lead is None or not lead.group(0).strip(" \t"):
        return None
    named = re.sub(r"^the\s+|['’]s$", "", question[lead.end() :].strip(" ?.!"), flags=re.I).strip()
    previous = last_user_question(history)
    sources = last_sources(history)
    if not named or not previous or len(sources) != 1 or not is_work(named.lower()):
        return None
    label = str(sources[0].get("label", ""))
    if not label or label.lower() == named.lower() or is_opening_words(label):
        return None
    found = re.search(re.escape(label), previous, re.I)
    return previous[: found.start()] + named + previous[found.end() :] if found else None


# "what about the FooNet benchmark, how big is it?", "ok, and zebra calls? what did they find": a subject raised
# first, which a pronoun after it points back to
_SUBJECT_LEAD = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|and|now|also|then)\W+)*(?:what|how)\s+about\s+(?P<subject>[^,;:?!.–—]+?)\s*"
    r"(?:[,;:?!–—]|\s-\s)\s*\w",
    re.I,
)


def condense_heuristic(
    question: str,
    history: Sequence[dict],
    subject: str | None = None,
    is_work: Callable[[str], bool] | None = None,
    new_subject: Callable[[str], bool] | None = None,
) -> str:
    """Rewrite references to earlier answers ("the second one", "it", "paper [2]") with the sources' labels; "it"
    and "they" read as the source with id ``subject`` when given (see pronoun_source), else as the first one, unless
    the question names a work (names_a_work, with ``is_work``). A short follow-up pointing at nothing ("and the
    dataset?") carries the previous paper and question along, unless ``new_subject`` says it starts a subject of
    its own ("how do FooNets work?" after an answer about BarNet); a follow-up referring to a paper when no earlier
    answer cited one ("what did this work find on FooBench?" after a refusal) carries the previous question along
    whatever its length."""
    if not history:
        return question
    if (again := asked_again(question, history, is_work)) is not None:  # "and for FooNet?": the same question of it
        return again
    sources = last_sources(history, question)
    by_number = {int(s["number"]): s for s in sources if "number" in s}
    if subject is not None:  # the source the pronoun means takes the place of the first one
        numbered = {str(s.get("id")): n for n, s in by_number.items()}
        if subject in numbered and by_number:
            by_number = {**by_number, min(by_number): by_number[numbered[subject]]}
    rewritten = question

    def label_for(number: int) -> str | None:
        source = by_number.get(number)
        return source.get("label") if source else None

    def ordinal(match: re.Match[str]) -> str:
        word = _ordinal_word(match)
        number = max(by_number) if word in _LAST_WORDS and by_number else _ORDINALS.get(word, 0)
        label = label_for(number)
        return label if label else match.group(0)

    if any(_named_beside(question, m, history, is_work) for m in _ORDINAL_REF.finditer(question)):
        return question  # "AlphaQ, the first one - what does it need?": the work it names, wherever the answer put it
    other = other_source(history) if _OTHER_REF.search(question) else None
    if other is not None and other.get("label"):  # "what about the other one?"
        label = str(other["label"])
        return f"{question} ({label})" if is_opening_words(label) else _OTHER_REF.sub(label, question, count=1)
    rewritten = _ORDINAL_REF.sub(ordinal, rewritten)
    rewritten = _NUMBER_REF.sub(lambda m: label_for(int(m.group(1))) or m.group(0), rewritten)
    if rewritten != question:
        return rewritten
    first = label_for(min(by_number)) if by_number else None
    lead = _SUBJECT_LEAD.match(question)
    if lead and new_subject is not None and new_subject(lead.group("subject")):
        # "what about the aptamer benchmark, how big is it?": "it" is the subject the question has just raised
        return question
    # a work it names makes the question about that work ("what does their method improve on FooBench?"), unless
    # the pronoun is the other side of a comparison with it; a term that is no work is asked of the earlier paper
    referring = bool(_PRONOUN_REF.search(question)) and (
        not names_a_work(question, history, is_work) or bool(_PRONOUN_COMPARED.search(question))
    )
    if first and referring:  # a label of opening words does not read as a name in the question: it goes along
        return f"{question} ({first})" if is_opening_words(first) else _PRONOUN_REF.sub(first, question, count=1)
    previous = last_user_question(history)
    # "what are the main results of this work?" when no earlier answer cited a paper (the last was refused): its
    # reference can only mean what the previous question asked about, however long the follow-up
    unresolved = not first and referring
    # "tell me more, does the fix hurt video QA?": more of the last answer's work, whatever words its own ask uses,
    # unless it names another work
    more_of_it = more_then_ask(question) and not names_a_work(question, history, is_work)
    short = more_of_it or (
        (len(question.split()) <= 6 or refers_back(question))
        and not specific_terms(question)
        and not (new_subject is not None and new_subject(question))
    )
    if previous and (short or unresolved) and not asks_for_papers(question):
        # "and the dataset?" -> carry the previous answer's paper and question along
        subject = f"{first}; " if first else ""
        return f"{question} ({subject}{FOLLOW_UP_TO} {previous})"
    return question


# a name in apposition to a reference by place: "AlphaQ, the first one", "the second paper (FooNet)"
_BESIDE_BEFORE = re.compile(r"([^,;:?!.()–—]+?)\s*(?:,|\(|\s[-–—]|[–—])\s*$")
_BESIDE_AFTER = re.compile(r"^\s*(?:,|\(|[-–—]\s)\s*([^,;:?!.()–—]+)")


def _named_beside(
    question: str, reference: re.Match[str], history: Sequence[dict], is_work: Callable[[str], bool] | None
) -> bool:
    """Whether a reference by place ("the first one") stands in apposition to a work the question names ("AlphaQ,
    the first one"): the name says which work is meant, whatever place the person remembers it in."""
    before = _BESIDE_BEFORE.search(question[: reference.start()])
    after = _BESIDE_AFTER.match(question[reference.end() :])
    return any(m is not None and names_a_work(m.group(1), history, is_work) for m in (before, after))


# A definite description of a part of the work just discussed ("the dataset", "the fix", "the models", "the failure"):
# general nouns of a paper's parts, which a question standing alone would name or describe further
_DEFINITE_PART = re.compile(
    r"\bthe\s+(?:(?:main|proposed|new|same|whole|final|original)\s+)?(?:datasets?|data|models?|methods?|fix|"
    r"approach|framework|system|benchmark|measures?|metrics?|results?|findings?|failures?|experiments?|baselines?|"
    r"authors?|tasks?|evaluation|setup|algorithm|architecture|technique|trick|idea|rule|proposal)\b",
    re.I,
)


def refers_back(question: str) -> bool:
    """Whether a follow-up of any length points back at the last answer's work: it opens with "tell me more" and asks
    something of its own ("tell me more. does the fix hurt X?"), or it names a part of that work by a definite
    description ("how many images does the dataset have?"). Such a question without names or a subject of its own
    carries the earlier paper and question along as a short one does (condense_heuristic)."""
    return more_then_ask(question) or bool(_DEFINITE_PART.search(question))


def more_then_ask(question: str) -> bool:
    """"tell me more" and then a question of its own after a stop, comma or dash ("tell me more. did the fix hurt
    X?", "tell me more — does it beat Y?"); not "tell me more about the second one", which says what it wants more
    of."""
    match = _MORE_LEAD.match(question)
    return bool(match) and bool(re.match(r"\s*[.,;:!—–-]+\s*\w", question[match.end() :]))


def asks_for_papers(question: str) -> bool:
    """Whether a question asks the collection for papers ("Which papers study X?", "is there work on X?", "Which
    paper proposes X?"): a new search that stands alone, not a question about the papers just discussed."""
    asked = profile(question)
    return asked.kind == "list" or asked.asks_paper


# How a follow-up opens when it only points at something ("what about the second one?", "and the third?").
_POINTING_LEAD = re.compile(r"^\W*(?:and\s+)?(?:(?:what|how)\s+about|and)\b", re.I)
_REFERENCE_WORDS = frozenset(content_words(" ".join(_ORDINALS)))


def own_ask(question: str, history: Sequence[dict]) -> str | None:
    """What a follow-up asks of the paper(s) it refers to, for choosing their sentences (the rewritten question,
    which carries the earlier question along, is for finding the paper): "how does it work?", "and the results?",
    "what was the main finding?" ask for themselves; "what about the second one?", which asks nothing but points
    at a paper, asks the previous question again. None without an earlier question."""
    previous = last_user_question(history)
    if not previous:
        return None
    stripped = _NUMBER_REF.sub(" ", _ORDINAL_REF.sub(" ", _OTHER_REF.sub(" ", question)))
    stripped = _POINTING_LEAD.sub(" ", stripped)
    words = [w for w in content_words(stripped) if w not in _REFERENCE_WORDS]
    if words:
        return question
    asked = profile(stripped)
    # nothing asked but the reference: no words of its own, no shape of its own ("how does it work" has one), no
    # question word ("who is it for?", "who'd use it?", "why?" ask for themselves)
    if asked.shape == "fact" and asked.kind == "general" and not asked.explains_failure and not _WH_ASKED.search(stripped):
        return previous
    return question


_WH_ASKED = re.compile(r"\b(?:how|why|what|which|when|where|who|whom|whose)\b", re.I)
_DETERMINER = re.compile(r"^\s*(?:['’]s\b\s*)?(?:(?:the|its|their|this|that|these|those)\s+)?", re.I)
_FILLER = frozenset("ok okay cool great nice sure thanks thank more detail details please wow interesting hmm".split())
_NOT_A_NOUN = re.compile(r"\b(?:\w+ly|more|else|too|also|again|please|thanks|ok|okay|yes|no|really)\W*$", re.I)


def elliptic_ask(ask: str) -> str:
    """A follow-up that names only what it asks about ("and the datasets?", "2nd one baselines?", "what about its
    metric?", "splits?") asks what they are: "what are the datasets?", "what is the metric?", so that it is read as
    the question it stands for (which datasets a work is evaluated on, which baselines it names). Anything else, a
    question of its own ("how big is it?", "why?") or no words left, unchanged."""
    stripped = _NUMBER_REF.sub(" ", _ORDINAL_REF.sub(" ", _OTHER_REF.sub(" ", ask)))
    stripped = _DETERMINER.sub("", _POINTING_LEAD.sub(" ", stripped).strip()).strip(" ?.!")
    words = stripped.split()
    if not words or len(words) > 3 or not all(re.fullmatch(r"[A-Za-z][\w-]*", w) for w in words):
        return ask
    if _ASKING.search(stripped) or _NOT_A_NOUN.search(stripped) or specific_terms(f"x {stripped}"):
        return ask  # a question word, no noun, or a name ("ImageNet?" asks whether the work uses it)
    if not all(content_words(w) and w.lower() not in _FILLER for w in words):
        return ask  # a preposition ("and on the test set?") or a word that is no topic ("ok cool", "more details?")
    verb = "are" if words[-1].lower().endswith("s") and not words[-1].lower().endswith("ss") else "is"
    return f"what {verb} the {stripped}?"


# "the one that intervenes on heads", "that one with the largest dataset": a paper of the earlier answer, described
_DESCRIBED_REF = re.compile(
    # the description ends where the question goes on ("the one using X - how does it work?", "the one on X: …",
    # "the one on X, what …?"), not at a comma inside it ("the one on CT, MRI and PET scans")
    r"\b(?:the|that)\s+one\s+(?:that|which|who|with|about|on|where|using|from|in)\s+"
    r"(?P<what>(?:(?!\s+[-–—]\s|,\s*(?:how|what|which|who|whom|why|when|where|does|do|did|is|are|was|were|can|"
    r"could|has|have)\b)[^?.!;:–—])+)",
    re.I,
)


# "the gui one", "the CRISPR paper", "that theory one": a paper of the earlier answer named by a word or two of its
# topic before the noun; not "the second one", "the other one", "the same paper", "the best one" (said otherwise)
_NOT_DESCRIBING = frozenset(
    "first second third fourth fifth last latter former other same previous earlier above below next only whole "
    "entire original new old right wrong main actual cited mentioned listed quoted this that these those which each "
    "every any some top final following preceding given very real specific particular whole single one two three "
    "more less better worse better".split()
)
_PREMODIFIED_REF = re.compile(
    r"\b(?:the|that)\s+(?P<what>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)\s+(?:one|paper|work|study)\b"
    r"(?!\s+(?:that|which|who|with|about|on|where|using|from|in)\b)",
    re.I,
)


def described_reference(question: str) -> re.Match[str] | None:
    """Where a follow-up picks one of the earlier answer's papers by what it does ("tell me more about the one
    that prunes heads") or by a word or two of its topic before "one" or "paper" ("the gui one", "the CRISPR
    paper"); the match's ``what`` group is the description. None when it does not."""
    match = _DESCRIBED_REF.search(question)
    if match is not None:
        return match
    for match in _PREMODIFIED_REF.finditer(question):
        words = match.group("what").lower().split()
        if any(w in _NOT_DESCRIBING or w in _ORDINALS or _SUPERLATIVE.fullmatch(w) for w in words):
            continue
        if content_words(match.group("what")):
            return match
    return None


# a superlative describes a paper against the others it is among ("the one with the largest dataset", "the best one")
_SUPERLATIVE = re.compile(
    r"\b(?:most|least|best|worst|(?:larg|small|fast|slow|high|low|bigg|new|old|long|short|strong|weak|great|simpl|"
    r"cheap|late|earli|easi|hard|deep)est)\b",
    re.I,
)


def resolve_described(
    question: str,
    history: Sequence[dict],
    search: Callable[[str], Sequence[str | tuple[str, float]]],
    listed_share: float = 0.0,
    label_of: Callable[[str], str] | None = None,
) -> str:
    """``question`` with "the one that X" written as the label of the earlier answer's source that X describes
    best: the first of ``search(X)`` (abstract ids, best first) among the last answer's sources. A label of
    opening words goes along in brackets (it does not read as a name). Unchanged when the question describes no
    paper, or (with ids alone) no source is among what the description finds.

    When ``search`` gives (id, score) pairs, a source counts only if it scores at least ``listed_share`` of the
    best paper's score: a description that fits some other paper far better than any earlier source ("the one on
    unlearnable examples" after a list without that paper) names that paper, written by ``label_of`` (its label);
    without ``label_of``, "the one" is written "the paper", for the question to be searched on its own. A
    description by a superlative ("the one with the largest dataset") is always read among the earlier sources."""
    match = described_reference(question)
    sources = {str(s.get("id")): s for s in last_sources(history) if s.get("id") and s.get("label")}
    if match is None or not sources:
        return question
    ranked = [(hit, None) if isinstance(hit, str) else hit for hit in search(match.group("what"))]
    # "the one with the largest dataset" ranks the earlier papers against each other: a search cannot say which
    best = ranked[0][1] if ranked and not _SUPERLATIVE.search(match.group("what")) else None
    found = next((aid for aid, score in ranked if aid in sources), None)
    if found is None and not (best is not None and label_of is not None):
        return question
    score = dict(ranked)[found] if found is not None else 0.0
    if best is not None and score is not None and best > 0 and score < listed_share * best:
        if label_of is not None:
            return _with_label(question, match, label_of(ranked[0][0]))
        if match.re is _PREMODIFIED_REF:  # "the gui one" as a whole stands for the paper
            return question[: match.start()] + "the paper" + question[match.end() :]
        start = match.start() + len(re.match(r"\w+\s+one", question[match.start() :]).group(0))
        return question[: match.start()] + "the paper" + question[start:]
    return _with_label(question, match, str(sources[found]["label"]))


def _with_label(question: str, match: re.Match[str], label: str) -> str:
    """The described reference ``match`` written as the paper's ``label``; a label of opening words (which does not
    read as a name) goes along in brackets instead."""
    if is_opening_words(label):
        return f"{question} ({label})"
    return question[: match.start()] + label + question[match.end() :]


_ASKS_RESULTS = re.compile(
    r"\b(?:results?|findings?|find|found|show(?:s|ed)?|perform\w*|evaluat\w*|experiments?|accura\w*|how\s+well)\b",
    re.I,
)
_ASKS_METHOD = re.compile(
    r"\bhow\s+(?:does|do|did|is|are|was|were)\b|\bhow\s+(?:it|they)\s+works?\b|"
    r"\b(?:methods?|approach\w*|mechanism\w*|architecture|technique\w*|algorithm\w*|works?)\b",
    re.I,
)


# what "tell me more about …" names besides the paper and the role: words that point at a part, not at a topic
_PART_WORDS = frozenset(
    content_words(
        "part parts bit bits section aspect aspects thing things stuff point points piece side detail details info "
        "information one ones paper papers work works abstract study method approach it its they their them this "
        "that these those please more else further additional also again exactly actually really"
    )
)
_MORE_LEAD = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|so|and|cool|great|thanks|pls|please|can\s+you|could\s+you|would\s+you)\W+)*"
    r"(?:tell|say|show|give|share|explain)\s+(?:me\s+)?(?:us\s+)?(?:some\s+)?(?:a\s+bit\s+)?"
    r"(?:more|further|additional)\b(?:\s+(?:details?|info\w*))?(?:\s+(?:about|on|regarding|of|re:?))?|"
    r"^\W*(?:and\s+)?more\s+(?:details?\s+|info\w*\s+)?(?:about|on|regarding)\b|"
    r"^\W*(?:elaborate|expand)\s+(?:more\s+)?(?:on|about)\b|^\W*(?:go|dig)\s+deeper\s+(?:into|on)\b",
    re.I,
)


def more_aspect(question: str) -> str:
    """What a "tell me more" follow-up names that it wants more of, when it is neither the paper nor a sentence role
    alone: "tell me more about the second failure mode" -> "second failure mode", "more on the 300 sessions part"
    -> "300 sessions"; "" for "tell me more", "tell me more about it", "… about the results" or "… about how it
    works" (rag.followup.more_role picks those sentences by role)."""
    match = _MORE_LEAD.search(question)
    if match is None:
        return ""
    rest = question[match.end() :]
    rest = _ASKS_RESULTS.sub(" ", _ASKS_METHOD.sub(" ", rest))
    words = [w for w in re.findall(r"[\w%.,-]*\w", rest) if w.lower() not in _STOP_ASPECT]
    if described_reference(question) is not None:  # "tell me more about the gui one": which paper, no aspect
        return ""

    def part(word: str) -> bool:  # a word pointing at a part or a paper ("the second one"), not at a topic
        stems = set(content_words(word))
        return bool(stems) and stems <= _PART_WORDS | _REFERENCE_WORDS

    if not [w for w in words if content_words(w) and not part(w)]:
        return ""
    return " ".join(w for w in words if not part(w))


_STOP_ASPECT = frozenset(
    "the a an of in on about for to and or with what how is are was were do does did that this its their".split()
)


def more_role(question: str) -> str | None:
    """The sentence role a "tell me more" follow-up asks for (rag.roles): "… about the results", "what else did
    they find" -> result; "… about how it works", "more on the method" -> method; None when it asks for more of
    everything ("tell me more")."""
    if _ASKS_RESULTS.search(question):
        return "result"
    if _ASKS_METHOD.search(question):
        return "method"
    return None


def pronoun_source(
    question: str,
    history: Sequence[dict],
    search: Callable[[str], Sequence[str]],
    is_work: Callable[[str], bool] | None = None,
) -> str | None:
    """Which of the last answer's several sources a follow-up's "it"/"they" means when the follow-up asks about
    something of its own ("how many runs did they do?" after a list of papers): the first of ``search(question)``
    (abstract ids, best first) among those sources. None when the answer had one source, the follow-up names a
    work (names_a_work, with ``is_work``), says which source ("the second one, what does it use?") or asks nothing
    of its own ("how does it work?": the first source), or no source is found."""
    sources = [str(s.get("id")) for s in last_sources(history) if s.get("id")]
    if len(sources) < 2 or not _PRONOUN_REF.search(question) or names_a_work(question, history, is_work):
        return None
    if _ORDINAL_REF.search(question) or _NUMBER_REF.search(question):  # "the first one, how does it work?"
        return None
    stripped = _PRONOUN_REF.sub(" ", question)
    if not [w for w in content_words(stripped) if w not in _GENERIC_ASK]:
        return None
    return next((aid for aid in search(question) if aid in sources), None)


_GENERIC_ASK = frozenset(content_words("work works use used uses propose proposed method approach paper study do does"))


# "anything similar?", "any other papers like this?", "similar work?", "related papers", "more like this"
# the papers just discussed, as a follow-up points at them
_THESE = r"(?:this|that|it|these|those|them)"
_LIKE_THIS = rf"(?:like|similar\s+to|related\s+to|close\s+to)\s+{_THESE}(?:\s+(?:one|ones|paper|papers|work))?"
_SIMILAR = re.compile(
    # not a compound naming a topic ("privacy-related papers")
    r"(?<!-)\b(?:similar|related|comparable)\s+(?:papers?|works?|abstracts?|studies|ones|methods|approaches|research)\b"
    r"(?!\s+section)"
    r"|\b(?:anything|something|others?|any(?:\s+other)?(?:\s+(?:papers?|works?|studies|abstracts?))?|"
    r"other\s+(?:papers?|works?|studies|abstracts?|ones))\s+(?:similar|related|along\s+(?:these|the\s+same)\s+lines|"
    rf"{_LIKE_THIS})\b"
    rf"|\b(?:papers?|works?|studies|abstracts?)\s+{_LIKE_THIS}\b"
    rf"|\bmore\s+like\s+{_THESE}\b",
    re.I,
)


# words a bare request for similar papers may hold besides the request ("Thanks! Could you show me any other papers
# like this?"); anything else is a topic of its own ("related studies on protein design" asks for that topic)
_BARE_REQUEST_WORDS = frozenset(
    content_words(
        "thanks thank please great ok okay cool nice any there other others more paper papers work works study studies "
        "research find show list give also can could would tell know"
    )
)


def asks_similar(question: str) -> bool:
    """Whether a follow-up asks for other papers like the ones just discussed ("anything similar?", "any other work
    like this?", "related papers?"), naming no work or topic of its own."""
    if not _SIMILAR.search(question) or specific_terms(question) or len(question.split()) > 12:
        return False
    return not [w for w in content_words(_SIMILAR.sub(" ", question)) if w not in _BARE_REQUEST_WORDS]


# "what's the closest one?", "anything close?", "which comes closest?": the papers nearest what was asked
_CLOSEST = re.compile(
    r"\b(?:closest|nearest|comes?\s+close(?:st)?|(?:anything|something)\s+close)\b", re.I
)
_CLOSEST_FILLER = frozenset(content_words("one ones thing things match matches then instead maybe"))


def asks_closest(question: str) -> bool:
    """Whether a follow-up asks for the papers nearest what the conversation asked ("what's the closest one?",
    "anything close?", "ok, which comes closest then?"), naming no work or topic of its own."""
    if not _CLOSEST.search(question) or specific_terms(question) or len(question.split()) > 10:
        return False
    left = content_words(_CLOSEST.sub(" ", question))
    return not [w for w in left if w not in _BARE_REQUEST_WORDS and w not in _CLOSEST_FILLER]


# "papers similar to FooNet", "anything related to FooNet?", "what other work is like FooNet?"
_SIMILAR_TO = re.compile(
    rf"\b(?:similar|related|comparable|closest|close)\s+to\s+(?!{_THESE}\b)"
    r"|\b(?:papers?|works?|studies|abstracts?|anything|something|others?|ones)\s+(?:is\s+|are\s+)?like\s+"
    rf"(?!{_THESE}\b)"
    r"|\bwhat\s+(?:other\s+)?(?:papers?|works?|studies)\s+(?:is|are)\s+like\b",
    re.I,
)


def similar_to_tail(question: str) -> str | None:
    """When the question asks for papers like a work it names ("papers similar to FooNet", "what other work is like
    FooNet?"), the words after the request, where the work is named (the caller links it); else None. "Is FooNet
    similar to BarNet?" names its work before the request: a question about FooNet."""
    match = _SIMILAR_TO.search(question)
    if match is None or len(question.split()) > 14:
        return None
    return question[match.end() :]


# A follow-up about the earlier answer's works together: "do both release code?", "which one is faster?", "what
# does each of them use?", "compare them", "the two papers", "which of these uses text?"; not "both X and Y" (what
# it asks about), nor "these results" (a thing of the paper). A work noun may follow ("these methods").
# "both", "either", "neither" standing for the works, not opening "both X and Y" / "either X or Y"
_BOTH_OR_EITHER = (
    r"\bboth\b(?!\s+(?:[\w-]+\s+){0,2}and\b)|\b(?:either|neither)\b(?!\s+(?:[\w-]+\s+){0,2}(?:or|nor)\b)"
)
_WORK_NOUN = r"(?:ones?|papers?|works?|methods?|approaches|models|benchmarks|studies|abstracts|frameworks|systems)"
_COLLECTIVE = re.compile(
    rf"{_BOTH_OR_EITHER}"
    rf"|\ball\s+(?:of\s+)?(?:them|these|those|three|four)\b|\beach(?:\s+of\s+(?:them|these|those))?"
    rf"(?=\s*(?:[?.!,;]|$)|\s+(?:of|{_WORK_NOUN})\b|\s+(?:use|uses|do|does|report|reports|need|needs|require|"
    rf"requires|propose|proposes|evaluate|evaluates|achieve|achieves|release|releases|introduce|introduces|"
    rf"claim|claims|find|finds|show|shows|have|has|get|gets|target|targets|address|addresses)\b)"
    rf"|\bthe\s+(?:two|three|four)(?:\s+{_WORK_NOUN})?\b"
    rf"|\b(?:these|those)(?:\s+(?:two|three|four))?(?=\s*(?:[?.!,;]|$)|\s+{_WORK_NOUN}\b)"
    rf"|\b(?:of|between|among|compare|contrast)\s+(?:them|these|those)\b|\bthem\b",
    re.I,
)
# which of the works: "which one is faster?", "which of them did better?", "which is bigger"
_WHICH_OF = re.compile(r"\bwhich\s+(?:one|of\s+(?:them|these|those|the\s+\w+)|is|was|performs|does|did|has)\b", re.I)
# a cross-turn set of works ("What is FooNet?" "What is BarNet?" "compare them"): only the words that must mean works
_BOTH = re.compile(
    rf"{_BOTH_OR_EITHER}"
    r"|\bthe\s+two\b|\bthese\s+two\b|\b(?:compare|contrast|between)\s+(?:them|these|those)\b"
    # "how do they differ?", "how are they different?", "how do they compare to each other?": nothing else they are
    # set against (not "how do they compare to prior work?")
    r"|\b(?:do|does|did)\s+(?:they|these|those)\s+(?:differ|compare|contrast)"
    r"(?:\s+(?:to|with|from)\s+(?:each\s+other|one\s+another))?\W*$"
    r"|\b(?:are|were)\s+(?:they|these|those)\s+(?:different|similar|alike)\W*$"
    # "what's the difference?", "so what is the difference between them?": nothing else it sets them against
    r"|^\W*(?:(?:so|and|ok(?:ay)?)[\s,]+)?what(?:['’]s|\s+is|\s+are)\s+the\s+differences?"
    r"(?:\s+between\s+(?:them|these|those|the\s+two))?\W*$",
    re.I,
)
# a choice among the works, which may name what it chooses by: "which of them uses FooData?", "do both use FooData?"
_AMONG = re.compile(
    r"\bwhich\s+of\s+(?:them|these|those|the\s+(?:two|three|four))\b|\bwhich\s+one\b"
    r"|\bboth\b(?!\s+(?:[\w-]+\s+){0,2}and\b)"
    r"|\beach\s+of\s+(?:them|these|those)\b|\b(?:either|neither)\s+of\b",
    re.I,
)
_WHICH_ONE = re.compile(r"\bwhich\s+one\b", re.I)
_PLURAL = re.compile(r"\b(?:they|their|them|theirs)\b", re.I)
_SINGULAR = re.compile(r"\b(?:it|its|this\s+(?:one|paper|work|method))\b", re.I)
_COUNT_WORDS = {"two": 2, "three": 3, "four": 4}
# "compare the first two", "the top three", "the last 2": that many of the last answer's works, from its start or end
_FIRST_N = re.compile(r"\b(?P<end>first|top|last)\s+(?P<n>two|three|four|[2-9])\b(?!\s*(?:%|percent|times|x\b))", re.I)


def _last_compared(history: Sequence[dict]) -> bool:
    """Whether the last answer set its works side by side (a comparison's table)."""
    for entry in reversed(history):
        if entry.get("role") == "assistant" and entry.get("sources"):
            return str(entry.get("content", "")).lstrip().startswith("| Work |")
    return False


def referred_works(question: str, history: Sequence[dict], asks_availability: bool = False) -> list[str]:
    """The earlier works (abstract ids, as the answers listed them) a follow-up asks about together, or [] when it
    asks about one: "do both release code?", "which one is faster?", "what does each use?" (after an answer with
    several papers: all of them); "compare them", "how do both work?" after answers about one paper each (the last
    two papers the conversation discussed, or as many as "the three" says); after a comparison, a follow-up naming
    no paper ("and the datasets?") means all its works; ``asks_availability`` ("is the code released?", "do they
    share code?": rag.roles.asks_for_availability), a question every listed paper answers for itself, likewise. Not
    when the follow-up picks one ("the second one", "the one that …", "it") or names a work of its own. A choice
    among them ("which of those uses X?") after an answer about one paper picked from an earlier answer's several
    ("the third one") is among that earlier answer's works."""
    answers = answers_sources(history)
    if not answers or points_by_position(question) or described_reference(question):
        return []
    if specific_terms(question) and not _AMONG.search(question):  # "which of them works on 3D?" chooses among them
        return []
    last = list(dict.fromkeys(str(s["id"]) for s in answers[0] if s.get("id")))
    if len(last) == 1 and _AMONG.search(question):
        # "which of those uses X?" after "the third one": the works are the earlier answer it was picked from
        earlier = (list(dict.fromkeys(str(s["id"]) for s in sources if s.get("id"))) for sources in answers[1:])
        last = next((ids for ids in earlier if len(ids) > 1 and last[0] in ids), last)
    if (first_n := _FIRST_N.search(question)) and len(last) > 1:
        n = _COUNT_WORDS.get(first_n.group("n").lower()) or int(first_n.group("n"))
        return last[-n:] if first_n.group("end").lower() == "last" else last[:n]
    singular = bool(_SINGULAR.search(question))
    collective = bool(_COLLECTIVE.search(question)) or (bool(_WHICH_OF.search(question)) and len(last) > 1)
    if len(last) > 1:
        if collective or _BOTH.search(question):  # "how do they differ?" after a list: the works it listed
            return last
        if singular:
            return []
        if asks_availability:  # "is the code released?", "do they share code?": every work answers for itself
            return last
        # "and the datasets?", "what data do they use?" after a comparison: of each work; not after a question
        # asking for one paper that was read as a comparison ("Which paper compares X with Y?"), where "they" is
        # that paper's authors ("how many outputs did they analyze?"), found by a search (pronoun_source)
        previous = last_user_question(history) or ""
        compared = _last_compared(history) and not asks_for_one_paper(previous)
        return last if compared or (_last_compared(history) and not _PLURAL.search(question)) else []
    # "which one needs no training?" after "What is FooNet?" "and BarNet?": a choice between the works discussed
    if not (_BOTH.search(question) or _WHICH_ONE.search(question)):
        return []
    wanted = max((n for w, n in _COUNT_WORDS.items() if re.search(rf"\b{w}\b", question, re.I)), default=2)
    works: list[str] = []
    for sources in answers:  # the most recent first: each earlier answer's paper
        first = next((str(s["id"]) for s in sources if s.get("id") and str(s["id"]) not in works), None)
        if first is not None:
            works.append(first)
        if len(works) == wanted:
            return works[::-1]  # in the order the conversation met them
    return []


def names_joined(labels: Sequence[str]) -> str:
    """"A", "A and B", "A, B and C"."""
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


# the words standing for the works, which their names replace
_WORKS_WORDS = re.compile(
    rf"\b(?:both|either|neither|all\s+(?:of\s+)?(?:them|these|those)|each\s+of\s+(?:them|these|those)"
    # "how do the first two differ?": the works _FIRST_N picks
    rf"|the\s+(?:first|top|last)\s+(?:two|three|four|[2-9])(?!\s*(?:%|percent|times|x\b))(?:\s+{_WORK_NOUN})?"
    rf"|(?:the|these|those)\s+(?:two|three|four)(?:\s+{_WORK_NOUN})?|(?:these|those)(?:\s+{_WORK_NOUN})?|them|they)\b",
    re.I,
)


def with_works_named(question: str, labels: Sequence[str]) -> str:
    """The follow-up with its reference to several works written as their names ("do both release code?" -> "do
    FooNet and BarNet release code?", "compare them" -> "compare FooNet and BarNet"); the names go along in
    brackets where no word stands for them ("which one is faster?")."""
    joined = names_joined(labels)
    if _WORKS_WORDS.search(question):
        return _WORKS_WORDS.sub(joined, question, count=1)
    return f"{question} ({joined})"


_ASKING = re.compile(r"\b(?:how|why|what|which|when|where|who|whose|do|does|did|is|are|was|were|can|has|have)\b", re.I)


def each_ask(question: str) -> str:
    """What a follow-up about several works asks of each, with the reference to them read as "they" ("do both
    release code?" -> "do they release code?"); "" when it asks nothing but names them ("compare them", "what about
    these two?", "summarize them")."""
    asked = " ".join(_WORKS_WORDS.sub("they", question).split())
    stripped = _POINTING_LEAD.sub(" ", _PLURAL.sub(" ", asked))
    words = [w for w in content_words(stripped) if w not in _REFERENCE_WORDS | _JUST_NAMING]
    if not words and _COMPARING.search(stripped):  # "how do they differ?": a comparison of them, nothing more
        return ""
    return asked if words or _ASKING.search(stripped) else ""


_COMPARING = re.compile(r"\b(?:compar\w*|contrast\w*|differ\w*|versus|vs)\b", re.I)


# words a follow-up naming works uses without asking anything of them: "compare them", "summarize these two"
_JUST_NAMING = frozenset(
    content_words(
        "compare comparison contrast difference differences differ summarize summarise summary overview tell more "
        "about two three four papers paper works work ones one"
    )
)


# "the second theme", "the last group", "group 3", "topic #2": one group of an answer that grouped the collection
_GROUP_NOUNS = r"(?:themes?|groups?|topics?|clusters?|categor(?:y|ies)|areas?)"
_GROUP_ORDINALS = {**_ORDINALS, "sixth": 6, "6th": 6, "seventh": 7, "7th": 7, "eighth": 8, "8th": 8}
_GROUP_REF = re.compile(
    rf"\b(?:the\s+)?(?P<ordinal>{'|'.join([*_GROUP_ORDINALS, 'last'])})\s+{_GROUP_NOUNS}\b"
    rf"|\b(?:the\s+)?{_GROUP_NOUNS}\s+(?:#\s*|no\.?\s*|number\s+)?(?P<number>\d{{1,2}})\b",
    re.I,
)
# The lead of an answer grouping the whole collection (rag.answering, "what are the main themes?")
GROUPS_LEAD = "abstracts fall into {count} groups by meaning"
_GROUPS_LEAD = re.compile(r"abstracts fall into (\d+) groups by meaning")


def group_reference(question: str) -> tuple[int, re.Match[str]] | None:
    """The group a follow-up picks by its place ("tell me more about the second theme", "which papers are in group
    3?", "the last cluster"): its 1-based position (-1: the last) and the words that pick it; None when it picks
    none."""
    match = _GROUP_REF.search(question)
    if match is None:
        return None
    if match.group("number"):
        return int(match.group("number")), match
    word = match.group("ordinal").lower()
    return (-1 if word == "last" else _GROUP_ORDINALS[word]), match


def answered_groups(history: Sequence[dict]) -> int:
    """How many groups the last answer divided the collection into (its lead, GROUPS_LEAD); 0 when it did not."""
    for entry in reversed(history):
        if entry.get("role") == "assistant":
            found = _GROUPS_LEAD.search(str(entry.get("content", "")))
            return int(found.group(1)) if found else 0
    return 0


def group_ask(question: str, reference: re.Match[str]) -> str:
    """What a follow-up asks of each paper of the group it picks, with the words picking the group taken out
    ("which papers of the second group use graphs?" -> "which papers use graphs?"); "" when it asks nothing more
    ("tell me more about the second theme", "what's in group 2?")."""
    before = re.sub(r"\b(?:of|in|from|within|under|about|for|on)\s*$", "", question[: reference.start()].rstrip(),
                    flags=re.I)  # fmt: skip
    rest = " ".join(f"{before} {question[reference.end() :]}".split())
    words = [w for w in content_words(rest) if w not in _GROUP_IDLE]
    return rest if words else ""


# words a follow-up picking a group uses without asking anything of its papers: "tell me more about", "what's in",
# "list the papers of", "show me"
_GROUP_IDLE = frozenset(
    content_words(
        "tell more about show list papers paper works work ones one explain describe details detail give cover covers "
        "include includes contain contains discuss discusses summarize summarise summary overview many"
    )
)
