"""The extractive answerer: no model, just the evidence sentences themselves, each with its citation.

One plan per question shape: single-paper questions quote the 1-3 sentences that answer them; list, summary and
yes/no questions give a Markdown list item per relevant paper quoting its contribution; comparisons give a Markdown
table with one row per work and the same aspects (what it does, how, results) for each.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from rag import membership
from rag.corpus import Abstract
from rag.evidence import EvidenceSentence, best_per_abstract, pick_sentences
from rag.membership import paper_features
from rag.policy import AnswerPolicy
from rag.question import QuestionProfile, answer_type, states_count, term_occurs
from rag.roles import (
    asks_for_availability,
    concludes,
    names_contribution,
    states_availability,
    states_evaluation,
    states_finding,
    states_shortcoming,
)
from rag.text import content_words

ASPECTS = (("What it does", ("contribution",)), ("How", ("method",)), ("Results", ("result",)))


@dataclass(frozen=True, slots=True)
class ExtractivePlan:
    """Which abstracts are cited (in citation order) and which sentences of each are quoted."""

    abstract_ids: list[str]
    sentences: list[EvidenceSentence]
    layout: str = "prose"  # prose | list | table | themes
    rows: list[tuple[str, list[list[EvidenceSentence]]]] = field(default_factory=list)  # table: per work and aspect
    # the sentences quoted (none: "—")
    lead: str = ""  # text before the quoted sentences ("Yes — ...")
    columns: list[str] = field(default_factory=list)  # table: the aspects' headers (default: ASPECTS)
    # list plans: each candidate paper's membership features (rag.membership.paper_features), for fitting
    candidates: dict[str, dict[str, float]] = field(default_factory=dict)
    # list plans: each shortlisted paper's mean sentence similarity to the question (for abstention: topic_peak)
    paper_similarity: dict[str, float] = field(default_factory=dict)
    # a single-paper question asking what its work says about something ("what does FooNet report about X"): the
    # best similarity of that aspect said alone to a sentence of the answering abstract (abstention: aspect_far);
    # None when it asks no such thing or the encoder cannot read it
    aspect_similarity: float | None = None
    # the question's topic said alone (rag.question.topic_phrase): its best similarity to a sentence of the
    # best-ranked papers and the English rarity of its rarest word (abstention: topic_far); None when unread
    topic_similarity: float | None = None
    topic_rarity: float = 0.0
    # a one-paper question ("Which paper proposes X?"): its reading as a request for papers on X and that reading's
    # plan, whose evidence decides abstention (rag.answering.select_evidence)
    screen: tuple[QuestionProfile, ExtractivePlan] | None = None
    # a follow-up about a paper it refers to: the profile of its own ask (rag.followup.own_ask), which chose the
    # sentences and which abstention reads (the rewritten question carries the earlier question's words along)
    asked: QuestionProfile | None = None
    # the works are the earlier answer's ("tell me more", "do both release code?") or those a request for papers
    # names by what their abstracts say of themselves ("which papers release code?"): no search found them, so the
    # plan is refused only when it quotes nothing (rag.answering.decide_abstention)
    known: bool = False
    # layout "themes" (a question about the whole collection): per theme, the words describing it, the papers named
    # in its line (nearest its centre first; the first one's sentences are quoted) and how many papers it holds
    themes: list[tuple[str, list[str], int]] = field(default_factory=list)
    # a compound question ("what does X propose, and how much memory does it save?"): the sentences quoted for its
    # parts' own plans (rag.answering.with_part_plans), shown but not read by abstention, which reads the answer to
    # the whole question (one part answered says nothing of whether the other is); also the sentences added for the
    # question's distinctive words (rag.answering._with_asked_words): they show what the abstract says of each, not
    # whether it states what was asked
    part_rows: frozenset[int] = frozenset()


def with_marker(sentence: str, number: int) -> str:
    """Put ``[n]`` before the sentence's final punctuation: 'It works.' -> 'It works [1].'"""
    sentence = sentence.strip()
    match = re.search(r"([.!?]+[\"')\]]*)$", sentence)
    if match:
        return f"{sentence[: match.start()].rstrip()} [{number}]{match.group(1)}"
    return f"{sentence} [{number}]"


def plan_single(
    abstract_id: str,
    evidence: Sequence[EvidenceSentence],
    profile: QuestionProfile,
    clause_evidence: Sequence[Sequence[EvidenceSentence]] = (),
    policy: AnswerPolicy | None = None,
    *,
    loose: bool = False,
) -> ExtractivePlan:
    """Quote the sentences of the top abstract that answer the question (and each part of it).

    ``loose``: the question was read loosely (a word-by-word gloss of a question in another language): its words are
    one sense of many and its shape a guess, so unless it asks for a number (its question word survives a gloss:
    "多少" -> "how many"), the answer also quotes what the work proposes and finds (AnswerPolicy.loose_core)."""
    policy = policy or AnswerPolicy()
    if not asks_for_availability(profile.text):  # a code or data link only when asked for (it names the work, so it
        # matches any question about the work by its words)
        evidence = [e for e in evidence if e.role != "availability"]
        clause_evidence = [[e for e in part if e.role != "availability"] for part in clause_evidence]
    most = policy.shape_max_sentences.get(profile.shape, policy.max_sentences)
    chosen = pick_sentences(evidence, profile, clause_evidence, policy.max_sentences, policy.sentence_margin)
    if most > len(chosen) and evidence:  # further sentences only when nearly as good as the best one
        rows = {e.row for e in chosen}
        extra = [
            e for e in evidence if e.row not in rows and e.score >= evidence[0].score - policy.extra_sentence_margin
        ]
        chosen = sorted([*chosen, *extra[: most - len(chosen)]], key=lambda e: e.row)
    if profile.kind == "number" and profile.asks_count and policy.count_sentences:  # each counted thing's number
        chosen = with_counts(chosen, evidence, profile.focus_words, policy.count_sentences)
    if profile.terse and profile.shape == "fact":  # a keyword query: what the work contributes, finds and how
        n = policy.terse_role_sentences
        wants = [("contribution", n), ("proposal", n), ("result", n), ("method", policy.terse_method_sentences)]
        chosen = with_role(chosen, evidence, wants, most)
        main = main_proposal(evidence)  # what the work is: its main proposal, not one added to it
        if main is not None and all(e.row != main.row for e in chosen):
            held = sum(has_role(e, "proposal") for e in chosen)
            chosen = with_role(chosen, [main], [("proposal", held + 1)], most)
    if profile.shape == "fact" and not profile.terse and len(chosen) < most:  # room left: name what it proposes
        chosen = with_role(chosen, evidence, [("proposal", policy.proposal_sentences)], most)
    if profile.shape == "how_why":  # "how does X …": the mechanism; "why does X fail": the diagnosis
        if profile.explains_failure:  # "…, and how do they fix it?": what the work proposes too
            wants = [
                ("diagnosis", policy.answer_role_sentences),
                ("proposal", policy.proposal_sentences * profile.asks_remedy),
            ]
        elif profile.asks_significance:  # "why does that matter?": why the problem matters, what the work concludes
            wants = [("setup", policy.answer_role_sentences), ("conclusion", policy.answer_role_sentences)]
        else:  # what the work proposes, then how it works
            wants = [("proposal", policy.proposal_sentences), ("method", policy.answer_role_sentences)]
        chosen = with_role(chosen, evidence, wants, most)
    # after the roles: the sentence spelling out the best one is not pushed out by them
    if policy.elaboration_shapes and profile.shape in policy.elaboration_shapes:
        chosen = with_elaboration(chosen, evidence, most + policy.elaboration_extra)
    if profile.asks_evaluation:  # "which datasets …": the sentence saying where it is evaluated, naming the data
        chosen = with_one(chosen, evidence, "evaluation", most, policy.name_answer_margin)
    if profile.kind == "name" and policy.spelled_out_names:  # names asked for: where the quoted ones are spelt out
        chosen = with_spelled_out(chosen, evidence, profile.text)
    if profile.shape in policy.named_sentence_shapes:  # the name of what the work introduces
        chosen = with_one(chosen, evidence, "named", most + policy.named_extra, policy.named_margin)
    if profile.asks_paper:  # "Which paper proposes X?": the answer names the paper's contribution
        chosen = with_one(chosen, evidence, "named", most + 1, policy.paper_name_margin)
    if loose and profile.kind == "number" and not any(e.has_number for e in chosen):
        # a gloss may garble what is counted ("适配体" -> "adaptation body"): the best sentence that states a number
        # (a count, when it asks how many)
        stating = [e for e in evidence if e.has_number and (not profile.asks_count or states_count(e.text))]
        chosen = sorted([*chosen, *stating[:1]], key=lambda e: e.row)
    core = profile.kind == "general" and profile.shape in policy.core_shapes
    loose_core = loose and policy.loose_core and profile.kind != "number"  # "how many" survives a gloss
    if core or loose_core:  # what the work proposes and finds
        wants = [("proposal", policy.core_proposal_sentences), ("result", policy.core_result_sentences)]
        # of the result sentences, one stating what the work shows ("We prove that …") before an evaluation report
        findings_first = sorted(evidence, key=lambda e: not (e.role == "result" and states_finding(e.text)))
        chosen = with_role(chosen, findings_first, wants, len(chosen) + policy.core_extra)
        chosen = with_detail(chosen, evidence, "proposal", policy.detail_roles)
        if policy.core_stated_finding:  # what it finds: a sentence stating a finding, when the abstract has one
            chosen = with_finding(chosen, evidence)
    # a quoted set-up sentence: what the work does about it follows (a why-it-fails question asks for the set-up)
    if profile.shape in policy.response_shapes and not profile.explains_failure:
        chosen = with_response(chosen, evidence, policy.setup_roles, policy.response_roles, policy.response_extra)
    if policy.clause_answer_margin is not None:
        chosen = with_clause_answers(chosen, clause_evidence, policy.clause_answer_margin)
    if policy.naming_follows:  # "… fail at telling left from right. We call this failure FooBlindness."
        chosen = with_naming(chosen, evidence)
    if profile.shape == "fact" and policy.polar_detail_mass and _POLAR.match(profile.text):
        # "Does FooNet require fine-tuning?": the sentence holding the asked detail, however little it resembles
        # the question as a whole ("… without model fine-tuning")
        chosen = with_polar_detail(chosen, evidence, profile, policy.polar_detail_mass)
    if profile.asks_findings:  # "what are its results?", "how well does it do?": the findings lead, then the rest
        # none chosen that says how it turned out ("evaluated on 12 LLMs" says where, not how well): the best one
        # stating a finding, else a result
        if not any(e.role == "result" and reports_outcome(e.text) for e in chosen):
            findings_first = sorted(evidence, key=lambda e: not (e.role == "result" and states_finding(e.text)))
            outcome = next((e for e in findings_first if e.role == "result" and reports_outcome(e.text)), None)
            if outcome is not None and all(e.row != outcome.row for e in chosen):
                chosen = sorted([*chosen, outcome], key=lambda e: e.row)
            else:
                chosen = with_role(chosen, findings_first, [("result", 1)], len(chosen) + 1)
        chosen = sorted(chosen, key=lambda e: (e.role != "result", e.row))
    if profile.kind == "number" and not profile.asks_findings:  # "how big is X?": the sentence stating it leads, the
        # introduction quoted for context after it
        chosen = sorted(chosen, key=lambda e: not e.has_number)
    if answer_type(profile.text, profile.kind) == "availability":  # "is the code out?": the line saying where leads
        line = next((e for e in evidence if says_where_released(e.role, e.text)), None)
        rest = [e for e in chosen if line is None or e.row != line.row]
        chosen = [line, *rest] if line is not None else rest
    if policy.spelled_out_any_kind and profile.kind != "name":
        # whatever is asked, a short form quoted is spelt out by one sentence more (added last, so it displaces none
        # chosen for the question): a question describing a work in its own words names none of its terms, and the
        # answer then says what the work calls the idea it quotes
        chosen = with_spelled_out(chosen, evidence, profile.text)
    if profile.asks_brief and len(chosen) > 1:  # "in one sentence": what the work does, or what it found if asked
        results = [e for e in chosen if e.role == "result"]
        main = (results[0] if results else None) if profile.asks_findings else main_proposal(chosen)
        chosen = [main or max(chosen, key=lambda e: e.score)]
    return ExtractivePlan([abstract_id], chosen)


_POLAR = re.compile(r"^\W*(?:does|do|did|is|are|was|were|can|could|has|have|will|would)\b", re.I)

# How a result sentence says how things turned out: a measured figure, a comparison won, what the results show
_OUTCOME = re.compile(
    r"\d+(?:\.\d+)?\s*(?:%|×|x\b)|\b(?:outperform\w*|surpass\w*|state-of-the-art|improv\w*|achiev\w*|"
    r"(?:results?|experiments?|evaluations?|analys[ie]s)\s+(?:show|demonstrate|reveal|indicate|suggest|confirm)\w*)\b",
    re.I,
)


def reports_outcome(sentence: str) -> bool:
    """Whether a sentence says how the work turned out ("Results reveal … from 1.1% to 45.9%", "FooNet outperforms
    …", "We show that …"), not only where or how it was evaluated ("… and evaluated on 12 representative LLMs")."""
    return states_finding(sentence) or bool(_OUTCOME.search(sentence))


def with_polar_detail(
    chosen: Sequence[EvidenceSentence], evidence: Sequence[EvidenceSentence], profile: QuestionProfile, least: float
) -> list[EvidenceSentence]:
    """``chosen`` with the sentence of ``evidence`` (one abstract's) holding most of what a yes/no question about
    the work asks ("Does FooNet require fine-tuning?"), when no chosen sentence holds as much and it holds at least
    ``least``: each of the question's topic words counts one over the number of the abstract's sentences using it,
    so the work's own name, in many of them, counts little, and a detail only one sentence states counts fully. In
    reading order."""
    words = [set(content_words(e.text)) for e in evidence]
    topic = [w for w in profile.topic_words if any(w in held for held in words)]
    if not topic:
        return list(chosen)
    weight = {w: 1.0 / sum(w in held for held in words) for w in topic}
    mass = {e.row: sum(weight[w] for w in topic if w in held) for e, held in zip(evidence, words, strict=True)}
    best = max(evidence, key=lambda e: (mass[e.row], e.score))
    if mass[best.row] < least or any(mass[e.row] >= mass[best.row] for e in chosen):
        return list(chosen)
    return sorted([*chosen, best], key=lambda e: e.row)


_NUMBER_WORD = r"(?:\d[\d,.]*[kKmM]?\+?|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozens?|hundreds?)"


def counts(sentence: str, thing: str) -> bool:
    """Whether the sentence states a number of ``thing`` (a word stem: "run" in "6,000+ runs", "300 unscripted
    sessions"): a number, at most two words, then the word."""
    pattern = rf"(?<![\w.-]){_NUMBER_WORD}\s+(?:[\w-]+\s+){{0,2}}?{re.escape(thing)}\w*"
    return re.search(pattern, sentence, re.I) is not None


def with_counts(
    chosen: Sequence[EvidenceSentence], evidence: Sequence[EvidenceSentence], things: Sequence[str], extra: int
) -> list[EvidenceSentence]:
    """``chosen`` with, for each of ``things`` (what a count question counts: "how many runs and sessions" ->
    run, session) that no chosen sentence states a number of, the best-scoring sentence of ``evidence`` that does
    (see counts), at most ``extra`` added: a question counting two things asks for two numbers, often stated in
    two sentences. In reading order."""
    added: list[EvidenceSentence] = []
    rows = {e.row for e in chosen}
    for thing in things:
        if len(added) >= extra or any(counts(e.text, thing) for e in [*chosen, *added]):
            continue
        found = next((e for e in evidence if e.row not in rows and counts(e.text, thing)), None)
        if found is not None:
            added.append(found)
            rows.add(found.row)
    return sorted([*chosen, *added], key=lambda e: e.row) if added else list(chosen)


_SHORT_FORM = re.compile(r"\(([A-Za-z][\w-]*[A-Z][\w-]*?)s?\)")


def with_spelled_out(
    chosen: Sequence[EvidenceSentence], evidence: Sequence[EvidenceSentence], question: str
) -> list[EvidenceSentence]:
    """``chosen`` with the first sentence of ``evidence`` spelling out a short form the chosen sentences use but do
    not spell out ("statistical parity (SP)" for "SP-aligned properties …"), when the question does not use it
    itself: a question asking for names is answered with the names, not only their abbreviations. At most one
    sentence added. In reading order."""
    text = " ".join(e.text for e in chosen)
    defined = {m.group(1) for e in chosen for m in _SHORT_FORM.finditer(e.text)}
    rows = {e.row for e in chosen}
    for e in sorted(evidence, key=lambda e: e.row):
        if e.row in rows or e.role == "availability":
            continue
        for m in _SHORT_FORM.finditer(e.text):
            short = m.group(1)
            if short in defined or re.search(rf"\b{re.escape(short)}\b", question):
                continue
            if re.search(rf"\b{re.escape(short)}\b", text):
                return sorted([*chosen, e], key=lambda x: x.row)
    return list(chosen)


def main_proposal(evidence: Sequence[EvidenceSentence]) -> EvidenceSentence | None:
    """The work's main proposal: the first sentence of ``evidence`` in reading order saying what the work proposes
    (see has_role), not one added to another ("We also …", "We further …"), else the first added one; None when
    there is none. An abstract states its main contribution first."""
    proposals = [e for e in evidence if has_role(e, "proposal")]
    return min(proposals, key=lambda e: (bool(_SECONDARY.search(e.text)), e.row), default=None)


def with_response(
    chosen: Sequence[EvidenceSentence],
    evidence: Sequence[EvidenceSentence],
    setup_roles: Sequence[str],
    response_roles: Sequence[str],
    extra: int,
) -> list[EvidenceSentence]:
    """``chosen`` with the sentence right after its best-scoring set-up sentence (one of ``setup_roles``: background,
    gap) when that next sentence says what the work does (one of ``response_roles``) and is not quoted yet, at most
    ``extra`` added. A question restating a work's problem matches the sentence posing it ("Given a fixed budget,
    which pairs should be compared?"), while the answer is the work's response in the next one ("This paper studies
    it as a sampling-design problem."). In reading order."""
    rows = {e.row for e in chosen}
    added: list[EvidenceSentence] = []
    for setup in sorted((e for e in chosen if e.role in setup_roles), key=lambda e: (-e.score, e.row)):
        if len(added) >= extra:
            break
        nxt = sentence_after(evidence, setup, response_roles)
        if nxt is not None and nxt.row not in rows:
            added.append(nxt)
            rows.add(nxt.row)
    return sorted([*chosen, *added], key=lambda e: e.row) if added else list(chosen)


def with_clause_answers(
    chosen: Sequence[EvidenceSentence], clause_evidence: Sequence[Sequence[EvidenceSentence]], margin: float
) -> list[EvidenceSentence]:
    """``chosen`` with the best sentence for each part of a compound question ("How does X work, and is Y a good
    idea?"; rag.question.clauses) that it lost to the sentences added for their roles: each part asks its own
    thing, and the sentence answering it best answers it whatever its role. Added only when it scores (for that
    part) more than ``margin`` above every chosen sentence: a chosen sentence nearly as good already answers the
    part. In reading order."""
    rows = {e.row for e in chosen}
    added: list[EvidenceSentence] = []
    for part in clause_evidence:
        if not part or part[0].row in rows:
            continue
        held = max((e.score for e in part if e.row in rows), default=float("-inf"))
        if part[0].score - held > margin:  # the chosen sentences answer this part far worse than its best one
            added.append(part[0])
            rows.add(part[0].row)
    return sorted([*chosen, *added], key=lambda e: e.row) if added else list(chosen)


def with_finding(chosen: Sequence[EvidenceSentence], evidence: Sequence[EvidenceSentence]) -> list[EvidenceSentence]:
    """``chosen`` with the abstract's best-scoring sentence stating what the work finds ("We find that …", see
    states_finding; its main finding before one added to it: "We also show that …") when none of the chosen ones
    states a finding: a result quota met by a sentence that only restates the problem leaves out what the work
    found. In reading order."""
    if any(states_finding(e.text) for e in chosen):
        return list(chosen)
    rows = {e.row for e in chosen}
    stated = [e for e in evidence if e.role == "result" and states_finding(e.text) and e.row not in rows]
    # the main finding, not one added to it ("We also show that …"), as for the main proposal (main_proposal)
    found = min(stated, key=lambda e: (bool(_SECONDARY.search(e.text)), -e.score), default=None)
    return list(chosen) if found is None else sorted([*chosen, found], key=lambda e: e.row)


def with_detail(
    chosen: Sequence[EvidenceSentence], evidence: Sequence[EvidenceSentence], role: str, detail_roles: Sequence[str]
) -> list[EvidenceSentence]:
    """``chosen`` with the sentence right after its first one of ``role`` (see has_role) when that next sentence
    has one of ``detail_roles``: an abstract names what it proposes, then says how it works or what it achieves
    ("We propose FooNet, … . FooNet first encodes …"), so the next sentence holds the detail the proposal
    announces, whatever words it shares with the question. In reading order."""
    anchor = next((e for e in sorted(chosen, key=lambda e: e.row) if has_role(e, role)), None)
    if anchor is None:
        return list(chosen)
    nxt = sentence_after(evidence, anchor, detail_roles)
    if nxt is None or nxt.row in {e.row for e in chosen}:
        return list(chosen)
    return sorted([*chosen, nxt], key=lambda e: e.row)


def sentence_after(
    evidence: Sequence[EvidenceSentence], anchor: EvidenceSentence, roles: Sequence[str]
) -> EvidenceSentence | None:
    """The sentence of ``evidence`` right after ``anchor`` in its abstract when it has one of ``roles``, else None:
    the sentence detailing what the anchor announces ("We propose FooNet, … . FooNet first encodes …")."""
    nxt = next((e for e in evidence if e.row == anchor.row + 1 and e.abstract_id == anchor.abstract_id), None)
    return nxt if nxt is not None and nxt.role in roles else None


def with_asked_words(
    chosen: Sequence[EvidenceSentence], evidence: Sequence[EvidenceSentence], words: Sequence[str], extra: int
) -> list[EvidenceSentence]:
    """``chosen`` followed by, for each of ``words`` (content-word stems the question asks about) that no chosen
    sentence holds, the best-scoring sentence of ``evidence`` holding it, at most ``extra`` added: a question about
    "the FooBench benchmark with neural collapse" is answered by the benchmark's sentence and the one on neural
    collapse, though the second resembles the whole question less."""
    held = {w for e in chosen for w in content_words(e.text)}
    rows = {e.row for e in chosen}
    added: list[EvidenceSentence] = []
    for w in words:
        if len(added) >= extra or w in held:
            continue
        found = next((e for e in evidence if e.row not in rows and w in content_words(e.text)), None)
        if found is not None:
            added.append(found)
            rows.add(found.row)
            held.update(content_words(found.text))
    return [*chosen, *added]


def with_one(
    chosen: Sequence[EvidenceSentence], evidence: Sequence[EvidenceSentence], role: str, most: int, margin: float
) -> list[EvidenceSentence]:
    """``chosen`` with one sentence of ``role`` (see has_role) when it has none and ``evidence`` has one scoring
    within ``margin`` of the best chosen sentence (the best such one), at most ``most`` sentences (see with_role)."""
    if not chosen or any(has_role(e, role) for e in chosen):
        return list(chosen)
    floor = max(e.score for e in chosen) - margin
    candidates = [e for e in evidence if has_role(e, role) and e.score >= floor]
    return with_role(chosen, candidates, [(role, 1)], most) if candidates else list(chosen)


_ELABORATES = re.compile(
    r"^(?:in\s+particular|specifically|concretely|namely|that\s+is|in\s+other\s+words|for\s+(?:example|instance)|"
    r"(?:however|yet|but),\s+(?:this|these|such|it|they)\b|(?:the\s+former|the\s+latter)\b)",
    re.I,
)


def elaborates(sentence: str) -> bool:
    """Whether a sentence spells out the one before it ("In particular, …", "Specifically, …", "However, this …")."""
    return bool(_ELABORATES.search(sentence.strip()))


# "We call this failure X.", "We term this phenomenon X.", "This setting, which we call X, …": a sentence giving a
# name to what the sentence before it describes
_NAMES_WHAT_PRECEDES = re.compile(
    r"^(?:[^,]{0,40},\s+)?(?:we\s+(?:call|term|dub|name|coin|refer\s+to)\s+(?:this|these|it|them|such)\b|"
    r"(?:this|these)\s+(?:[\w-]+\s+){0,3}(?:is|are)\s+what\s+we\s+(?:call|term|dub)\b|"
    r"(?:this|these)\s+[\w-]+(?:\s+[\w-]+)?\s*,\s*(?:which|that)\s+we\s+(?:call|term|dub|name)\b)",
    re.I,
)


def names_what_precedes(sentence: str) -> bool:
    """Whether the sentence gives a name to what the sentence before it describes ("We call this failure FooBlindness.",
    "This regime, which we term the lazy phase, …")."""
    return bool(_NAMES_WHAT_PRECEDES.search(sentence.strip()))


_ENUMERATION_FIRST = re.compile(r"^\s*(?:first(?:ly)?|to\s+begin\s+with)\s*,", re.I)
_ENUMERATION_SECOND = re.compile(r"^\s*(?:second(?:ly)?|next)\s*,", re.I)


def with_enumeration(
    item: Sequence[EvidenceSentence], others: Sequence[EvidenceSentence]
) -> list[EvidenceSentence]:
    """``item`` (one paper's quoted sentences) with the paper's first sentence opening "Second," after its
    quoted sentence opening "First,": an abstract listing its contributions ("First, we show that X. Second, we
    adapt Y to it.") says what the work does in both, and a line quoting the first half of the list leaves out what
    the second adds. Unchanged when no quoted sentence opens such a list or the second is already quoted."""
    first = next((e for e in item if _ENUMERATION_FIRST.match(e.text)), None)
    if first is None:
        return list(item)
    quoted = {e.row for e in item}
    second = next(
        (e for e in sorted(others, key=lambda e: e.row) if e.row > first.row and _ENUMERATION_SECOND.match(e.text)),
        None,
    )
    return [*item, second] if second is not None and second.row not in quoted else list(item)


def with_naming(chosen: Sequence[EvidenceSentence], evidence: Sequence[EvidenceSentence]) -> list[EvidenceSentence]:
    """``chosen`` with the sentence right after a chosen one that names what it describes (see names_what_precedes):
    the answer quoting a finding or a model also says what the work calls it. In reading order."""
    rows = {(e.abstract_id, e.row) for e in chosen}
    added = [
        e for e in evidence
        if (e.abstract_id, e.row) not in rows and (e.abstract_id, e.row - 1) in rows and names_what_precedes(e.text)
    ]  # fmt: skip
    return sorted([*chosen, *added], key=lambda e: e.row) if added else list(chosen)


def with_elaboration(
    chosen: Sequence[EvidenceSentence], evidence: Sequence[EvidenceSentence], most: int
) -> list[EvidenceSentence]:
    """``chosen`` with the sentence that spells out its best one (the next sentence of the abstract, when it opens
    with "In particular", "Specifically", "However, this" …): it holds the detail the best sentence announces; or,
    when the best sentence itself spells out the one before it, that one (it says what is spelt out). The
    lowest-scoring other sentence makes room when ``chosen`` already has ``most``. In reading order."""
    if not chosen:
        return list(chosen)
    best = max(chosen, key=lambda e: (e.score, -e.row))
    # the best sentence spells out the one before it ("Specifically, …"): that one says what is spelt out
    partner_row = best.row - 1 if elaborates(best.text) else best.row + 1
    partner = next((e for e in evidence if e.row == partner_row and e.abstract_id == best.abstract_id), None)
    rows = {e.row for e in chosen}
    if partner is None or partner.row in rows or (partner.row > best.row and not elaborates(partner.text)):
        return list(chosen)
    keep = sorted(chosen, key=lambda e: (-e.score, e.row))
    if len(keep) >= max(most, 1):
        keep = keep[: max(most, 1) - 1]
    return sorted([*keep, partner], key=lambda e: e.row)


_PROBLEM_STATEMENT = re.compile(
    r"^(?:[^,]{0,60},\s+)?(?:we|this\s+(?:paper|work|study))\s+(?:first\s+)?(?:study|investigate|consider|examine|"
    r"explore|focus|analy[sz]e|revisit|ask|address\s+the\s+(?:following\s+)?question)\b",
    re.I,
)


# "We study the Foo problem and derive a bound on …": the problem studied, then what the work contributes to it
_AND_CONTRIBUTES = re.compile(
    r"\b(?:and|then)\s+(?:\w+\s+)?(?:propose|derive|develop|introduce|present|design|prove|establish|show|provide|"
    r"obtain|give|construct)[sd]?\b",
    re.I,
)


# "We introduce the Foo Search problem, in which …": a contribution that poses the problem, not what solves it
_POSES_PROBLEM = re.compile(
    r"^(?:[^,]{0,60},\s+)?(?:we|this\s+(?:paper|work))\s+(?:first\s+)?(?:introduce|formulate|define|consider|pose)\s+"
    r"(?:the|a|an)\s+(?:[\w-]+\s+){0,8}?(?:problem|setting|task)\b(?!\s+(?:solver|method|model|benchmark|dataset))",
    re.I,
)


def has_role(e: EvidenceSentence, role: str) -> bool:
    """``role`` is a sentence role (rag.roles), or "proposal": a contribution sentence saying what the work does
    about the problem ("We propose FooNet …", "We address this by deriving …"), not the problem it studies ("We
    study X"), or "named_proposal": one saying what it proposes or introduces ("We propose FooNet", "a method
    called FooNet"), or "setup": a background or gap sentence (why the problem matters), or "conclusion": one
    drawing the work's conclusion or stating a finding (rag.roles.concludes, states_finding)."""
    if role == "proposal":
        studies = _PROBLEM_STATEMENT.search(e.text) and not _AND_CONTRIBUTES.search(e.text)
        return e.role == "contribution" and not studies and not _POSES_PROBLEM.search(e.text)
    if role == "named_proposal":  # "We propose FooNet …", "… a method called FooNet"
        return e.role == "contribution" and bool(_NAMES_PROPOSAL.search(e.text))
    if role == "named":  # whatever its role: "Our FooRank (FR) policy …", "which we term the *gap ratio*"
        return e.role != "availability" and names_contribution(e.text)
    if role == "diagnosis":  # why something fails: a gap sentence, or a finding about the failure
        return e.role == "gap" or (e.role == "result" and states_shortcoming(e.text))
    if role == "setup":  # why the problem matters: the abstract's background or gap
        return e.role in ("background", "gap")
    if role == "conclusion":  # what the work concludes: a concluding sentence, or one stating a finding
        return e.role != "availability" and (concludes(e.text) or (e.role == "result" and states_finding(e.text)))
    if role == "evaluation":  # says where something is evaluated, naming several things the question does not
        return e.new_names >= 2 and states_evaluation(e.text)
    return e.role == role


_NAMES_PROPOSAL = re.compile(r"\bwe\s+(?:\w+\s+)?(?:propose|introduce|present)\b|\b(?:called|termed|dubbed)\b", re.I)


def with_role(
    chosen: Sequence[EvidenceSentence],
    evidence: Sequence[EvidenceSentence],
    wants: Sequence[tuple[str, int]],
    most: int,
) -> list[EvidenceSentence]:
    """``chosen`` with at least ``count`` sentences of each ``(role, count)`` of ``wants`` (the best-scoring ones of
    ``evidence``; see has_role), at most ``most`` sentences in all: the best sentence stays, then the chosen ones of
    a wanted role (they count towards its ``count``), then the added ones in the order of ``wants``, then the rest
    of ``chosen`` by score. In reading order."""
    if not chosen:
        return list(chosen)
    rows = {e.row for e in chosen}
    wanted: list[EvidenceSentence] = []
    for role, count in wants:
        missing = count - sum(has_role(e, role) for e in chosen)
        if missing > 0:
            wanted += [e for e in evidence if has_role(e, role) and e.row not in rows][:missing]
    by_score = sorted(chosen, key=lambda e: (-e.score, e.row))
    # the chosen sentences of a wanted role stay before the added ones (they score better than those)
    of_role = [e for e in by_score[1:] if any(count > 0 and has_role(e, role) for role, count in wants)]
    keep: dict[int, EvidenceSentence] = {}
    for e in [by_score[0], *of_role, *wanted, *by_score[1:]]:
        if len(keep) >= max(most, 1):
            break
        keep.setdefault(e.row, e)
    return sorted(keep.values(), key=lambda e: e.row)


def plan_more(
    abstract_ids: Sequence[str],
    evidence: Sequence[EvidenceSentence],
    said: set[str],
    count: int,
    result_sentences: int = 0,
    role: str | None = None,
    *,
    by_score: bool = False,
) -> ExtractivePlan:
    """'Tell me more': the next-best sentences of the same papers that the previous answer did not quote (never a
    repeat). Those of the ``role`` the follow-up asks for come first ("… about the results": result; see
    rag.followup.more_role); otherwise at least ``result_sentences`` result sentences when there are any, then what
    the work does, how and finds (contribution, method, result) before its background and gap sentences. Of the
    result sentences, one stating what the work shows ("We prove that …", see states_finding), then one reporting
    figures, come first: the findings and the numbers are the details a reader asks more for.

    ``by_score``: the evidence was scored for what the follow-up names ("… about the second failure mode",
    rag.followup.more_aspect): the sentence scored best for it (quoted before or not), then the best-scored unseen
    sentences, those of the asked role first, whatever else their role."""
    fresh = [e for e in evidence if e.abstract_id in abstract_ids and _norm(e.text) not in said]
    if by_score:
        fresh.sort(key=lambda e: -e.score)
        first = [e for e in fresh if e.role == role] if role is not None else []
        # the sentence holding what it names leads even when quoted before (it is what the reader asks about)
        best = max((e for e in evidence if e.abstract_id in abstract_ids), key=lambda e: e.score, default=None)
        lead = [best] if best is not None and role is None else []
        picked = list({e.row: e for e in [*lead, *first, *fresh]}.values())[:count]
        chosen = sorted(picked, key=lambda e: (list(abstract_ids).index(e.abstract_id), e.row))
        return ExtractivePlan([aid for aid in abstract_ids if any(e.abstract_id == aid for e in chosen)], chosen)
    # what the work does, how and what it finds before the setting it starts from (background, gap)
    fresh.sort(key=lambda e: e.role in ("background", "gap"))  # stable: by score within
    results = sorted(
        (e for e in fresh if e.role == "result"), key=lambda e: (not states_finding(e.text), not e.has_number)
    )
    if role is not None:
        first = results if role == "result" else [e for e in fresh if e.role == role]
    else:
        first = results[:result_sentences] if count > 1 else []
    picked: list[EvidenceSentence] = []
    for e in [*first, *fresh]:
        if len(picked) < count and all(e.row != p.row for p in picked):
            picked.append(e)
    chosen = sorted(picked, key=lambda e: (list(abstract_ids).index(e.abstract_id), e.row))
    ids = [aid for aid in abstract_ids if any(e.abstract_id == aid for e in chosen)]
    return ExtractivePlan(ids, chosen)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"\s*\[\d+(?:[,\s\d-]*)\]", "", text).lower().split()).strip(" .")


def said_sentences(text: str) -> set[str]:
    """The sentences an earlier answer quoted (markers and Markdown removed), to avoid repeating them."""
    text = re.sub(r"^\s*[-*]\s+\*\*[^*]+\*\*:\s*", "", text, flags=re.M)
    pieces = re.split(r"(?<=[.!?])\s+|\n|\|", text)
    return {_norm(p) for p in pieces if len(p.split()) >= 4}


def plan_list(
    evidence: Sequence[EvidenceSentence],
    policy: AnswerPolicy | None = None,
    lead: str = "",
    members: Sequence[str] = (),
    mentions: Sequence[str] = (),
    *,
    margin: float | None = None,
    with_contribution: bool = False,
    with_finding: bool = False,
    coverage: Mapping[str, float] | None = None,
    min_coverage: float = 0.0,
    own_names: Mapping[str, str] | None = None,
    prefer_named: bool = False,
    order: Sequence[str] = (),
    shape: str = "",
    with_topic: bool = False,
    detail_roles: Sequence[str] = (),
    with_availability: bool = False,
    open_members: bool = False,
    facets: Mapping[str, Mapping[str, float]] | None = None,
) -> ExtractivePlan:
    """One key sentence per relevant abstract, considering every abstract in the corpus.

    Papers are ranked by ``membership_scores`` (their best sentence's relevance, role aside, plus their topic
    coverage); each is quoted by its best sentence for the question's shape (its contribution when nearly as good).
    ``members``: when the question names something ("which papers use FooNet"), exactly the abstracts naming it,
    each quoted by its best sentence mentioning one of ``mentions`` (else its contribution).
    ``margin``: papers join when their membership score is within this of the best paper's (default
    ``policy.list_margin``; also applied to ``members`` when given). ``coverage``: abstract id -> the share of the
    question's topic it covers (rag.evidence.topic_coverage); with it, papers other than ``members`` join only when
    they cover at least ``min_coverage`` (the best paper alone when none does). ``with_contribution``: each paper's line also quotes its best other
    contribution sentence, one saying what the work proposes when there is one (see has_role): a yes/no answer says
    what the work that addresses it contributes. ``own_names``: abstract id -> the name of its work (rag.lexicon.
    own_names), for papers whose label does not show it: a line that does not name the work quotes, as that other
    sentence, the paper's best one naming it, so every line says which work it is. ``prefer_named``: otherwise that
    sentence is first one giving a name to what the work introduces, when the paper has one (see has_role,
    "named"). ``with_finding``: each line also quotes the paper's finding (see finding_of) when it has none.
    With ``policy.list_member_weights`` set, the papers other than ``members`` are chosen by the membership model
    instead of the margin and coverage cuts (rag.membership: several features per paper, ``order`` the retrieval
    ranking, ``shape`` the question's shape); the plan keeps each candidate's features either way. ``detail_roles``:
    each line also quotes the sentence right after the work's proposal when it has one of these roles (see
    _list_plan). ``with_availability``: each line also quotes the paper's sentence saying where its code, data or
    models are, when it has one (a request for papers that release them). ``open_members``: ``members`` are not
    the whole answer (the topic has a part no name stands for, "FooNet or graph matching"): the papers the
    membership model chooses join them, each quoted as any topic's paper."""
    policy = policy or AnswerPolicy()
    best = best_per_abstract(evidence)
    if not best:
        return ExtractivePlan([], [], "list")
    member_score = membership_scores(evidence, coverage, policy.list_coverage_weight)
    ranked = sorted(best.values(), key=lambda e: (-member_score[e.abstract_id], e.row))
    top = member_score[ranked[0].abstract_id]
    cutoff = max(policy.list_floor, top - (policy.list_margin if margin is None else margin))
    if members:
        chosen = [e for e in ranked if e.abstract_id in set(members)]
        if margin is not None:
            chosen = [e for e in chosen if member_score[e.abstract_id] >= cutoff] or chosen[:1]
        chosen = chosen[: policy.list_max]
        others: list[EvidenceSentence] = []
        if open_members and policy.list_member_weights:
            features = paper_features(evidence, coverage, order, shape, policy.list_member_candidates, facets)
            weights, bias = policy.list_member_weights, policy.list_member_bias
            kept = set(membership.members(features, weights, bias, policy.list_member_cut, policy.list_max))
            others = [e for e in ranked if e.abstract_id in kept and e.abstract_id not in set(members)]
            others = others[: max(0, policy.list_max - len(chosen))]
        if chosen:
            quoted = [_mentioning(member, evidence, mentions, policy.contribution_margin) for member in chosen]
            quoted += [_contribution_of(other, evidence, policy.contribution_margin) for other in others]
            chosen = [*chosen, *others]
            return _list_plan(
                quoted, evidence, lead, with_contribution, own_names, prefer_named, chosen, with_finding, with_topic,
                detail_roles, with_availability, policy.naming_follows,
            )  # fmt: skip

    def covered(aid: str) -> bool:
        return coverage is None or coverage.get(aid, 0.0) >= min_coverage

    features = paper_features(evidence, coverage, order, shape, policy.list_member_candidates, facets)
    if policy.list_member_weights:
        weights, bias = policy.list_member_weights, policy.list_member_bias
        kept = set(membership.members(features, weights, bias, policy.list_member_cut, policy.list_max))
        chosen = [e for e in ranked if e.abstract_id in kept] or ranked[:1]
    else:
        chosen = [e for e in ranked if member_score[e.abstract_id] >= cutoff and covered(e.abstract_id)]
        chosen = chosen[: policy.list_max] or ranked[:1]
    chosen = sorted(chosen, key=lambda e: (-e.score, e.row))  # listed in the order their lines answer best
    quoted = [_contribution_of(member, evidence, policy.contribution_margin) for member in chosen]
    plan = _list_plan(
        quoted, evidence, lead, with_contribution, own_names, prefer_named, chosen, with_finding, with_topic,
        detail_roles, with_availability, policy.naming_follows,
    )  # fmt: skip
    return replace(plan, candidates=features)


def membership_scores(
    evidence: Sequence[EvidenceSentence], coverage: Mapping[str, float] | None = None, coverage_weight: float = 0.0
) -> dict[str, float]:
    """How strongly each paper belongs in a list answer: the relevance of its best sentence (its score without the
    role bonus: a paper whose sentence on the topic is background still counts; the role picks which sentence to
    quote, not whether the paper belongs), plus ``coverage_weight`` times the share of the question's topic the
    paper covers (``coverage``, rag.evidence.topic_coverage): a paper using the topic's rare words throughout is
    about it even when no one sentence says it in the question's words."""
    scores: dict[str, float] = {}
    for e in evidence:
        scores[e.abstract_id] = max(scores.get(e.abstract_id, float("-inf")), e.relevance)
    if coverage is not None and coverage_weight:
        scores = {aid: score + coverage_weight * coverage.get(aid, 0.0) for aid, score in scores.items()}
    return scores


def _list_plan(
    quoted: Sequence[EvidenceSentence],
    evidence: Sequence[EvidenceSentence],
    lead: str,
    with_contribution: bool,
    own_names: Mapping[str, str] | None = None,
    prefer_named: bool = False,
    bests: Sequence[EvidenceSentence] = (),
    with_finding: bool = False,
    with_topic: bool = False,
    detail_roles: Sequence[str] = (),
    with_availability: bool = False,
    naming: bool = False,
) -> ExtractivePlan:
    """Each paper's item: its line (``quoted``); with ``with_contribution``, also a sentence saying what the work is
    or does: the one naming the work when the line does not (``own_names``), else, when the line was moved from
    the paper's best sentence (``bests``) to its contribution, that best sentence (it states what was asked; not
    when it is setting: background, gap or availability), else its best other contribution sentence. With
    ``with_finding``, also the paper's finding (finding_of) when the item quotes no result sentence. With
    ``with_topic``, also the paper's sentence most about the question (topic_sentence) when the item does not quote
    it, after the rest: a line opens with what the work does, not with its setting. With ``detail_roles``, also the
    sentence right after the item's proposal (see has_role; else its first contribution sentence) when that one has
    one of these roles: an abstract names what it proposes, then says what it is made of ("We propose FooNet. It
    pairs a BarNet encoder with …"), which a line saying which work answers should carry too. With
    ``with_availability``, also the paper's first sentence saying where its code, data or models are, if any. With
    ``naming``, also the sentence right after a quoted one that names what it describes (with_naming)."""
    best_of = {e.abstract_id: e for e in bests}
    sentences: list[EvidenceSentence] = []
    for line in quoted:
        best = best_of.get(line.abstract_id)
        if with_contribution and line.role in _UNNAMING_ROLES:  # the line says what the work does, not its setting
            line = next((e for e in evidence if e.abstract_id == line.abstract_id and _says_what_it_does(e)), line)
        others = [e for e in evidence if e.abstract_id == line.abstract_id and e.row != line.row]
        name = (own_names or {}).get(line.abstract_id)
        extra = naming_sentence(line, others, name) if name else None
        roles = (
            ("named", "named_proposal", "proposal", "contribution")
            if prefer_named
            else ("named_proposal", "proposal", "contribution")
        )
        if best is not None and best.row != line.row and best.role not in _UNNAMING_ROLES:
            extra = extra or best  # the line moved to the contribution: the sentence answering best stays
        extra = extra or next((e for role in roles for e in others if has_role(e, role)), None)
        item = [line, extra] if with_contribution and extra is not None else [line]
        if detail_roles:  # the sentence detailing what the work proposes
            ordered = sorted(item, key=lambda e: e.row)
            anchor = next((e for e in ordered if has_role(e, "proposal")), None) or next(
                (e for e in ordered if e.role == "contribution"), None
            )
            detail = sentence_after(others, anchor, detail_roles) if anchor is not None else None
            if detail is not None and all(detail.row != e.row for e in item):
                item.append(detail)
        if with_finding and not any(e.role == "result" for e in item):
            finding = finding_of([e for e in others if e.row != getattr(extra, "row", None)])
            item += [finding] if finding is not None else []
        if with_availability and not any(e.role == "availability" for e in item):  # where its code or data are
            item += [e for e in others if says_where_released(e.role, e.text)][:1]
        if naming:  # "… fail at telling left from right. We call this failure FooBlindness."
            item = with_naming(item, others)
        item = with_enumeration(item, others)  # "First, we show … Second, we adapt …": the contributions it lists
        topic = topic_sentence(item, others) if with_topic else None
        # what the work does leads; the sentence tying it to the question (often its setting) follows it
        sentences.extend([*sorted(item, key=lambda e: e.row), *([topic] if topic is not None else [])])
    return ExtractivePlan(list(dict.fromkeys(e.abstract_id for e in quoted)), sentences, "list", lead=lead)


_UNNAMING_ROLES = frozenset({"background", "gap", "availability"})


def says_where_released(role: str, sentence: str) -> bool:
    """Whether a sentence says where a work's code, data or models are: its role is availability, or, glued by the
    splitter to another sentence whose role it took ("… F1. Code is available at …"), it states it anyway."""
    return role == "availability" or states_availability(sentence)


def topic_sentence(item: Sequence[EvidenceSentence], others: Sequence[EvidenceSentence]) -> EvidenceSentence | None:
    """The sentence of ``others`` (the paper's sentences not its line) most about the question, by relevance (its
    score whatever its role), when it is more about it than every sentence of ``item``; None otherwise. A list line
    says what the work does, but the sentence tying the paper to the topic asked about is often its opening or its
    gap ("Probabilistic neurosymbolic methods rely on weighted model counting …"): the item quotes both, so it says
    how the paper relates to the question, not only what it contributes. Never an availability line."""
    quoted = {e.row for e in item}
    candidates = [e for e in others if e.row not in quoted and e.role != "availability"]
    if not item or not candidates:
        return None
    best = max(candidates, key=lambda e: (e.relevance, -e.row))
    return best if best.relevance > max(e.relevance for e in item) else None


def finding_of(sentences: Sequence[EvidenceSentence]) -> EvidenceSentence | None:
    """What a paper finds: of its result ``sentences``, the best-scoring one stating what the work shows ("We show
    that …", see states_finding), else the best-scoring one; None when it has no result sentence."""
    results = [e for e in sentences if e.role == "result"]
    if not results:
        return None
    return max(results, key=lambda e: (states_finding(e.text), e.score, -e.row))


def _says_what_it_does(e: EvidenceSentence) -> bool:
    """A method or result sentence, or a contribution saying what the work does about its problem (not "We study
    this question")."""
    return e.role in ("method", "result") or has_role(e, "proposal")


def naming_sentence(line: EvidenceSentence, others: Sequence[EvidenceSentence], name: str) -> EvidenceSentence | None:
    """When ``line`` does not name the work (``name``), the best of ``others`` that does and says what the work does
    (not background, gap or availability); None when the line names it or no such sentence exists."""
    if term_occurs(name, line.text.lower()):
        return None
    return next((e for e in others if e.role not in _UNNAMING_ROLES and term_occurs(name, e.text.lower())), None)


def _mentioning(
    best: EvidenceSentence, evidence: Sequence[EvidenceSentence], mentions: Sequence[str], margin: float
) -> EvidenceSentence:
    """The paper's best sentence that mentions one of the names asked about, else its list line."""
    wanted = [m.lower() for m in mentions if m]
    for e in evidence:
        if e.abstract_id == best.abstract_id and any(term_occurs(m, e.text.lower()) for m in wanted):
            return e
    return _contribution_of(best, evidence, margin)


def _contribution_of(best: EvidenceSentence, evidence: Sequence[EvidenceSentence], margin: float) -> EvidenceSentence:
    """The paper's line in a list: its best contribution sentence when nearly as relevant as its best sentence."""
    for e in evidence:
        if e.abstract_id == best.abstract_id and e.role == "contribution":
            return e if e.score >= best.score - margin else best
    return best


_NOVELTY = re.compile(r"\b(?:propose[sd]?|introduce[sd]?|present(?:s|ed)?|develop(?:s|ed)?|call|term(?:ed)?)\b", re.I)


_SECONDARY = re.compile(r"^(?:[^,]{0,60},\s+)?(?:we|this\s+(?:paper|work))\s+(?:also|further|additionally)\b", re.I)


def plan_compare(
    works: Sequence[tuple[str, Sequence[EvidenceSentence]]],
    asked: dict[str, Sequence[EvidenceSentence]] | None = None,
    asked_label: str = "",
    policy: AnswerPolicy | None = None,
) -> ExtractivePlan:
    """A row per work (abstract id, its scored sentences best first), the same aspects for each where it has them.

    Each row quotes what the work proposes, the sentence detailing it and what it finds, the way a single-paper
    answer does (plan_single, AnswerPolicy.core_shapes). "What it does": the work's contribution sentence, one
    saying what it proposes or introduces when there is one ("We study X" says less than "We propose FooNet"), its
    main one rather than one added to it ("We also provide …", "We further propose …"), with the sentence right
    after it when that one is a further contribution ("It also releases …"; AnswerPolicy.compare_detail_roles).
    "How": the method sentence right after it ("FooNet first encodes …"), then the best method sentences after the
    first contribution (AnswerPolicy.compare_how_sentences in all; one before it only when there is none: it
    describes the setting). "Results": a result sentence stating what the work shows ("We prove that …", see
    states_finding) when it has one, else its best result sentence after its first contribution. ``asked``: when
    the comparison asks about something ("… in terms of the data they use"), each work's sentences scored for
    that, best first: a column headed
    ``asked_label`` quotes each work's best one not already in its row."""
    policy = policy or AnswerPolicy()
    rows: list[tuple[str, list[list[EvidenceSentence]]]] = []
    for aid, evidence in works:
        # what the work does, how and what it finds follow its first contribution sentence; a sentence before it
        # describes the setting the work starts from, whatever its wording
        start = min((e.row for e in evidence if e.role == "contribution"), default=None)

        def before(e: EvidenceSentence, start: int | None = start) -> bool:
            return start is not None and e.row < start

        contributions = [e for e in evidence if e.role == "contribution"]  # best first: min keeps the best of a key
        # the main contribution, not one added to it ("We also provide …", "We further propose …")
        does = min(
            contributions, key=lambda e: (bool(_SECONDARY.search(e.text)), not _NOVELTY.search(e.text)), default=None
        )
        if does is None:  # no contribution sentence: the best sentence says what the work is about
            does = next((e for e in evidence if e.role != "availability"), None)
        what = [does] if does is not None else []
        detail = sentence_after(evidence, does, policy.compare_detail_roles) if does is not None else None
        if detail is not None and detail.role != "method":  # a further contribution sentence ("It also releases …"): what it does too
            what.append(detail)
        if does is not None and len(what) < policy.compare_what_sentences:  # what it holds, said further on
            other = next((e for e in contributions if e not in what and not _SECONDARY.search(e.text)), None)
            what += [other] if other is not None else []
        what = sorted(what, key=lambda e: e.row)
        used = {e.row for e in what}
        # how: the method sentence detailing the proposal, then the best other ones after the first contribution
        methods = [e for e in evidence if e.role == "method" and e.row not in used]
        later = [e for e in methods if not before(e)]
        how = [e for e in [detail, *later] if e is not None and e.role == "method"] or methods[:1]
        how = list(dict.fromkeys(how))[: policy.compare_how_sentences]
        used |= {e.row for e in how}
        results = [e for e in evidence if e.role == "result" and e.row not in used]
        found = min(results, key=lambda e: (not states_finding(e.text), before(e)), default=None)
        used |= {found.row} if found is not None else set()
        cells = [what, sorted(how, key=lambda e: e.row), [found] if found else []]
        if asked is not None:
            on_it = next((e for e in asked.get(aid, ()) if e.row not in used and e.role != "availability"), None)
            cells.insert(1, [on_it] if on_it else [])
        rows.append((aid, cells))
    sentences = [e for _, cells in rows for cell in cells for e in cell]
    names = [name for name, _ in ASPECTS]
    columns = [names[0], _header(asked_label), *names[1:]] if asked is not None else names
    return ExtractivePlan([aid for aid, _ in rows], sentences, "table", rows, columns=columns)


def _header(text: str, most: int = 48) -> str:
    text = " ".join(text.split()).strip(" ?.") or "Asked about"
    text = text[:1].upper() + text[1:]
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


def render(plan: ExtractivePlan, abstracts: dict[str, Abstract], as_list: bool | None = None) -> str:
    numbers = {aid: i for i, aid in enumerate(plan.abstract_ids, start=1)}
    layout = "list" if as_list else plan.layout
    if layout == "table":
        columns = plan.columns or [name for name, _ in ASPECTS]
        header = "| Work | " + " | ".join(_cell(name) for name in columns) + " |"
        lines = [header, "|" + " --- |" * (len(columns) + 1)]
        for aid, cells in plan.rows:
            texts = [_cell(" ".join(with_marker(e.text, numbers[aid]) for e in cell)) or "—" for cell in cells]
            lines.append(f"| **{_cell(abstracts[aid].label)}** [{numbers[aid]}] | " + " | ".join(texts) + " |")
        return (plan.lead + "\n\n" if plan.lead else "") + "\n".join(lines)
    if layout == "themes":  # one item per theme: its words, its papers nearest its centre, the nearest one's quote
        lines = []
        for words, ids, size in plan.themes:
            named = ", ".join(f"{abstracts[aid].label} [{numbers[aid]}]" for aid in ids)
            more = f" and {size - len(ids)} more" if size > len(ids) else ""
            quotes = " ".join(with_marker(e.text, numbers[e.abstract_id]) for e in plan.sentences if e.abstract_id == ids[0])
            lines.append(f"- **{words}** ({size} paper{'s' * (size != 1)}: {named}{more}): {quotes}")
        return (plan.lead + "\n" if plan.lead else "") + "\n".join(lines)
    if layout == "list":  # one item per paper, its quoted sentences in plan order
        items: dict[str, list[str]] = {}
        for e in plan.sentences:
            items.setdefault(e.abstract_id, []).append(with_marker(e.text, numbers[e.abstract_id]))
        body = "\n".join(f"- **{abstracts[aid].label}**: {' '.join(texts)}" for aid, texts in items.items())
        return (plan.lead + "\n" if plan.lead else "") + body
    body = " ".join(with_marker(e.text, numbers[e.abstract_id]) for e in plan.sentences)
    return (plan.lead + " " if plan.lead else "") + body


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
