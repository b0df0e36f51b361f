"""Question -> verified, cited Answer: retrieve, select evidence, decide abstention, compose, verify.

One flow for every front end. ``stream_answer`` yields text as it is produced and ends with the Answer. Its steps:
``prepare_question`` (follow-ups, translation) -> ``rank`` -> ``select_evidence`` -> ``decide_abstention`` (these
three are ``retrieve``) -> ``compose_answer`` (compose, verify, fall back). rag/query_engine.py runs the same steps
as LlamaIndex components (a retriever, two node postprocessors, a response synthesizer).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from rag.abstain import (
    LIST_SHAPES,
    AbstentionSignals,
    answer_windows,
    decide,
    english_rarity,
    features,
    idf_weights,
    largest_idf,
    least_missing,
    matched_mass,
    mean_similarity,
    measure_unwritten,
    mentioned_in,
    mistyped_stems,
    names_counted,
    names_new,
    number_near,
    peak_above_median,
    rarity_share,
    slot_missing,
    spelled_out,
    spelt_out_in,
    stated_values,
    values_in,
    with_long_forms,
    without_compounds,
)
from rag.answer import Answer, AnswerSentence, Citation, Source, StreamEvent, TextDelta, Timings
from rag.cite import (
    Support,
    VerifiedSentence,
    split_answer,
    verify_sentences,
)
from rag.compose import GenerationStats, extractive
from rag.compose.prompts import ABSTAIN_TEXT
from rag.errors import GenerationError, RagError
from rag.evidence import (
    EvidenceSentence,
    distinctive_words,
    paper_similarity,
    rows_of,
    score_sentences,
    topic_coverage,
    topic_presence,
)
from rag.followup import (
    FOLLOW_UP_TO,
    GROUPS_LEAD,
    answered_groups,
    asks_closest,
    asks_similar,
    condense_heuristic,
    each_ask,
    elliptic_ask,
    group_ask,
    group_reference,
    is_opening_words,
    last_sources,
    last_user_question,
    more_aspect,
    more_role,
    names_joined,
    other_source,
    own_ask,
    points_by_position,
    pronoun_source,
    referred_works,
    resolve_described,
    similar_to_tail,
    with_names,
    with_works_named,
)
from rag.gloss import gloss, has_chinese, readable_by_encoder, research_words
from rag.lexicon import (
    GENERIC_TERMS,
    Link,
    Linking,
    Vocabulary,
    english_words,
    introduces,
    is_name_like,
)
from rag.membership import OWN_ROLES, facet_similarities
from rag.policy import AnswerPolicy
from rag.question import (
    ANSWER_CATEGORY_STEMS,
    QUANTITY_STEMS,
    RELATION_STEMS,
    RELEASE_WORDS,
    QuestionProfile,
    alternative_parts,
    answer_type,
    asked_aspect,
    asked_phrase,
    asks_bound,
    asks_collection_overview,
    asks_count,
    asks_for_released,
    asks_kind_of,
    asks_model,
    asks_quantity,
    choice_parts,
    clauses,
    compare_aspect,
    compare_parts,
    compared_topic,
    coordinated_parts,
    counted_unnamed,
    described_work_words,
    describes_a_kind,
    describes_work,
    details_asked,
    fix_shape_words,
    in_examples,
    is_more_request,
    list_topic,
    looks_like_model_name,
    measure_modifiers,
    profile,
    sets_side_by_side,
    states_answer_type,
    states_bound,
    states_detail,
    states_unit,
    term_occurs,
    topic_facets,
    topic_phrase,
    unit_asked,
    value_asked,
    work_description,
)
from rag.retrieve import (
    HybridRetriever,
    IndexSnapshot,
    RankedAbstract,
    correct_question,
    link_question,
    named_weights,
)
from rag.roles import asks_for_availability
from rag.settings import VerifyPolicy
from rag.similar import nearest_others, plan_similar, source_vector
from rag.text import content_words, numbers_in, stem
from rag.themes import Theme, find_themes, words_and_forms
from rag.word_frequency import zipf_frequency

if TYPE_CHECKING:
    from rag.verify import Verdict

log = logging.getLogger(__name__)

NOT_ENGLISH_NOTICE = (
    "The question is not in English and the encoder reads English only: the abstracts were matched by the names "
    "and numbers in it, and the answer quotes the English abstracts."
)
GLOSS_NOTICE = (
    "The question is not in English: it was translated word by word with a dictionary (CC-CEDICT) to find the "
    "abstracts, and the answer quotes the English abstracts."
)

GENERIC_STEMS = frozenset(content_words(" ".join(GENERIC_TERMS)))


@dataclass(slots=True)
class Retrieved:
    """Everything retrieval and evidence selection produced for one question."""

    question: str
    profile: QuestionProfile
    vector: np.ndarray
    ranked: list[RankedAbstract]
    plan: extractive.ExtractivePlan
    abstain: bool
    abstain_reason: str
    seconds: float
    abstention_score: float = 0.0
    linking: Linking | None = None
    readable: bool = True
    signals: AbstentionSignals | None = None
    corrections: list[str] = field(default_factory=list)  # corpus spellings of mistyped words


# shapes whose answer is about one paper; naming two works of the corpus makes one of them a comparison
_ONE_PAPER_SHAPES = frozenset({"fact", "number", "name", "how_why"})


def _works_named(snapshot: IndexSnapshot, linking: Linking, text: str) -> list[str]:
    """The abstracts of the corpus's own works the text names: names an abstract alone uses and introduces ("we
    propose FooNet") or states its contribution with ("our proposed FooBench contains …"), not a benchmark it
    merely reports results on."""

    def own_work(aid: str, name: str) -> bool:
        text = snapshot.abstracts[aid].text
        if introduces(text, name):
            return True
        roles, texts = snapshot.sentence_roles, snapshot.sentence_texts
        return any(roles[row] == "contribution" and name in texts[row].lower() for row in snapshot.sentence_rows[aid])

    # a label of several words ("the Token Hypothesis") is the name its paper introduces
    named = sorted([*linking.works_named(text, own_work), *snapshot.labels_named(text)])
    return list(dict.fromkeys(aid for _, aid in named))


def _offers_works(snapshot: IndexSnapshot, linking: Linking, text: str) -> bool:
    """A choice between two works ("which is faster, the DQN paper or FooNet?"): each part names one of the corpus's
    own works or describes a work; not a choice between two things one paper reports ("GPT-4o or Claude")."""

    def names_a_work(part: str) -> bool:  # a name some abstract introduces as its own, even one others use too
        return any(
            link.exact
            and link.mention.lower() in part.lower()
            and any(introduces(snapshot.abstracts[aid].text, link.name.surface.lower()) for aid in link.name.abstract_ids)
            for link in linking.links
        )

    parts = choice_parts(text)
    return len(parts) == 2 and all(describes_work(p) or names_a_work(p) for p in parts)


def _owner_of(snapshot: IndexSnapshot, link: Link) -> str:
    """The abstract a linked name is most about: its label, else the one using the name most often."""
    name = link.name.surface.lower()
    ids = sorted(link.name.abstract_ids)
    labelled = [aid for aid in ids if snapshot.abstracts[aid].label.lower() == name]
    if labelled:
        return labelled[0]
    return max(ids, key=lambda aid: (snapshot.abstracts[aid].text.lower().count(name), aid))


def retrieve(
    question: str,
    snapshot: IndexSnapshot,
    retriever: HybridRetriever,
    top_k: int,
    policy: AnswerPolicy | None = None,
    *,
    more: tuple[list[str], set[str]] | None = None,
    pinned: Sequence[str] = (),
    glossed: bool = False,
) -> Retrieved:
    """Retrieve, plan the answer by the question's shape and score abstention.

    ``more``: a "tell me more" follow-up: (the previous answer's abstract ids, the sentences it quoted).
    ``pinned``: abstracts a follow-up refers to ("the second one"); they rank first.
    ``glossed``: the question is a word-by-word dictionary translation (rag.gloss): its words are one sense of
    many, so the signals that compare its words with the abstract's (focus, topic, similarity) are left out.
    """
    policy = policy or AnswerPolicy()
    ranking = rank(question, snapshot, retriever, top_k, policy, more=more, pinned=pinned)
    plan = select_evidence(ranking, snapshot, retriever, policy, more=more, glossed=glossed)
    return decide_abstention(ranking, plan, snapshot, top_k, policy, pinned=pinned, glossed=glossed)


@dataclass(slots=True)
class Ranking:
    """The first step of answering: the question read (spelling, shape, linked names), encoded, and the abstracts
    ranked for it (at least ``policy.evidence_abstracts`` of them)."""

    question: str
    profile: QuestionProfile
    vector: np.ndarray
    ranked: list[RankedAbstract]
    linking: Linking
    readable: bool
    weights: dict[str, float]  # abstract id -> link strength (pinned abstracts included)
    unmatched: bool  # nothing links or matches an unreadable question: ranked is the encoder's guess
    corrections: list[str]
    started: float


def rank(
    question: str,
    snapshot: IndexSnapshot,
    retriever: HybridRetriever,
    top_k: int,
    policy: AnswerPolicy | None = None,
    *,
    more: tuple[list[str], set[str]] | None = None,
    pinned: Sequence[str] = (),
    similar: Sequence[str] = (),
) -> Ranking:
    """Correct the spelling, profile the question, link its names and rank abstracts (``retrieve``'s first step).
    ``similar``: the earlier papers a follow-up asks for more like: the others closest to them (rag.similar)."""
    policy = policy or AnswerPolicy()
    started = time.perf_counter()
    if NEAREST_ASKED in similar:  # after a refusal: the abstracts nearest the refused question by meaning
        vector = retriever.embedder.encode([question])[0]
        nearest = nearest_others(retriever, vector, (), policy.similar_papers)
        return Ranking(question, profile(question), vector, nearest, Linking(), True, {}, False, [], started)
    if similar:
        vector = source_vector(snapshot, similar)
        if vector is not None:
            nearest = nearest_others(retriever, vector, similar, policy.similar_papers)
            prof = profile(question)
            return Ranking(question, prof, vector, nearest, Linking(), True, {}, False, [], started)
        if NO_EARLIER_PAPERS in similar:  # "anything similar?" opening a conversation: like nothing yet
            vector = retriever.embedder.encode([question])[0]
            return Ranking(question, profile(question), vector, [], Linking(), True, {}, False, [], started)
    # "paers on …", "is tehre a paper": the words of the question's shape first, then names and words
    corrected, fixes = correct_question(snapshot, question, policy)
    prof = profile(corrected)
    if more is not None:
        prof = replace(prof, shape="followup")
    readable = readable_by_encoder(question)
    linking = link_question(snapshot, prof.text, policy)
    if (
        prof.shape in _ONE_PAPER_SHAPES
        and sets_side_by_side(prof.text)
        and (len(_works_named(snapshot, linking, prof.text)) >= 2 or _offers_works(snapshot, linking, prof.text))
    ):
        # a question setting two works of the corpus side by side asks about both, however it is worded ("Between
        # FooNet and BarNet, which one is a metric?", "For X and Y, what does each reduce?"): one section per work
        prof = replace(prof, shape="compare")
    embedder = retriever.embedder
    vector = embedder.encode([prof.text])[0]
    weights = named_weights(snapshot, linking, prof.text)
    if prof.shape in _ONE_PAPER_SHAPES and len(linking.links) > 1 and policy.named_work_weight:
        works = _works_named(snapshot, linking, prof.text)
        if len(works) == 1:  # the one work of the corpus the question names is the one it asks about
            weights[works[0]] = weights.get(works[0], 0.0) + policy.named_work_weight
    for aid in pinned:
        weights[aid] = weights.get(aid, 0.0) + 3.0  # a reference resolved to this paper outranks any match
    ranked = retriever.search(
        prof.text,
        max(top_k, policy.evidence_abstracts),
        query_vector=vector,
        linked=weights,
        dense_weight=None if readable else 0.0,
    )
    unmatched = not ranked and not readable
    if unmatched:  # nothing in it links or matches: abstain, with the encoder's guess as the nearest
        ranked = retriever.search(prof.text, max(top_k, policy.evidence_abstracts), query_vector=vector)
    return Ranking(question, prof, vector, ranked, linking, readable, weights, unmatched, fixes, started)


def select_evidence(
    ranking: Ranking,
    snapshot: IndexSnapshot,
    retriever: HybridRetriever,
    policy: AnswerPolicy | None = None,
    *,
    more: tuple[list[str], set[str]] | None = None,
    ask: str | None = None,
    similar: Sequence[str] = (),
    glossed: bool = False,
    each: Sequence[str] = (),
    group_lead: str = "",
) -> extractive.ExtractivePlan:
    """Score the candidate sentences and plan the answer by the question's shape (``retrieve``'s second step).

    ``glossed``: the question was read through a word-by-word gloss (rag.gloss): what it asks for is read loosely
    (extractive.plan_single's ``loose``).

    ``ask``: a follow-up's own question (rag.followup.own_ask) when it refers to an earlier answer's paper: that
    paper's sentences are chosen for it ("how does it work?" -> the method), not for the rewritten question, which
    carries the earlier question along to find the paper; for a "tell me more" follow-up (``more``), the role it
    asks for (rag.followup.more_role) comes first; for a follow-up about several earlier works together (``each``,
    rag.followup.referred_works), each work's own sentences for it (_plan_each); ``group_lead``: those works are a
    group of an earlier grouping of the collection ("tell me more about the second theme"), one sentence each under
    this lead."""
    policy = policy or AnswerPolicy()
    prof, vector, ranked, linking, readable, weights = (
        ranking.profile, ranking.vector, ranking.ranked, ranking.linking, ranking.readable, ranking.weights
    )  # fmt: skip
    phrase_vectors = {ranking.profile.text: ranking.vector}

    def phrase_vector(phrase: str) -> np.ndarray:  # encoded once: topic_peak and topic_far read the same phrase
        if phrase not in phrase_vectors:
            phrase_vectors[phrase] = retriever.embedder.encode([phrase])[0]
        return phrase_vectors[phrase]

    embedder = retriever.embedder

    def screened(as_list: QuestionProfile, as_vector: np.ndarray) -> tuple[QuestionProfile, extractive.ExtractivePlan]:
        # the plan of a request for papers, whose signals decide_abstention reads in place of the question's own
        return as_list, select_evidence(replace(ranking, profile=as_list, vector=as_vector), snapshot, retriever,
                                        policy, ask=ask, glossed=glossed)  # fmt: skip

    screen = None
    if prof.asks_paper and not similar and more is None:
        # "Which paper proposes X?" is answered about the one paper that does; whether any paper does is read from
        # the request for papers on X, every paper near the topic
        screen = screened(profile(prof.text, one_paper=False), vector)
    topic = compared_topic(prof.text) if prof.shape == "compare" and not similar and more is None else None
    topic_works: list[str] = []
    if topic is not None and len(_works_named(snapshot, linking, prof.text)) < 2:
        # "compare the two calibration papers": the works are those a request for papers on the topic lists ("the
        # two …": that many), and whether there are any is read from that request
        as_list = profile(f"Which papers are about {topic[0]}?", one_paper=False)
        topic_vector = embedder.encode([as_list.text])[0]
        screen = screened(as_list, topic_vector)
        topic_works = screen[1].abstract_ids[: topic[1] or policy.compare_topic_works]
        if len(topic_works) < 2:  # one paper on the topic: the next nearest to it is the other
            found = [r.abstract.id for r in retriever.search(as_list.text, 3, query_vector=topic_vector)]
            topic_works = list(dict.fromkeys([*topic_works, *found]))[:2]
    dense_share = 1.0 if readable else 0.0

    def scored(p: QuestionProfile, rows, asked_vector: np.ndarray | None = None) -> list[EvidenceSentence]:
        return score_sentences(p, vector, snapshot, rows, policy, dense_weight=dense_share, asked_vector=asked_vector)

    def asked_phrase_of(text: str, names: Sequence[str]) -> str:  # what ``text`` asks of the named work(s)
        return asked_phrase(text, names) if readable and policy.asked_weight else ""

    def asked_of(names: Sequence[str]) -> str:  # what the question asks about the named work(s), when readable
        return asked_phrase_of(prof.text, names)

    shape = prof.shape
    evidence: list[EvidenceSentence]
    works: list[str] = []  # a comparison's works; one when all it compares is one paper's
    if NO_EARLIER_PAPERS in similar:  # "anything similar?" opening a conversation: nothing to be like
        plan = extractive.ExtractivePlan([], [])
    elif similar and ranking.ranked:  # "anything similar?": a line per other paper closest to the earlier ones
        per_paper = [(r.abstract.id, scored(prof, rows_of(snapshot, [r.abstract.id]))) for r in ranked]
        names = [snapshot.own_name(aid) or snapshot.abstracts[aid].label for aid in similar if aid in snapshot.abstracts]
        plan = plan_similar(per_paper, names)
        if NEAREST_ASKED in similar:
            plan = replace(plan, lead="No abstract answers the earlier question; the closest by what they say:")
    elif each and group_lead and not ask:  # "tell me more about the second theme": its papers, a line each
        theme = next((t for t in collection_themes(snapshot, policy) if list(t.abstract_ids) == list(each)), None)
        quoted = [_theme_quote(snapshot, scored(prof, rows_of(snapshot, [aid])), theme) for aid in each if theme]
        lines = [e for e in quoted if e is not None]
        plan = extractive.ExtractivePlan([e.abstract_id for e in lines], lines, "list", lead=group_lead, known=True)
    elif each and ask:  # "do both release code?", "which one is faster?": a line per earlier work
        plan = _plan_each(each, ask, snapshot, embedder, policy, readable, 1 if group_lead else None)
        if group_lead:  # "which papers of the second theme use graphs?": those of the group's papers, a line each
            plan = replace(plan, lead=" ".join(filter(None, [group_lead, plan.lead])))
    elif more is not None and more[0]:
        ids = [aid for aid in more[0] if aid in snapshot.abstracts]
        aspect = more_aspect(ask) if ask and readable else ""
        if aspect:  # "tell me more about the second failure mode": the unseen sentences nearest what it names
            evidence = score_sentences(profile(aspect), embedder.encode([aspect])[0], snapshot, rows_of(snapshot, ids),
                                       policy)  # fmt: skip
        else:
            evidence = scored(prof, rows_of(snapshot, ids))
        role = more_role(ask) if ask else None
        plan = extractive.plan_more(ids, evidence, more[1], policy.more_sentences, policy.more_result_sentences, role,
                                    by_score=bool(aspect))  # fmt: skip
        plan = replace(plan, known=True)  # more of what was answered: not refused for the earlier question's ask
    elif shape == "compare" and len(works := _compare_works(prof, snapshot, retriever, linking, policy,
                                                             listed=topic_works)) >= 2:
        asked_text = asked_of([*compare_parts(prof.text), *(link.mention for link in linking.links)])
        asked_vector = embedder.encode([asked_text])[0] if asked_text else None
        per_work = [(aid, scored(prof, rows_of(snapshot, [aid]), asked_vector)) for aid in works]
        evidence = [e for _, ev in per_work for e in ev]
        aspect = compare_aspect(prof.text)
        asked = None
        if aspect and readable:  # "… in terms of the data they use": each work's sentence on that
            aspect_profile, aspect_vector = profile(aspect), embedder.encode([aspect])[0]
            if aspect_profile.kind != "number" and asks_quantity(aspect):  # "compare the size of X and Y"
                aspect_profile = replace(aspect_profile, kind="number", asks_count=asks_count(aspect))
            asked = {
                aid: score_sentences(aspect_profile, aspect_vector, snapshot, rows_of(snapshot, [aid]), policy)
                for aid in works
            }
        plan = extractive.plan_compare(per_work, asked, aspect, policy)
    elif more is None and not each and asks_collection_overview(prof.text):  # "what are the main themes here?"
        themes = collection_themes(snapshot, policy)
        named = [list(theme.abstract_ids[: policy.overview_named]) for theme in themes]
        quoted = [_theme_quote(snapshot, scored(prof, rows_of(snapshot, ids[:1])), theme) for ids, theme in
                  zip(named, themes, strict=True)]  # fmt: skip
        plan = extractive.ExtractivePlan(
            [aid for ids in named for aid in ids],
            [e for e in quoted if e is not None],
            "themes",
            lead=f"The {len(snapshot.abstracts)} {GROUPS_LEAD.format(count=len(themes))}, each described "
            "by the words most distinctive of its papers and quoted by the paper nearest its centre:",
            known=True,
            themes=[
                (" · ".join(theme.words), ids, len(theme.abstract_ids))
                for theme, ids in zip(themes, named, strict=True)
            ],
        )
    elif prof.kind == "list":
        shortlist = list_shortlist(
            prof.text, retriever, vector, weights, policy, dense_weight=None if readable else 0.0, first=ranked
        )
        # names as written with capitals or digits ("FLUX", "Qwen", "SDXL"), or typed in lower case ("flux",
        # "qwen") when the corpus always capitalises them; not a lower-case term the corpus sometimes capitalises
        # ("mixture-of-experts")
        named_links = [
            link
            for link in linking.links
            if (
                is_name_like(link.mention)
                or link.mention[:1].isupper()
                or always_capitalised(
                    link.name.surface,
                    (snapshot.abstracts[aid].text for aid in link.name.abstract_ids),
                    policy.lowercase_name_zipf,
                )
            )
            and not in_examples(prof.text, link.mention)
            and not describes_a_kind(link.mention)
        ]
        named = sorted({aid for link in named_links for aid in link.name.abstract_ids}) if shape != "summary" else []
        topic = _topic_words(prof.topic_words)
        released = asks_for_released(prof.text)  # "which papers release code?", "X papers w/ code?"
        by_release = released and not named and not [w for w in topic if w not in RELEASE_WORDS]
        if by_release:  # no topic besides the release: the papers saying where theirs is (known without a search)
            named = released_works(snapshot)
        if named:  # "which papers use X": the papers that name X, whatever else scores well
            shortlist = list(dict.fromkeys([*named, *shortlist]))
        # "X or Y" where only X is a name ("papers on MRI or 3D medical volumes"): Y's papers are chosen as any topic's
        also_unnamed = bool(named) and unnamed_alternative(prof.text, topic, [link.mention for link in named_links])
        evidence = scored(prof, rows_of(snapshot, shortlist))
        present, doc_freq = topic_presence(snapshot, topic, among=shortlist)
        coverage = {
            aid: topic_coverage(topic, present.get(aid, ()), doc_freq, len(snapshot.abstracts)) for aid in shortlist
        }
        mentions = [link.name.surface for link in linking.links] + [link.mention for link in linking.links]
        facets = None
        if readable and topic:  # each paper by its sentences nearest each facet of the topic (membership)
            n_docs = len(snapshot.abstracts)  # a facet names something few abstracts write about
            specific = [w for w in topic if doc_freq.get(w, 0) <= policy.facet_max_doc_share * n_docs]
            phrases = topic_facets(prof.text, topic, specific)
            fresh = [phrase for phrase in phrases if phrase not in phrase_vectors]
            phrase_vectors.update(zip(fresh, embedder.encode(fresh), strict=True) if fresh else ())
            facet_vectors = np.stack([phrase_vector(phrase) for phrase in phrases])
            own_role = {e.row: e.role in OWN_ROLES for e in evidence}  # a sentence about the work itself
            rows = {aid: rows_of(snapshot, [aid]) for aid in shortlist}
            facets = facet_similarities(
                {aid: snapshot.sentence_vectors[rows[aid]] @ facet_vectors.T for aid in shortlist},
                {aid: [own_role.get(row, False) for row in rows[aid]] for aid in shortlist},
            )
        plan = extractive.plan_list(
            evidence,
            policy,
            lead="Yes — " + _yes_lead(shape) if shape == "yes_no" else "",
            members=named,
            mentions=mentions,
            open_members=also_unnamed,
            margin=None if by_release else policy.shape_list_margin.get(shape),
            # a one-line answer asked for ("a one-sentence summary of each paper on X"): each paper's line alone
            with_contribution=shape in policy.contribution_lines and not prof.asks_brief,
            with_finding=shape in policy.finding_lines and not prof.asks_brief,
            with_topic=shape in policy.topic_lines and not prof.asks_brief,
            detail_roles=policy.detail_roles if shape in policy.detail_lines and not prof.asks_brief else (),
            with_availability=released,
            coverage=coverage if topic else None,
            min_coverage=policy.list_min_coverage.get(shape, 0.0),
            own_names=unlabelled_names(snapshot, shortlist),
            prefer_named=shape in policy.named_sentence_shapes,
            order=shortlist,
            shape=shape,
            facets=facets,
        )
        if shape in policy.asked_term_shapes and not prof.asks_brief:
            plan = _with_asked_words(plan, prof.text, evidence, snapshot, policy)
        if by_release and named:
            plan = replace(plan, known=True)
        if readable:  # how each shortlisted paper resembles the question (abstention: topic_peak)
            if policy.topic_peak_sentences:  # by its sentences most like the topic, said without the request's words
                phrase = topic_phrase(prof.text, topic) if topic else prof.text
                topic_vector = phrase_vector(phrase) if phrase != prof.text else vector
                similarity = paper_similarity(snapshot, shortlist, topic_vector, policy.topic_peak_sentences)
            else:  # as a whole: the mean of its sentences' similarity to the question
                similarity = mean_similarity((e.abstract_id, e.dense) for e in evidence)
            plan = replace(plan, paper_similarity=similarity)
    else:
        top_ids = [r.abstract.id for r in ranked[: policy.evidence_abstracts]]
        if shape == "compare" and works:  # the things compared are all one paper's ("X vs Y" it sets side by side)
            top_ids = list(dict.fromkeys([*works, *top_ids]))
        if ask and ask.strip() != prof.text.strip():  # a follow-up: the paper's sentences for what it asks itself
            prof = _single_paper_profile(profile(fix_shape_words(elliptic_ask(ask))))  # "datasets?": which ones
            # the follow-up's references resolved ("how big is it" -> "how big is FooNet"), unless the rewrite carries
            # the earlier question along: its meaning, not a pronoun's, is what the paper's sentences should match
            resolved = ranking.profile.text if FOLLOW_UP_TO not in ranking.profile.text else prof.text
            vector = embedder.encode([resolved])[0]
        # a comparison within one paper: a sentence for each thing compared, as for each clause of a question
        parts = compare_parts(prof.text) if shape == "compare" and works else clauses(prof.text)
        names = work_names(snapshot, top_ids[0], linking) if top_ids else []
        asked_text = asked_of(names)
        # a single-paper compound question: each part is also answered as if asked alone (with_part_plans), scored,
        # like the whole question, by its own ask without the work's name
        plans_parts = bool(top_ids and parts and policy.part_plan_sentences and not (shape == "compare" and works))
        part_asked = [asked_phrase_of(part, names) for part in parts] if plans_parts else []
        part_asks = [asked for asked in part_asked if asked]
        # "what does FooNet report about X": X said alone, to read whether the paper treats it (abstention); not for a
        # follow-up rewritten against the conversation (``ask``): its aspect is an elliptic phrase ("and the layer
        # depth?") about a paper the conversation chose, which its abstract states in the earlier answer's words
        aspect = (
            asked_aspect(prof.text) if readable and not ask and shape not in LIST_SHAPES and shape != "compare" else ""
        )
        aspect = aspect if len(_detail_words(aspect)) in range(1, policy.described_max_words + 1) else ""
        texts = [*parts, *([asked_text] if asked_text else []), *part_asks, *([aspect] if aspect else [])]
        encoded = embedder.encode(texts) if texts else []
        part_vectors = encoded[: len(parts)]
        asked_vector = encoded[len(parts)] if asked_text else None
        first_ask = len(parts) + bool(asked_text)
        part_ask_vectors = dict(zip(part_asks, encoded[first_ask : first_ask + len(part_asks)], strict=True))
        aspect_vector = encoded[-1] if aspect else None
        evidence = scored(prof, rows_of(snapshot, top_ids), asked_vector)
        answer_id = top_ids[0] if top_ids else None
        own = [e for e in evidence if e.abstract_id == answer_id]
        clause_evidence = [
            score_sentences(profile(part), part_vector, snapshot, rows_of(snapshot, [answer_id]), policy)
            for part, part_vector in zip(parts, part_vectors, strict=True)
        ]
        plan = (
            extractive.plan_single(answer_id, own, prof, clause_evidence, policy, loose=glossed)
            if answer_id
            else extractive.ExtractivePlan([], [])
        )
        if plans_parts:
            part_evidence = [
                score_sentences(profile(part), part_vector, snapshot, rows_of(snapshot, [answer_id]), policy,
                                dense_weight=dense_share, asked_vector=part_ask_vectors.get(asked))  # fmt: skip
                for part, part_vector, asked in zip(parts, part_vectors, part_asked, strict=True)
            ]
            plan = with_part_plans(plan, parts, part_evidence, policy, loose=glossed)
        if answer_id and shape in policy.asked_term_shapes and plan.sentences and not prof.asks_brief:
            plan = _with_asked_words(plan, prof.text, own, snapshot, policy)
        if answer_id and aspect_vector is not None:  # the aspect's closest sentence of the answering abstract
            closest = float(np.max(snapshot.sentence_vectors[rows_of(snapshot, [answer_id])] @ aspect_vector))
            plan = replace(plan, aspect_similarity=closest)
        if prof is not ranking.profile and FOLLOW_UP_TO in ranking.profile.text:
            # a follow-up carrying the earlier question along only to find the paper ("and the baselines?"): what it
            # asks of that paper is its own ask, which chose the sentences and which abstention reads
            plan = replace(plan, asked=prof)
    if screen is not None:
        plan = replace(plan, screen=screen)
    if readable and ranked and policy.topic_far_papers:  # the topic said alone, by its meaning (abstention: topic_far)
        plan = _with_topic_far(plan, ranking, snapshot, phrase_vector, policy)
    return plan


def _with_asked_words(
    plan: extractive.ExtractivePlan,
    question: str,
    evidence: Sequence[EvidenceSentence],
    snapshot: IndexSnapshot,
    policy: AnswerPolicy,
) -> extractive.ExtractivePlan:
    """The plan with, for each paper it quotes, a sentence for each distinctive word of the question (rag.evidence.
    distinctive_words) its abstract uses but none of its quoted sentences holds (extractive.with_asked_words), placed
    after that paper's sentences; never a set-up sentence (policy.asked_term_skip_roles), a code or data line only
    when asked for one. ``evidence``: the scored sentences of the quoted papers, best first."""
    _, doc_freq = topic_presence(snapshot, list(dict.fromkeys(content_words(question))))
    words = distinctive_words(
        question, doc_freq, policy.asked_term_max_docs, policy.asked_term_max_zipf, zipf_frequency
    )
    if not words:
        return plan
    skip = {*policy.asked_term_skip_roles, *(() if asks_for_availability(question) else ("availability",))}
    evidence = [e for e in evidence if e.role not in skip]
    by_paper: dict[str, list[EvidenceSentence]] = {}
    for e in plan.sentences:
        by_paper.setdefault(e.abstract_id, []).append(e)
    sentences: list[EvidenceSentence] = []
    added: set[int] = set()
    for aid, quoted in by_paper.items():
        own = [e for e in evidence if e.abstract_id == aid]
        more = extractive.with_asked_words(quoted, own, words, policy.asked_term_extra)
        sentences.extend(more)
        added.update(e.row for e in more[len(quoted) :])
    if not added:
        return plan
    # shown, not read by abstention (part_rows): a sentence holding an asked word need not state what was asked
    return replace(plan, sentences=sentences, part_rows=plan.part_rows | added)


def _with_topic_far(
    plan: extractive.ExtractivePlan,
    ranking: Ranking,
    snapshot: IndexSnapshot,
    encode: Callable[[str], np.ndarray],
    policy: AnswerPolicy,
) -> extractive.ExtractivePlan:
    """The plan with the question's topic phrase (its topic words as written, rag.question.topic_phrase) read against
    the sentences of the best-ranked papers: its best similarity to one of them, and the English rarity of its rarest
    word. A field's term the corpus lacks is far from every sentence, even when the whole question is near a paper by
    its framing words ("which papers study X for LLMs"). ``encode``: a phrase -> its vector, each encoded once per
    question."""
    text = ranking.profile.text
    words = list_topic(text)
    phrase = topic_phrase(text, words) if words else text
    vector = encode(phrase)  # the question's own vector when the phrase is the whole question
    rows = rows_of(snapshot, [r.abstract.id for r in ranking.ranked[: policy.topic_far_papers]])
    if not rows:
        return plan
    closest = float(np.max(snapshot.sentence_vectors[rows] @ vector))
    # a name the corpus uses ("FLUX") is no field's term it lacks, however rare in English
    named = {w.lower() for link in ranking.linking.links for w in _PHRASE_WORD.findall(link.mention)}
    rarity = max(
        (
            english_rarity(w.lower(), policy.rarity_zipf_scale)
            for w in _PHRASE_WORD.findall(phrase)
            if content_words(w) and w.lower() not in named
        ),
        default=0.0,
    )
    return replace(plan, topic_similarity=closest, topic_rarity=rarity)


_PHRASE_WORD = re.compile(r"[A-Za-z][A-Za-z-]+")


def with_part_plans(
    plan: extractive.ExtractivePlan,
    parts: Sequence[str],
    part_evidence: Sequence[Sequence[EvidenceSentence]],
    policy: AnswerPolicy,
    *,
    loose: bool = False,
) -> extractive.ExtractivePlan:
    """A single-paper plan for a compound question ("what does X propose, and how much memory does it save?";
    rag.question.clauses) with, after its own sentences, each part's answer as that part alone would be answered
    (extractive.plan_single of the part): a number question's plan quotes the number, not what the work proposes.
    At most ``policy.part_plan_sentences`` new sentences per part (in reading order); they are marked
    (``part_rows``) so that abstention reads only the answer to the whole question."""
    if not plan.abstract_ids:
        return plan
    answer_id = plan.abstract_ids[0]
    rows = {e.row for e in plan.sentences}
    added: list[EvidenceSentence] = []
    # a part's few sentences are its answer; a short form they use is spelt out by the whole question's plan
    part_policy = policy.model_copy(update={"spelled_out_any_kind": False}) if policy.spelled_out_any_kind else policy
    for part, evidence in zip(parts, part_evidence, strict=True):  # each part's scored sentences of that paper
        if not evidence:
            continue
        sub = extractive.plan_single(answer_id, evidence, _single_paper_profile(profile(part)), (), part_policy, loose=loose)
        new = [e for e in sub.sentences if e.row not in rows][: policy.part_plan_sentences]
        rows.update(e.row for e in new)
        added.extend(new)
    if not added:
        return plan
    return replace(
        plan,
        sentences=[*plan.sentences, *sorted(added, key=lambda e: e.row)],
        part_rows=frozenset(e.row for e in added),
    )


def _plan_each(
    works: Sequence[str],
    ask: str,
    snapshot: IndexSnapshot,
    embedder,
    policy: AnswerPolicy,
    readable: bool,
    sentences: int | None = None,
) -> extractive.ExtractivePlan:
    """A follow-up asking something of each of several earlier works ("do both release code?", "which one is
    faster?", "what does each of them evaluate on?"): a list item per work quoting its sentences for that ask,
    chosen as a question about that work alone would choose them (extractive.plan_single), its best
    ``sentences`` (default ``policy.each_sentences``); never the earlier answer again. Asked whether code or data
    are out, a work answers
    with its availability line only, and those without one are named in the lead as not saying."""
    asked = _single_paper_profile(profile(fix_shape_words(ask)))
    vector = embedder.encode([ask])[0]
    availability = answer_type(asked.text, asked.kind) == "availability" or asks_for_availability(ask)
    # "which of them works on 3D?": the works whose abstract holds what it asks about, when some do
    choosing = set(content_words(ask)) - _CHOICE_WORDS if _WHICH.match(ask) and not availability else set()
    per_work: dict[str, list[EvidenceSentence]] = {}
    holding: dict[str, list[EvidenceSentence]] = {}
    held_most: dict[str, int] = {}  # how many of those words each work's best sentences hold
    silent: list[str] = []
    for aid in works:
        evidence = score_sentences(asked, vector, snapshot, rows_of(snapshot, [aid]), policy,
                                   dense_weight=1.0 if readable else 0.0)  # fmt: skip
        chosen = extractive.plan_single(aid, evidence, asked, (), policy).sentences if evidence else []
        if availability:
            chosen = [e for e in chosen if extractive.says_where_released(e.role, e.text)][:1]
        per_work[aid] = sorted(chosen, key=lambda e: -e.score)[: sentences or policy.each_sentences]
        if choosing:  # the sentences holding the most of what it chooses by ("training free": both words)
            held = {e.row: len(choosing & set(content_words(e.text))) for e in evidence}
            held_most[aid] = most = max(held.values(), default=0)
            holding[aid] = [e for e in evidence if most and held[e.row] == most][: sentences or policy.each_sentences]
        if not per_work[aid]:
            silent.append(aid)
    if any(holding.values()):  # the works holding the most of it
        best = max(held_most.values())
        per_work, silent = {aid: found for aid, found in holding.items() if found and held_most[aid] == best}, []
    sentences = [e for aid in works for e in sorted(per_work.get(aid, ()), key=lambda e: e.row)]
    cited = [aid for aid in works if per_work.get(aid)]
    lead = ""
    if availability and silent and cited:
        names = [f"**{_work_label(snapshot, aid)}**" for aid in silent]
        lead = f"The abstracts of {names_joined(names)} do not say whether code or data are released."
        lead = lead.replace("abstracts of", "abstract of").replace(" do not", " does not") if len(names) == 1 else lead
    return extractive.ExtractivePlan(cited, sentences, "list", lead=lead, known=True)


_WHICH = re.compile(r"\W*(?:and\s+|so\s+)?which\b", re.I)
# words of a choice among works that say nothing of what it chooses by ("which one uses …", "which of them is …")
_CHOICE_WORDS = frozenset(
    content_words("which one ones they them these those work works paper papers method methods use used uses using "
                  "do does did is are has have")  # fmt: skip
)


def _work_check(snapshot: IndexSnapshot) -> Callable[[str], bool]:
    """Whether a term is the name of one of the corpus's works: an abstract's label that is a name, or the name of
    the work an abstract introduces (IndexSnapshot.own_name). Looked up for the term alone: the abstracts whose label
    it is, and those the lexicon links it to, not every abstract of the corpus."""

    def is_work(term: str) -> bool:
        lowered = term.lower()
        labels = (snapshot.abstracts[aid].label for aid in snapshot.ids_labelled(lowered))
        name = snapshot.lexicon.names.get(lowered)
        owned = (snapshot.own_name(aid) for aid in (name.abstract_ids if name is not None else ()))
        return any(n and n.lower() == lowered and not is_opening_words(n) for n in (*labels, *owned))

    return is_work


def _work_label(snapshot: IndexSnapshot, aid: str) -> str:
    """How an answer names a work: its label, or its own name when the label is the abstract's opening words."""
    label = snapshot.abstracts[aid].label
    return (snapshot.own_name(aid) or label) if is_opening_words(label) else label


def _single_paper_profile(prof: QuestionProfile) -> QuestionProfile:
    """A question asked of one paper: an earlier list question asked again of one of its papers ("which papers
    study X?" -> "what about the second one?") is answered by what that paper does, as a general question."""
    if prof.kind != "list" and prof.shape != "compare":
        return prof
    return replace(prof, kind="general", shape="fact")


def decide_abstention(
    ranking: Ranking,
    plan: extractive.ExtractivePlan,
    snapshot: IndexSnapshot,
    top_k: int,
    policy: AnswerPolicy | None = None,
    *,
    pinned: Sequence[str] = (),
    glossed: bool = False,
    similar: Sequence[str] = (),
    more: tuple[list[str], set[str]] | None = None,
) -> Retrieved:
    """Score abstention from the ranking and the plan (``retrieve``'s last step); everything found, in one place.
    A "similar" follow-up (``similar``) answers whenever another paper is found: its lines claim closeness, which the
    lead says is by meaning, and quote what each paper says. A plan about the earlier answer's works (``plan.known``:
    "tell me more", ``more``; a follow-up about several of them) answers whenever it quotes something: no search
    decided those works, and the sentences it quotes need not answer the earlier question again."""
    policy = policy or AnswerPolicy()
    question, prof, ranked, linking, readable = (
        ranking.question, ranking.profile, ranking.ranked, ranking.linking, ranking.readable
    )  # fmt: skip
    vector, unmatched, fixes, started = ranking.vector, ranking.unmatched, ranking.corrections, ranking.started
    if similar:
        found = bool(plan.abstract_ids)
        reason = "" if found else "No other abstract in the index is close to the papers asked about."
        if NO_EARLIER_PAPERS in similar:
            reason = "There is no earlier answer to find similar papers to: name a paper or a topic."
        return Retrieved(question, prof, vector, ranked[:top_k], plan, not found, reason,
                         time.perf_counter() - started, 0.0 if found else 1.0, linking, readable)  # fmt: skip
    if plan.known:  # "tell me more", "do both release code?": the earlier answer's works, known without a search
        found = bool(plan.sentences)
        reason = "" if found else "None of the earlier papers' abstracts states it."
        if more is not None and not found:
            reason = "The earlier answer already quoted everything its abstracts say on this."
        return Retrieved(question, prof, vector, ranked[:top_k], plan, not found, reason,
                         time.perf_counter() - started, 0.0 if found else 1.0, linking, readable)  # fmt: skip
    whole = (  # the answer to the whole question, without a compound question's parts' own answers (with_part_plans)
        replace(plan, sentences=[e for e in plan.sentences if e.row not in plan.part_rows]) if plan.part_rows else plan
    )
    if plan.screen is not None:  # "Which paper proposes X?": whether any paper does, read as a request for papers
        as_list, screen = plan.screen
        signals = _signals(as_list, snapshot, screen, ranked, linking, readable and not glossed, bool(pinned), policy,
                           typed=question)  # fmt: skip
    else:
        signals = _signals(
            plan.asked or prof, snapshot, whole, ranked, linking, readable and not glossed, bool(pinned), policy,
            typed=question, known=prof.specific_terms if plan.asked is not None and plan.asked is not prof else (),
        )
    if glossed:
        unnumbered = prof.kind == "number" and not any(e.has_number for e in whole.sentences)
        # a term of the research vocabulary is the question's own ("federated learning" for 联邦学习): no abstract
        # using it still says the topic is not covered
        topic = _topic_words(prof.topic_words)
        curated = research_words(prof.text)
        unknown = [w for w in topic if w in curated and w not in snapshot.lexicon.stems]
        signals = replace(
            signals,
            focus_missing=0.0,
            topic_missing=0.0,
            topic_unknown=len(unknown) / len(topic) if topic else 0.0,
            topic_garbled=0.0,
            names_missing=False,
            type_missing=False,  # a word-by-word gloss misreads the wh-phrase
            number_missing=unnumbered,
            # the detail words are one sense of many ("适配体" -> "adaptation body"): whether a sentence holds them
            # next to each other or next to a number says little
            phrase_missing=0.0,
            slot_missing=0.0,
            slot_near_missing=0.0,
            value_missing=unnumbered,
            described_missing=0.0,
            aspect_missing=0.0,
            aspect_similarity=None,
            measure_absent=0.0,  # the gloss's words for a measure are one sense of many
        )
    if unmatched:
        signals = replace(signals, has_evidence=False)
    decision = decide(signals, policy)
    return Retrieved(
        question, prof, vector, ranked[:top_k], plan, decision.abstain, decision.reason,
        time.perf_counter() - started, decision.score, linking, readable, signals, fixes,
    )  # fmt: skip


def work_names(snapshot: IndexSnapshot, abstract_id: str, linking: Linking) -> list[str]:
    """How the question may write the name of the abstract's own work: its own name (IndexSnapshot.own_name), its
    label when that is a name (not the abstract's opening words), and the question's mentions linked to either
    (a typo: "AsayBench"). Not a dataset or model the work uses: "evaluated on FooQA" asks about FooQA."""
    label = snapshot.abstracts[abstract_id].label
    names = [n for n in (snapshot.own_name(abstract_id), None if is_opening_words(label) else label) if n]
    lowered = {n.lower() for n in names}
    return [*names, *(link.mention for link in linking.links if link.name.surface.lower() in lowered)]


def always_capitalised(surface: str, texts: Iterable[str], word_zipf: float = 2.5) -> bool:
    """Whether ``texts`` (the abstracts mentioning a name) write the name ``surface`` only with capitals or digits
    ("Qwen", "FLUX", "GPT-4o"), never in lower case, and it is not made of English words (in the word list or at
    least ``word_zipf`` frequent): a name typed in lower case ("qwen") is still that name."""
    if not (is_name_like(surface) or surface[:1].isupper()) or surface.lower() == surface:
        return False
    english = english_words()
    parts = [part for part in re.split(r"[-\s]+", surface.lower()) if part]
    if all(part in english or zipf_frequency(part) >= word_zipf for part in parts):
        return False  # words of English ("Gaussian", "Mixture-of-Experts"): a term, whatever its capitals
    lowered = re.compile(rf"(?<![\w-]){re.escape(surface.lower())}(?![\w-])")
    return not any(lowered.search(text) for text in texts)


def unlabelled_names(snapshot: IndexSnapshot, abstract_ids: Sequence[str]) -> dict[str, str]:
    """Abstract id -> the name of its work (IndexSnapshot.own_name), for those whose display label does not show
    it (a label made of the abstract's opening words)."""
    return {
        aid: name
        for aid in abstract_ids
        if (name := snapshot.own_name(aid)) and not term_occurs(name, snapshot.abstracts[aid].label.lower())
    }


def list_shortlist(
    question: str,
    retriever: HybridRetriever,
    vector: np.ndarray,
    linked: dict[str, float],
    policy: AnswerPolicy,
    *,
    dense_weight: float | None = None,
    first: Sequence[RankedAbstract] = (),
) -> list[str]:
    """The abstracts whose sentences a list or summary answer scores: those already ranked (``first``), then the
    best of the fused chunk ranking up to ``policy.list_shortlist`` (never fewer than ``list_max``).

    Scoring every sentence costs time and memory in proportion to the corpus (368k sentences at 100k chunks);
    chunk retrieval already finds the abstracts whose sentences can win, so only theirs are scored."""
    n = max(policy.list_shortlist, policy.list_max)
    ids = list(dict.fromkeys(r.abstract.id for r in first))
    if len(ids) < n:
        found = retriever.search(question, n, query_vector=vector, linked=linked, dense_weight=dense_weight)
        for r in found:
            if len(ids) >= n:
                break
            if r.abstract.id not in ids:
                ids.append(r.abstract.id)
    return ids


def _yes_lead(shape: str) -> str:
    return "these abstracts address it:"


def _compare_works(
    prof: QuestionProfile,
    snapshot: IndexSnapshot,
    retriever: HybridRetriever,
    linking: Linking,
    policy: AnswerPolicy,
    listed: Sequence[str] = (),
) -> list[str]:
    """The abstract of each work a comparison names: through the lexicon, else the best match for that part;
    ``listed``: the works on the topic a comparison names instead (rag.question.compared_topic)."""
    works: list[str] = list(listed)
    parts = [] if listed else compare_parts(prof.text) or [prof.text]
    named = _works_named(snapshot, linking, prof.text)
    found_for: list[str] = []  # the abstract each part resolved to
    for part in parts:
        part_links = snapshot.lexicon.link(part, min_ratio=policy.fuzzy_min_ratio, min_chars=policy.fuzzy_min_chars)
        labelled = _labelled(snapshot, part)
        if labelled is not None:  # the part is a paper's label ("the Token Hypothesis")
            aid = labelled
        elif part_links.links:
            best = max(part_links.links, key=lambda link: (link.score, -len(link.name.abstract_ids)))
            aid = _owner_of(snapshot, best)
        elif part_links.unknown:
            continue  # a work the corpus does not have: the abstention signals say so
        elif len(named) >= 2 and not describes_work(part):
            continue  # the question names its works: a part with no name is what it asks of them
        else:
            found = retriever.search(part, 1)
            if not found:
                continue
            aid = found[0].abstract.id
        found_for.append(aid)
        if aid not in works:
            works.append(aid)
    if len(parts) >= 2 and len(found_for) == len(parts) and len(works) == 1 and len(named) < 2:
        # every part is the same paper's and that abstract writes each ("gated attention vs multi-head
        # self-attention" of the paper setting them side by side): a comparison it makes, not one across papers
        words = set(content_words(snapshot.abstracts[works[0]].text))
        if all(set(content_words(part)) <= words for part in parts):
            return works
    if len(works) < 2:  # the works it names, however worded ("Is FooBench larger than BarBench?")
        works = list(dict.fromkeys([*works, *named]))
    if len(works) < 2:  # e.g. "compare the two benchmarks for X": the best matches for the whole question
        for r in retriever.search(prof.text, 2):
            if r.abstract.id not in works and len(works) < 2:
                works.append(r.abstract.id)
    return works


def _labelled(snapshot: IndexSnapshot, part: str) -> str | None:
    """The abstract whose label the part spells (case and a leading article aside), if exactly one does."""
    wanted = " ".join(part.lower().split())
    ids = snapshot.ids_labelled(wanted)
    return ids[0] if len(ids) == 1 else None


# a whole number counting the noun after it ("the 12 models", "3 environments"): how many things, not a value stated
_COUNTED = re.compile(r"(?<![\d.,])\b\d+(?=\s+[A-Za-z])")


def counts_stated(text: str) -> set[str]:
    """The whole numbers the text writes as a count of the noun after them ("across the 12 models" -> {"12"}), as
    rag.abstain.stated_values normalises them: how many things were compared, not a value that points at the
    sentence stating the answer ("which system reaches 0.855")."""
    return stated_values(" ".join(_COUNTED.findall(text)))


def _signals(
    prof: QuestionProfile,
    snapshot: IndexSnapshot,
    plan: extractive.ExtractivePlan,
    ranked: Sequence[RankedAbstract],
    linking: Linking,
    readable: bool,
    pinned: bool = False,
    policy: AnswerPolicy | None = None,
    typed: str = "",
    known: Sequence[str] = (),
) -> AbstentionSignals:
    """The abstention signals of an answer plan; ``typed``: the question as the user typed it (before respelling);
    ``known``: the names of a follow-up's conversation (its question rewritten against the history), of which those
    the answering abstract uses are no new name answering it ("which benchmark?" after "What does FooNet do?" is not
    answered by a sentence naming FooNet)."""
    policy = policy or AnswerPolicy()
    answer_ids = plan.abstract_ids if prof.kind == "list" or prof.shape == "compare" else plan.abstract_ids[:1]
    answer_set = set(answer_ids)
    # a linked name the answering abstract(s) write otherwise ("large language model (LLM)-based" for "LLM-based",
    # "mixture of experts" for "MoE") is not missing from them
    answer_texts = " ".join(snapshot.abstracts[a].text for a in answer_ids)
    given = {t.lower() for t in known if t.lower() in answer_texts.lower()}
    # a name qualifying the kind of names asked ("what T2I models is FooNet tested on") is not one the answer names
    kinds = _category_qualifiers(prof.text, linking) if prof.kind == "name" and prof.shape != "compare" else set()
    missing = tuple(
        link.mention
        for link in linking.links
        if not (link.name.abstract_ids & answer_set)
        and prof.kind != "list"
        and link.mention.lower() not in kinds
        and not _typed_as_word(link.mention, typed, policy.name_case_zipf)
        and not mentioned_in(
            link.mention, answer_texts, (snapshot.abstracts[a].text for a in sorted(link.name.abstract_ids)[:20])
        )
    )
    answer_text = " ".join(snapshot.abstracts[a].text for a in answer_ids[:1]).lower()
    focus_missing = 0.0
    # what is counted or named; a word naming the answer's category ("which base model", "what QA datasets") is
    # answered by instances, and one written inside a name of the abstract ("multihop" in "2WikiMultihopQA") is there
    # likewise a generic quantity ("what size range", "the number of"): a number with its unit answers it ("1.7B to 70B
    # parameters"), not the word
    # ("what range of model sizes": a name question's measure words are no more its detail than its category's)
    generic = (ANSWER_CATEGORY_STEMS | QUANTITY_STEMS if prof.kind == "name" else QUANTITY_STEMS) | RELATION_STEMS
    focus = [w for w in prof.focus_words if w not in generic]
    # "which one is faster?" of compared works: the work it asks for is one of them, named in the answer's rows
    choosing = prof.shape == "compare" and prof.kind == "name"
    if focus and answer_ids and prof.kind in ("number", "name") and not choosing:
        words = set(content_words(answer_text))
        cased = snapshot.abstracts[answer_ids[0]].text
        name_text = _names_written(cased)
        focus_missing = sum(not _word_held(w, words, name_text) for w in focus) / len(focus)
    # a number asked for: some quoted sentence holds a number next to (most of) the thing counted
    if prof.kind == "list" and answer_ids:  # "which papers study X": X is what the best paper must mention
        topic_words = _topic_words(prof.topic_words)
        if topic_words:  # an overview's topic may span its papers; a list's must be in one of its papers

            def held(pool_ids: Sequence[str]) -> set[str]:
                words = {w for aid in pool_ids for w in content_words(snapshot.abstracts[aid].text)}
                # a linked name is in the papers using it, however they write it ("Qwen" in "Qwen1.5-MoE")
                return words | {
                    w
                    for link in linking.links
                    if link.name.abstract_ids & set(pool_ids)
                    for w in content_words(link.mention)
                }

            pools = [answer_ids] if prof.shape == "summary" else [[aid] for aid in answer_ids]
            counts = {w: float(topic_words.count(w)) for w in topic_words}  # each word as often as the question has it
            parts = alternative_parts(prof.text, topic_words)  # "X, Y or Z": a paper on one of them is on the topic
            focus_missing = least_missing(counts, (held(pool) for pool in pools), parts)
    # a number the question itself states ("of the 6,289 pairs, how many …") is not an answer to it
    stated = numbers_in(prof.text)
    number_missing = prof.kind == "number" and not any(
        e.has_number
        and bool(numbers_in(spelled_out(e.text)) - stated)
        and (not focus or _share(focus, with_long_forms(e.text, snapshot.abstracts[e.abstract_id].text)) >= 0.5)
        for e in plan.sentences
    )
    # the kind of thing asked: a value (a count, a measured score) is a number next to what is counted or measured
    # ("Which paper proposes a trust score?" asks for the paper, not a score)
    measure = None if prof.asks_paper and prof.kind == "general" else value_asked(prof.text, prof.kind)
    value_missing = False
    if measure is not None and answer_ids:
        anchors = set(focus) | set(content_words(measure))
        if measure:  # the measure's own modifiers ("Spearman" of "Spearman correlation"): abstracts write it so
            anchors |= _modifier_stems(measure_modifiers(prof.text))
        if measure and _GENERIC_MEASURE.fullmatch(measure) and set(focus) <= set(content_words(measure)):
            # "what score does the strongest system reach": an abstract writes "the strongest system reaches 0.85",
            # so the detail words anchor the number as well as the generic measure
            names = _linked_words(linking)
            anchors |= {w for w in prof.topic_words if not w.isdigit() and w not in GENERIC_STEMS and w not in names}
        quoted = [
            with_long_forms(e.text, snapshot.abstracts[e.abstract_id].text)
            for e in plan.sentences
            if e.abstract_id in answer_set
        ]
        value_missing = (
            not any(number_near(t, anchors, stated=stated, count_words=prof.asks_count) for t in quoted)
            if anchors
            else number_missing
        )
    if asks_bound(prof.text) and answer_ids:  # "how large must X be": a bound the answering abstract states answers
        bounded = any(states_bound(t) for t in snapshot.abstracts[answer_ids[0]].sentence_texts())
        number_missing, value_missing = number_missing and not bounded, value_missing and not bounded
    unit = unit_asked(prof.text) if prof.kind == "number" else None
    if unit and not any(e.has_number and states_unit(e.text, unit) for e in plan.sentences):
        number_missing = True  # "how long does X take": no quoted sentence states a duration
    topic = _topic_words(prof.topic_words)
    topic_missing = topic_unknown = topic_garbled = 0.0
    rarity = _rarity_of(prof.text, policy)  # word -> how rare it is in English, for the topic and phrase signals
    if topic:  # the answering abstract(s) (the best one for a list) should use the question's topic words
        pool = set()
        for aid in answer_ids if prof.shape == "compare" else answer_ids[:1]:
            pool.update(content_words(snapshot.abstracts[aid].text))
        names = _linked_words(linking)
        stems = snapshot.lexicon.stems
        topic_missing = sum(w not in pool and w not in names and w in stems for w in topic) / len(topic)
        unknown = [w for w in topic if w not in stems and w not in names]
        garbled = (
            mistyped_stems(
                prof.text, stems, _typo_vocabulary(snapshot.lexicon.words),
                common_zipf=policy.typo_common_zipf, short_edits=policy.typo_edits,
                long_edits=policy.typo_long_edits, long_chars=policy.typo_long_chars,
            )
            if unknown
            else set()
        )  # fmt: skip
        # an unknown word weighs by its English rarity: a paraphrase's everyday word no abstract happens to use
        # ("honest", "cheap") says little, a term of a field the corpus lacks ("federated") much
        topic_unknown = rarity_share([w for w in unknown if w not in garbled], len(topic), rarity)
        topic_garbled = sum(w in garbled for w in unknown) / len(topic)
    best_dense = max((e.dense for e in plan.sentences), default=0.0) if readable else None
    phrase_missing = 0.0
    if topic and answer_ids:
        names = _linked_words(linking)
        # a single-paper detail question's own words, not its answer's category or the verb of where the answer sits
        # ("which datasets is X evaluated on": an abstract writes "experiments on HCP", never "datasets evaluated"),
        # nor a compound beside its parts (a compound and its own parts are no phrase of the question)
        details = [w for w in topic if w not in names]
        details = details if prof.kind == "list" else without_compounds(details)
        skip = frozenset() if prof.kind == "list" else generic
        phrase_ids = answer_ids if prof.kind == "list" or prof.shape == "compare" else answer_ids[:1]
        texts = [t for aid in phrase_ids for t in snapshot.abstracts[aid].sentence_texts()]
        phrase_missing = (
            parts_unseen(coordinated_parts(prof.text, details), texts, rarity=rarity)
            if prof.kind == "list"  # "X or Y", "X, Y and Z": a topic some paper treats is one of its parts
            else pairs_unseen(details, texts, skip=skip, rarity=rarity)
        )
    asked = {t.lower() for t in prof.specific_terms} | given
    expected = _expected_answer(prof)
    # names are asked for ("which base model", "names of", "what is X evaluated on"), not a description ("what kind
    # of model …"); "which five backbones …": at least two of them named (an abstract saying "five backbones" names
    # none)
    # a choice between named works ("which is better for LLM calibration, X or Y?") names its own answer
    wants_names = not choice_parts(prof.text) and (
        expected == "name"
        or (
            prof.wants_names
            and expected is None
            and not asks_kind_of(prof.text)
            and bool(_WH_LEAD.match(prof.text) or _POLAR_LEAD.match(prof.text))
        )
    )
    counted = min(names_counted(prof.text), 2) if wants_names else 0
    accept = looks_like_model_name if wants_names and asks_model(prof.text) else None  # "which LLM": a model's name
    names_missing = bool(wants_names and answer_ids) and not names_new(
        (e.text for e in plan.sentences if e.abstract_id in answer_set), asked, at_least=max(1, counted), accept=accept
    )
    if names_missing and not counted and answer_ids:  # "which baselines": "calibration-based baselines" answers
        texts = snapshot.abstracts[answer_ids[0]].sentence_texts()
        names_missing = not (described_answer(prof.text, texts) or coined_answer(prof.text, texts))
    slot, rare_missing, rare_absent = _answer_slot_signals(prof, snapshot, plan, answer_ids, linking, policy)
    matched_first, matched_any = _topic_matched(prof, snapshot, answer_ids, linking)
    # a list's papers as whole abstracts: does one stand out of the shortlist (skipped when the encoder cannot read)
    peak = peak_above_median(plan.paper_similarity.values()) if readable and plan.paper_similarity else None
    # the retrieval's own reading of the whole question: does one retrieved paper stand out of those retrieved with it
    retrieved = [r.dense for r in ranked if r.dense is not None]
    question_peak = peak_above_median(retrieved) if readable and prof.shape in LIST_SHAPES else None
    type_missing = False
    slot_near = slot
    one_paper = prof.shape not in LIST_SHAPES and prof.shape != "compare"  # a question one abstract answers
    if expected is not None and expected != "name" and answer_ids:
        slot, type_missing, slot_near = _typed_slot(prof, snapshot, answer_ids[0], linking, expected, policy, given)
    elif wants_names and answer_ids and one_paper:
        slot, type_missing, slot_near = _typed_slot(prof, snapshot, answer_ids[0], linking, "name", policy, given)
    if answer_ids and not type_missing and one_paper:
        # a size, speed, place or setting asked anywhere in the question ("which backbone, and how many parameters?")
        # that no sentence of the answering abstract states
        texts = snapshot.abstracts[answer_ids[0]].sentence_texts()
        type_missing = any(not any(states_detail(t, k, prof.text) for t in texts) for k in details_asked(prof.text))
        # "which five benchmarks …" where the abstract writes "five benchmarks" and never lists them
        type_missing = type_missing or counted_unnamed(prof.text, texts)
    described_missing, aspect_missing = _described_missing(prof, snapshot, answer_ids, linking, policy)
    # the measure a value question asks ("what learning rate", "the pass@1") written nowhere in its abstract
    measure_absent = 0.0
    if measure and answer_ids and one_paper:
        measure_absent = measure_unwritten(
            measure, snapshot.abstracts[answer_ids[0]].text, QUANTITY_STEMS | GENERIC_STEMS
        )
    return AbstentionSignals(
        measure_absent=measure_absent,
        topic_similarity=plan.topic_similarity if readable else None,
        topic_rarity=plan.topic_rarity,
        # "which work shows that …": a request for one work described by what it does, not a topic
        described_words=described_work_words(prof.text) if prof.shape in LIST_SHAPES else 0,
        described_missing=described_missing,
        aspect_missing=aspect_missing,
        # skipped when the encoder cannot read the question, or for a list or comparison (no one answering paper)
        aspect_similarity=plan.aspect_similarity if readable and one_paper else None,
        topic_matched=matched_first,
        topic_matched_any=matched_any,
        topic_peak=peak,
        question_peak=question_peak,
        type_missing=type_missing,
        type_asked=expected or "",
        slot_missing=slot,
        slot_near_missing=slot_near,
        topic_rare_missing=rare_missing,
        topic_rare_absent=rare_absent,
        terse=prof.terse,
        phrase_missing=phrase_missing,
        topic_garbled=topic_garbled,
        value_missing=value_missing,
        names_missing=names_missing,
        shape=prof.shape,
        # an acronym the answering abstract spells out ("PRs": "pull requests") is no name the corpus lacks
        unknown_names=tuple(u for u in linking.unknown if not spelt_out_in(u, answer_texts)),
        missing_names=missing,
        linked_exact=pinned or any(link.exact for link in linking.links),
        focus_missing=focus_missing,
        number_missing=number_missing,
        best_dense=best_dense,
        topic_missing=topic_missing,
        topic_unknown=topic_unknown,
        has_evidence=bool(plan.sentences),
    )


def _modifier_stems(words: Sequence[str]) -> set[str]:
    """The content-word stems of a measure's modifiers, a hyphenated one whole ("inter-rater", not "rater": "17
    raters" is a count of raters, not an inter-rater agreement)."""
    stems: set[str] = set()
    for word in words:
        found = [w for w in content_words(word) if w not in GENERIC_STEMS]
        stems.update([w for w in found if "-" in w] if "-" in word else found)
    return stems


def _word_held(word: str, words: Collection[str], name_text: str) -> bool:
    """Whether a text holds a content-word stem of the question: among its ``words``, written inside one of its names
    (``name_text``: "multihop" in "2WikiMultihopQA"), or, for a hyphenated compound, all its parts among its words
    (the question's "refusal-neuron" in "refusal neurons", "simplicity-bias" in "simplicity-biased")."""
    if word in words or word.replace("-", "") in name_text:
        return True
    if "-" not in word:
        return False
    # the compound's stem cuts its last part short ("bia" of "bias"): a part is held by a word it begins or that begins it
    parts = [stem(part) for part in word.split("-")]
    return all(
        len(p) >= 2 and any(w.startswith(p) or (p.startswith(w) and len(w) >= len(p) - 2) for w in words) for p in parts
    )


def _described_missing(
    prof: QuestionProfile,
    snapshot: IndexSnapshot,
    answer_ids: Sequence[str],
    linking: Linking,
    policy: AnswerPolicy,
) -> tuple[float, float]:
    """(described_missing, aspect_missing) of a single-paper question; (0.0, 0.0) for other questions.
    described_missing: when the question names its work by a short description, as a term ("the paper on X", "the
    X study": rag.question.work_description, at most policy.described_max_words content words), the mass of the
    description's words the answering abstract lacks (``_mass_missing``); a longer description is a paraphrase of
    the work, not a term. aspect_missing: the same for what the question asks the work to say something about
    ("what does FooNet report about X": rag.question.asked_aspect), likewise when it is short."""
    if not answer_ids or prof.shape in LIST_SHAPES or prof.shape == "compare":
        return 0.0, 0.0
    description = work_description(prof.text)
    words = _detail_words(description)
    described = (
        _mass_missing(words, description, snapshot, answer_ids[0], linking, policy)
        if words and len(words) <= policy.described_max_words
        else 0.0
    )
    aspect = asked_aspect(prof.text)
    words = _detail_words(aspect)
    short = bool(words) and len(words) <= policy.described_max_words
    return described, _mass_missing(words, aspect, snapshot, answer_ids[0], linking, policy) if short else 0.0


def _detail_words(text: str) -> list[str]:
    """The content-word stems of a phrase that say what it is about (no numbers, generic words, or a compound next
    to its parts)."""
    if not text:
        return []
    return without_compounds(_topic_words(content_words(text)))


def _mass_missing(
    words: Sequence[str], text: str, snapshot: IndexSnapshot, answer_id: str, linking: Linking, policy: AnswerPolicy
) -> float:
    """The mass of ``words`` (stems of ``text``) the abstract lacks, each weighing its idf times its English rarity
    (a word no abstract uses: the largest idf), in units of the largest idf, at most 1: a term of the field missing
    ("sparse autoencoders") weighs much, everyday words little. A name linked to the abstract, or written inside one
    of its names, is held."""
    abstract = snapshot.abstracts[answer_id]
    inside = _names_written(abstract.text)
    held = set(content_words(abstract.text)) | {w for w in words if w.replace("-", "") in inside}
    held |= _linked_words(linking, among=[answer_id])
    _, doc_freq = topic_presence(snapshot, words)
    rarity = _rarity_of(text, policy)
    top = largest_idf(len(snapshot.abstracts))
    weights = idf_weights(words, doc_freq, len(snapshot.abstracts))
    return min(1.0, sum(v * rarity(w) for w, v in weights.items() if w not in held) / top)


def _typed_as_word(mention: str, typed: str, common_zipf: float) -> bool:
    """Whether the question typed a linked name as a common English word, in lower case ("max speedup" linked to a
    corpus name "MAX"): a word of the sentence, not the name of a work the answer must mention."""
    lowered = mention.lower()
    if not typed or not lowered.isalpha() or zipf_frequency(lowered) < common_zipf:
        return False
    return bool(re.search(rf"(?<![\w-]){re.escape(lowered)}(?![\w-])", typed)) and mention not in typed


def _answer_slot_signals(
    prof: QuestionProfile,
    snapshot: IndexSnapshot,
    plan: extractive.ExtractivePlan,
    answer_ids: Sequence[str],
    linking: Linking,
    policy: AnswerPolicy,
) -> tuple[float, float, float]:
    """(slot_missing, topic_rare_missing, topic_rare_absent): whether the answering abstract states what is asked
    (see rag.abstain.slot_missing), the idf- and rarity-weighted topic words a list's best paper lacks (list, summary
    and yes/no shapes, and terse keyword queries), and the part of that weight on words no abstract uses."""
    slot, rare, absent_share = 0.0, 0.0, 0.0
    if not answer_ids:
        return slot, rare, absent_share
    names = _linked_words(linking)
    details = [w for w in dict.fromkeys(prof.topic_words) if not w.isdigit() and w not in GENERIC_STEMS and w not in names]
    n_docs = len(snapshot.abstracts)
    if prof.shape in LIST_SHAPES or (prof.terse and prof.shape != "compare"):  # a keyword query names a topic too
        # a keyword query naming a work ("datasets used to evaluate FooNet") is about that work: the linked names
        # are its topic words as much as the rest ("FooNet" held by the best paper is matched)
        linked = [
            w for w in dict.fromkeys(prof.topic_words) if w in names and not w.isdigit() and w not in GENERIC_STEMS
        ] if prof.shape not in LIST_SHAPES else []
        topic = without_compounds([*details, *linked])
        # a summary's topic may span its papers; a list's (or a keyword query's) is read in the cited paper holding
        # most of it
        pools = [answer_ids] if prof.shape == "summary" else [[aid] for aid in answer_ids]
        if prof.shape not in LIST_SHAPES:
            pools = pools[:1]
        present, doc_freq = topic_presence(snapshot, topic, among=answer_ids)
        surfaces = _surfaces(prof.text)
        absent = {w: english_rarity(surfaces.get(w, w), policy.rarity_zipf_scale) for w in topic if not doc_freq.get(w)}
        weights = idf_weights(topic, doc_freq, n_docs, absent)
        # a linked name's words are held by the papers that name it, however they write it ("apta bench": AptaBench)
        rare = least_missing(
            weights,
            (set().union(_linked_words(linking, among=pool), *(present.get(a, ()) for a in pool)) for pool in pools),
            alternative_parts(prof.text, topic) if prof.shape in LIST_SHAPES else (),
        )
        total = sum(weights.values())
        absent_share = sum(weights.get(w, 0.0) for w in absent) / total if total > 0 else 0.0
    return slot, rare, absent_share



def _linked_words(linking: Linking, among: Sequence[str] | None = None) -> set[str]:
    """The content-word stems of the question's linked mentions (names, not topic or detail words); with ``among``,
    only of names some of those abstracts use: their words are held by those papers, however they write the name
    ("apta bench" by AptaBench's)."""
    ids = None if among is None else set(among)
    return {w for link in linking.links if ids is None or link.name.abstract_ids & ids for w in content_words(link.mention)}


def collection_themes(snapshot: IndexSnapshot, policy: AnswerPolicy) -> list[Theme]:
    """The collection's themes (rag.themes.find_themes): its papers grouped by the mean of their sentence vectors,
    each group described by its most distinctive words (weighed by their rarity in English). Grouped once per
    snapshot (well under a second for the seeds)."""
    count = policy.overview_groups
    if count not in snapshot.collection_themes:
        ids = list(snapshot.abstracts)
        vectors = np.stack([source_vector(snapshot, [aid]) for aid in ids])
        words_of, forms = words_and_forms({aid: snapshot.abstracts[aid].text for aid in ids})
        rarity = {stem: zipf_frequency(form) for stem, form in forms.items()}
        themes = find_themes(ids, vectors, words_of, count, policy.overview_label_words, rarity)
        snapshot.collection_themes[count] = [  # described by the words as the abstracts write them
            replace(theme, words=tuple(forms.get(w, w) for w in theme.words)) for theme in themes
        ]
    return snapshot.collection_themes[count]


def _theme_quote(
    snapshot: IndexSnapshot, evidence: Sequence[EvidenceSentence], theme: Theme
) -> EvidenceSentence | None:
    """The sentence quoting a theme: of its central paper's sentences saying what the work proposes (else what it
    does, finds or how: contribution, method, result; else any), the one closest to the theme's centre (the mean
    of its papers' vectors)."""
    if not evidence:
        return None
    centre = theme.centre if theme.centre is not None else source_vector(snapshot, theme.abstract_ids)
    proposing = [e for e in evidence if extractive.has_role(e, "proposal")]
    doing = proposing or [e for e in evidence if e.role in ("contribution", "method", "result")] or list(evidence)
    return max(doing, key=lambda e: (float(np.asarray(snapshot.sentence_vectors[e.row]) @ centre), -e.row))


def released_works(snapshot: IndexSnapshot) -> list[str]:
    """The abstracts with a sentence saying where their code, data or models are, or that they are released (the
    ingest-time role "availability"), in corpus order."""
    roles = snapshot.sentence_roles
    return [
        aid
        for aid in snapshot.abstracts
        if any(extractive.says_where_released(roles[row], snapshot.sentence_text(row)) for row in snapshot.sentence_rows[aid])
    ]


def unnamed_alternative(question: str, topic: Sequence[str], mentions: Sequence[str]) -> bool:
    """Whether the question's topic is one of several coordinated parts ("FooNet or graph matching") of which one
    holds none of the ``mentions`` (the names it is asked by): papers on that part need not name anything."""
    parts = coordinated_parts(question, topic)
    if len(parts) < 2:
        return False
    named = {w for mention in mentions for w in content_words(mention)}
    return any(not named & set(part) for part in parts)


def _topic_words(words: Iterable[str]) -> list[str]:
    """The words of a question's topic: its content-word stems without numbers and generic words."""
    return [w for w in words if not w.isdigit() and w not in GENERIC_STEMS]


_NAME_WRITTEN = re.compile(r"[A-Za-z0-9][\w.&-]*\w")


def _names_written(text: str) -> str:
    """The name-like tokens of a text, lower-cased and joined by spaces: a detail word written inside one of them
    ("multihop" in "2WikiMultihopQA") is in the text."""
    return " ".join(t.lower() for t in _NAME_WRITTEN.findall(text) if is_name_like(t))


def _topic_matched(
    prof: QuestionProfile, snapshot: IndexSnapshot, answer_ids: Sequence[str], linking: Linking
) -> tuple[float, float]:
    """The idf mass of the topic words (no compound next to its parts) and linked names that the best paper holds (the
    papers of a summary), in units of the largest idf (rag.abstain.matched_mass), and at least the share of them it
    holds; and the same for the cited paper holding the most. For list, summary and yes/no questions; (0.0, 0.0)
    otherwise."""
    if not answer_ids or prof.shape not in LIST_SHAPES:
        return 0.0, 0.0
    pool = answer_ids if prof.shape == "summary" else answer_ids[:1]
    n_docs = len(snapshot.abstracts)
    names = _linked_words(linking)
    topic = without_compounds(
        [w for w in dict.fromkeys(prof.topic_words) if not w.isdigit() and w not in GENERIC_STEMS and w not in names]
    )
    present, doc_freq = topic_presence(snapshot, topic, among=answer_ids) if topic else ({}, {})
    # a short topic the best paper holds whole ("a new benchmark") is matched however common its words are
    asked = len(topic) + len({link.name.surface for link in linking.links})

    def matched(ids: Sequence[str]) -> float:
        # a linked name weighs as a word used by the abstracts that use the name ("which papers use FooNet")
        named = {link.name.surface: len(link.name.abstract_ids) for link in linking.links if link.name.abstract_ids & set(ids)}
        held = set().union(named, *(present.get(aid, ()) for aid in ids))
        weights = idf_weights([w for w in topic if doc_freq.get(w)] + list(named), doc_freq | named, n_docs)
        share = (sum(w in held for w in topic) + len(named)) / asked if asked else 0.0
        return max(matched_mass(weights, held, largest_idf(n_docs)), share)

    return matched(pool), max(matched([aid]) for aid in answer_ids)


# measures that name no quantity of their own: the thing measured says what the number is about
_GENERIC_MEASURE = re.compile(r"scores?|rates?|gains?|improvements?|percentage|ratio|margin|error", re.I)

# a question opening with what/which/where (after a few words at most: "In FooNet, which …"), not a how/why one nor
# a description in which "which" joins a clause ("figuring out which person …")
_WH_LEAD = re.compile(
    r"^\W*(?:(?:[\w'&-]+\s+){0,5}?[\w'&-]+,\s+|(?:and|in|on|under|for|with|at|from|by|to)\s+)?(?:what|which|where)\b",
    re.I,
)


_POLAR_LEAD = re.compile(r"^\W*(?:do|does|did|is|are|was|were|has|have|had)\b", re.I)


def _share(words: Sequence[str], sentence: str) -> float:
    """The share of ``words`` (content-word stems) the sentence holds."""
    held = set(content_words(sentence))
    return sum(w in held for w in words) / len(words) if words else 0.0


def _expected_answer(prof: QuestionProfile) -> str | None:
    """The expected answer type of a single-paper detail question (rag.question.answer_type); None for lists,
    summaries, yes/no questions and comparisons, whose answers are papers, and for a general question asking which
    one paper does something ("Which paper proposes a trust score?": the paper, not a score)."""
    if prof.shape in LIST_SHAPES or prof.shape == "compare" or (prof.asks_paper and prof.kind == "general"):
        return None
    return answer_type(prof.text, prof.kind)


def _is_subject(mention: str, label: str) -> bool:
    """Whether a linked mention names the answering paper itself ("Arena-T2I Hard" of the paper labelled
    "Arena-T2I"), rather than a benchmark, model or baseline the question qualifies its detail with."""
    mention, label = mention.lower(), label.lower()
    return bool(label) and (label in mention or mention in label)


def _typed_slot(
    prof: QuestionProfile, snapshot: IndexSnapshot, answer_id: str, linking: Linking, expected: str,
    policy: AnswerPolicy,
    given: Collection[str] = frozenset(),
) -> tuple[float, bool, float]:
    """(slot_missing, type_missing) for a detail question whose answer is of the ``expected`` type: whether one
    sentence of the answering abstract holds a candidate of that type (a value the question does not state, a
    duration, a licence, named hardware, a name the question does not give) next to the asked detail words (its
    content words, idf-weighted; the names it qualifies the detail with, "on BenchB", "with ModelM"; the numbers it
    states, "which system reaches 0.855"), and whether the abstract holds a candidate of that type at all; third, for
    a value or names, the slot read in windows (rag.abstain.answer_windows, policy.slot_window words either side of
    each answer word): the detail words said next to the answer, not only somewhere in its sentence (the slot
    otherwise)."""
    abstract = snapshot.abstracts[answer_id]
    sentences = abstract.sentence_texts()
    if expected == "limitation":  # the work's own: not a background or gap sentence (those are other work's)
        roles = [snapshot.sentence_roles[row] for row in snapshot.sentence_rows[answer_id]]
        sentences = [t for t, role in zip(sentences, roles, strict=False) if role not in ("background", "gap")]
    stated = numbers_in(prof.text)
    asked = {t.lower() for t in prof.specific_terms} | set(given)  # names the conversation gave answer nothing

    bound = expected == "value" and asks_bound(prof.text)  # "how large must X be": a bound answers

    def holds_answer(sentence: str) -> bool:
        if expected == "value":
            return values_in(sentence, stated, count_words=prof.asks_count) or (bound and states_bound(sentence))
        if expected == "name":
            return names_new([sentence], asked, accept=looks_like_model_name if asks_model(prof.text) else None)
        return bool(states_answer_type(sentence, expected))  # type: ignore[arg-type]

    type_missing = expected != "name" and not any(holds_answer(t) for t in sentences)
    if expected in ("author", "limitation", "availability") and type_missing:  # "who wrote it": nothing to look for; no sentence says
        return 1.0, True, 1.0
    if expected == "availability":  # "is the code out?": a line saying where it is answers, whatever its words
        return 0.0, False, 0.0
    # a number the question states points at its sentence ("which system reaches 0.855"): the answer is said there
    # ("evaluated across the 12 models": a count of the things compared says where nothing is answered)
    pointing = stated_values(prof.text) - counts_stated(prof.text)
    pointed = [t for t in sentences if stated_values(t) & pointing]
    if pointed and not any(holds_answer(t) for t in pointed):
        type_missing = True
    names = _linked_words(linking)
    # a value's measure words ("how large", "the size of") and the category noun naming the work itself ("how big is
    # the FooSet dataset": "FooSet integrates 6,289 pairs") are not details the answer repeats
    heads = _name_heads(prof.text, linking) if expected == "value" else set()
    details = [
        w for w in dict.fromkeys(prof.topic_words)
        if not w.isdigit() and w not in GENERIC_STEMS and w not in names
        and not (expected == "name" and w in ANSWER_CATEGORY_STEMS)
        and not (expected == "value" and (w in QUANTITY_STEMS or w in RELATION_STEMS or w in heads))
    ]  # fmt: skip
    kinds = _category_qualifiers(prof.text, linking) if expected == "name" else set()
    qualifiers = [
        link.mention.lower()
        for link in linking.links
        if not _is_subject(link.mention, abstract.label) and link.mention.lower() not in kinds
    ]
    n_docs = len(snapshot.abstracts)
    top = largest_idf(n_docs)
    _, doc_freq = topic_presence(snapshot, details)
    weights = idf_weights(details, doc_freq, n_docs) if details else {}
    weights.update({f"name:{q}": top for q in qualifiers})
    weights.update({f"number:{n}": top for n in pointing})

    def present(sentence: str) -> set[str]:
        lowered = sentence.lower()
        # a detail word written inside a name of the sentence ("multihop" in "2WikiMultihopQA") is there
        inside = _names_written(sentence)
        return (
            set(content_words(sentence))
            | {w for w in details if w.replace("-", "") in inside}
            | {f"name:{q}" for q in qualifiers if term_occurs(q, lowered)}
            | {f"number:{n}" for n in stated_values(sentence) & pointing}
        )

    slot = slot_missing(sentences, weights, holds_answer, present)
    if expected not in ("value", "name"):
        return slot, type_missing, slot
    # the answer said next to the asked details: the words around each answer word, not the whole sentence
    windows = [w for t in sentences if holds_answer(t) for w in answer_windows(t, holds_answer, policy.slot_window)]
    return slot, type_missing, slot_missing(windows, weights, lambda _: True, present) if windows else 1.0


# "what T2I models", "which GNN baselines": the words between a wh-word and the category noun it asks for
# the kinds of thing an abstract describes rather than names: "simulated and real-world data", "an
# importance-resampling baseline"
_DESCRIBED_KIND = re.compile(r"\b(?:what|which)\s+(?:[\w-]+\s+){0,2}?(?P<kind>data|datasets?|baselines?)\b", re.I)
# words saying how good, how many or how old the things are, not which ones: "strong baselines", "six datasets",
# "existing benchmarks", "state-of-the-art baselines"
_UNDESCRIBING = frozenset(
    content_words(
        "state-of-the-art state art sota strong stronger strongest competitive existing prior previous recent current "
        "standard popular common widely used leading representative several various multiple many diverse different "
        "other both all public publicly available large-scale small large new novel own respective "
        "one two three four five six seven eight nine ten eleven twelve dozen dozens hundreds thousands"
    )
)


# A question asking what something is called ("what is the name of the setting where …", "what do they call X?",
# "what term do the authors use for X"), and a sentence coining a term ("we call this model the X", "termed X",
# "dubbed X", "which we name X", "we refer to this as X"): the term answers it, however it is written (a coined term
# is often in lower case, "the assistive dueling bandit", which no name check sees)
_ASKS_TERM = re.compile(
    r"\bwhat\s+(?:is|was|are|were)\s+(?:the\s+)?names?\s+(?:of|for|given)\b|\bwhat\s+(?:do|does|did)\s+[\w\s]{1,30}?"
    r"\bcall\b|\bwhat\s+(?:is|are|was|were)\s+[^?]{1,80}?\bcalled\b|\bwhat\s+(?:term|name)\s+(?:do|does|did|is|was)\b",
    re.I,
)
_COINS_TERM = re.compile(
    r"\b(?:we|they|authors?)\s+(?:call|term|name|dub|coin|refer\s+to)\b|\b(?:termed|dubbed|coined|(?:which|that)\s+we\s+"
    r"(?:call|name|term))\b|\b(?:call|refer\s+to)\s+(?:this|these|it|them)\s+(?:\w+\s+){0,3}?as\b",
    re.I,
)


def coined_answer(question: str, sentences: Sequence[str]) -> bool:
    """Whether a question asking what something is called (_ASKS_TERM) is answered by a sentence coining a term
    (_COINS_TERM: "We call this model the assistive FooBandit", "a method termed ZedNet")."""
    return bool(_ASKS_TERM.search(question)) and any(_COINS_TERM.search(s) for s in sentences)


def described_answer(question: str, sentences: Sequence[str]) -> bool:
    """Whether a question asking which things of a kind ("which baselines does FooNet beat?", "what data is it
    evaluated on?", naming no count) is answered by a sentence describing them, not naming them: the kind written
    right after a word of its own ("calibration-based baselines", "simulated and real-world data"), a word the
    question does not use and that says which ones, not how good or how many ("state-of-the-art baselines")."""
    match = _DESCRIBED_KIND.search(question)
    if match is None:
        return False
    kind = stem(match.group("kind").lower())
    asked = set(content_words(question))
    for sentence in sentences:
        words = re.findall(r"[\w-]+|,", sentence)
        for i, word in enumerate(words):
            if i == 0 or stem(word.lower()) != kind:
                continue
            before = [words[i - 1]]  # the word it is written after, and a coordinated one before ("X and Y data")
            if i >= 3 and words[i - 2].lower() in ("and", "or", ","):
                before.append(words[i - 3])
            stems = [w for b in before for w in content_words(b) if not w[0].isdigit()]
            if any(w not in asked and w not in _UNDESCRIBING and w not in GENERIC_STEMS for w in stems):
                return True
    return False


_WH_CATEGORY = re.compile(
    r"\b(?:what|which)\s+(?P<kind>(?:[\w&.-]+\s+){1,3}?)(?:datasets?|benchmarks?|models?|backbones?|baselines?|"
    r"methods?|metrics?|algorithms?|architectures?|tools?|tasks?|environments?|suites?|encoders?|networks?)\b",
    re.I,
)


def _category_qualifiers(text: str, linking: Linking) -> set[str]:
    """The linked mentions (lower case) that qualify the category of names a question asks for ("what T2I models is
    FooNet tested on", "which GNN baselines"): they say which kind of thing is asked, and an abstract answers with
    the instances ("PixArt and FLUX") without repeating them, so they are neither names the answering abstract must
    mention nor details its answer sentence must hold."""
    spans = [m.span("kind") for m in _WH_CATEGORY.finditer(text)]
    found: set[str] = set()
    for link in linking.links:
        for m in re.finditer(re.escape(link.mention), text):
            if any(start <= m.start() and m.end() <= end for start, end in spans):
                found.add(link.mention.lower())
    return found


def _name_heads(text: str, linking: Linking) -> set[str]:
    """The category nouns written right after a linked name ("the FooSet dataset", "the BarBench benchmark"): the
    head of the name's phrase, naming the work itself rather than a detail asked about it."""
    heads: set[str] = set()
    for link in linking.links:
        for match in re.finditer(re.escape(link.mention) + r"\s+([A-Za-z-]+)", text):
            heads.update(w for w in content_words(match.group(1)) if w in ANSWER_CATEGORY_STEMS)
    return heads


def _surfaces(text: str) -> dict[str, str]:
    """Each content-word stem of the text -> the first word (lower case) it comes from (for English frequency)."""
    found: dict[str, str] = {}
    for word in re.findall(r"[A-Za-z][A-Za-z-]*", text):
        for stem_ in content_words(word):
            found.setdefault(stem_, word.lower())
    return found


def _rarity_of(text: str, policy: AnswerPolicy) -> Callable[[str], float]:
    """A content-word stem of the text -> how rare in English the word it comes from is (rag.abstain.english_rarity)."""
    surfaces = _surfaces(text)
    return lambda stem_: english_rarity(surfaces.get(stem_, stem_), policy.rarity_zipf_scale)


def _typo_vocabulary(corpus_words: frozenset[str]) -> Vocabulary:
    """The words a typo is measured against: the corpus's and common English (the tokenizer's whole words)."""
    return Vocabulary((corpus_words, english_words()))


def pairs_unseen(
    words: Sequence[str],
    sentences: Sequence[str],
    window: int = 4,
    skip: Collection[str] = frozenset(),
    rarity: Callable[[str], float] | None = None,
) -> float:
    """The share of adjacent pairs of ``words`` (content words, in question order) that no sentence holds within
    ``window`` words of each other: "federated learning" where the corpus says "federated" nowhere near
    "learning". A topic the corpus treats shows up as a phrase, not as words scattered over sentences. A pair with a
    word of ``skip`` counts only when some sentence holds it (the answer's category and the verb of where it sits:
    "which datasets is X evaluated on" is answered by "experiments on HCP", never by "datasets evaluated", though
    "benchmark gains" may be written as asked). ``rarity`` (word -> 0..1, how rare it is in English): each unseen
    pair counts by its rarer word's rarity, so a paraphrase's pair of everyday words ("keeps safe") weighs less than
    a pair holding a term of a field ("quux data") that the abstract never writes as asked."""
    pairs = list(zip(words, words[1:], strict=False))
    if not pairs:
        return 0.0
    seen: set[tuple[str, str]] = set()
    wanted = set(pairs) | {(b, a) for a, b in pairs}
    vocabulary = set(words)
    for sentence in sentences:
        tokens = [w for w in content_words(sentence)]
        # both words written inside one name of the sentence ("multihop" and "qa" in "2WikiMultihopQA") are a phrase
        for name in _names_written(sentence).split():
            for a, b in pairs:
                if min(len(a), len(b)) >= 2 and a.replace("-", "") in name and b.replace("-", "") in name:
                    seen.update({(a, b), (b, a)})
        positions = [(i, w) for i, w in enumerate(tokens) if w in vocabulary]
        for j, (i, w) in enumerate(positions):
            for i2, w2 in positions[j + 1 :]:
                if i2 - i > window:
                    break
                if (w, w2) in wanted:
                    seen.add((w, w2))
                    seen.add((w2, w))
    pairs = [(a, b) for a, b in pairs if (a, b) in seen or (a not in skip and b not in skip)]
    if not pairs:
        return 0.0
    weight = (lambda a, b: 1.0) if rarity is None else (lambda a, b: max(rarity(a), rarity(b)))
    return sum(weight(a, b) for a, b in pairs if (a, b) not in seen) / len(pairs)


def parts_unseen(
    parts: Sequence[Sequence[str]],
    sentences: Sequence[str],
    window: int = 4,
    rarity: Callable[[str], float] | None = None,
) -> float:
    """For a topic asked as coordinated parts ("FooNet training or BarNet pruning", rag.question.coordinated_parts):
    the least share of unseen adjacent word pairs (``pairs_unseen``) over its parts of two words or more, a part of
    one word that some sentence holds counting as a part treated (0.0); 0.0 when no part counts. Words on either side of "or", "and" or a comma are two topics, not a phrase, and a request
    for papers on any of several topics is on the corpus when one of them is treated there as a phrase.
    ``rarity`` (word -> 0..1, how rare it is in English): each unseen pair counts by its commoner word's rarity, so
    a phrase of everyday words ("keeping safe", which abstracts say in their own terms) missing weighs less than a
    term of the field ("quux regularisation") missing."""
    shares = []
    for part in parts:
        if len(part) < 2:
            # a part of one word is a topic of its own: treated when a sentence holds it ("biological or microscopy
            # imaging": "biological" written is one part found, however the other is written)
            if part and any(part[0] in content_words(sentence) for sentence in sentences):
                shares.append(0.0)
            continue
        if rarity is None:
            shares.append(pairs_unseen(part, sentences, window))
            continue
        pairs = list(zip(part, part[1:], strict=False))
        shares.append(
            sum(pairs_unseen(pair, sentences, window) * min(rarity(pair[0]), rarity(pair[1])) for pair in pairs)
            / len(pairs)
        )
    return min(shares, default=0.0)


def _features(retrieved: Retrieved, policy: AnswerPolicy) -> dict[str, float]:
    return features(retrieved.signals, policy) if retrieved.signals else {}


def sources_for(snapshot: IndexSnapshot, ids: Sequence[str]) -> list[Source]:
    return [Source(i, snapshot.abstracts[aid]) for i, aid in enumerate(dict.fromkeys(ids), start=1)]


def verify_claim(
    claim: str,
    abstract_id: str,
    snapshot: IndexSnapshot,
    embedder,
    policy: VerifyPolicy | None = None,
    vector: np.ndarray | None = None,
) -> Verdict:
    """Does abstract ``abstract_id`` support ``claim`` (marker-free text)? The one check behind `rag verify` and
    the generated-answer verification: MiniLM similarity to each of the abstract's sentences, then rag.verify
    (imported here: extractive answers never check claims, and the module is ~1 MiB of a serving process)."""
    from rag.verify import check_claim

    abstract = snapshot.abstracts[abstract_id]
    if vector is None:
        vector = embedder.encode([claim])[0]
    rows = list(snapshot.sentence_rows[abstract_id])
    sims = snapshot.sentence_vectors[rows] @ vector if rows else np.zeros(0)
    spans = [snapshot.sentence_spans[r] for r in rows]
    return check_claim(claim, abstract.text, spans, [float(x) for x in sims], policy)


class SupportScorer:
    """Checks sentences against the sources they cite (rag.verify); caches sentence vectors within one answer."""

    def __init__(
        self, snapshot: IndexSnapshot, embedder, sources: Sequence[Source], policy: VerifyPolicy | None = None
    ) -> None:
        self.snapshot = snapshot
        self.embedder = embedder
        self.sources = sources
        self.policy = policy or VerifyPolicy()
        self._vectors: dict[str, np.ndarray] = {}

    def prime(self, sentences: Sequence[str]) -> None:
        todo = [s for s in dict.fromkeys(sentences) if s not in self._vectors]
        if todo:
            for text, vector in zip(todo, self.embedder.encode(todo), strict=True):
                self._vectors[text] = vector

    def verdict(self, sentence: str, number: int) -> Verdict:
        abstract = self.sources[number - 1].abstract
        self.prime([sentence])
        return verify_claim(sentence, abstract.id, self.snapshot, self.embedder, self.policy, self._vectors[sentence])

    def __call__(self, sentence: str, number: int) -> Support:
        v = self.verdict(sentence, number)
        return Support(v.support, v.evidence_span, v.verified, v.reason)


def verify(
    text: str, sources: Sequence[Source], snapshot: IndexSnapshot, embedder, policy: VerifyPolicy | None = None
) -> list[AnswerSentence]:
    parsed = split_answer(text, len(sources))
    scorer = SupportScorer(snapshot, embedder, sources, policy)
    scorer.prime([p.text for p in parsed])
    return [_to_answer_sentence(v, sources) for v in verify_sentences(parsed, len(sources), scorer)]


def _to_answer_sentence(v: VerifiedSentence, sources: Sequence[Source]) -> AnswerSentence:
    return AnswerSentence(
        text=v.text,
        citations=[
            Citation(n, sources[n - 1].abstract.id, s.score, s.evidence.start, s.evidence.end) for n, s in v.citations
        ],
        verified=v.verified,
        note=v.note,
        support_label="supported" if v.verified else "unsupported",
        reason="" if v.verified else (v.reason or v.note or "no cited abstract supports it"),
    )


def judge_sentences(
    sentences: Sequence[AnswerSentence],
    sources: Sequence[Source],
    ask_judge: Callable[[str, str], str],
    rejects_not_stated: bool = True,
) -> list[str]:
    """Let the model judge each sentence the checks accepted against its evidence (rag.judge), in place; returns
    notices. The first judgement that fails (timeout, server gone) ends judging: the rest keep the checks' verdict."""
    from rag import judge

    unusable = 0
    for i, sentence in enumerate(sentences):
        if not sentence.verified or not sentence.citations:
            continue
        evidence = " ".join(
            dict.fromkeys(
                sources[c.number - 1].abstract.text[c.evidence_start : c.evidence_end] for c in sentence.citations
            )
        )
        try:
            reply = ask_judge(sentence.text, evidence)
        except RagError as exc:
            left = sum(1 for s in sentences[i:] if s.verified)
            return [f"The model judge stopped ({exc.message}); {left} sentence(s) were checked without it."]
        judgement = judge.parse(reply)
        if judgement is None:
            unusable += 1
            continue
        supported, reason = judge.combine(True, "", judgement, rejects_not_stated)
        if not supported:
            sentence.verified, sentence.support_label, sentence.reason = False, "unsupported", reason
    if unusable:
        return [f"The model judge's reply for {unusable} sentence(s) was not the JSON asked for; the checks decided."]
    return []


def extractive_answer(retrieved: Retrieved, snapshot: IndexSnapshot) -> tuple[str, list[Source]]:
    sources = sources_for(snapshot, retrieved.plan.abstract_ids)
    text = extractive.render(retrieved.plan, snapshot.abstracts)
    return text, sources


def _extractive_sentences(retrieved: Retrieved, sources: Sequence[Source]) -> list[AnswerSentence]:
    """Quoted sentences support themselves: cite their own span with full support (no re-scoring needed)."""
    numbers = {s.abstract.id: s.number for s in sources}
    return [
        AnswerSentence(
            text=e.text,
            citations=[Citation(numbers[e.abstract_id], e.abstract_id, 1.0, e.span.start, e.span.end)],
            verified=True,
            support_label="quoted",
        )
        for e in retrieved.plan.sentences
    ]


def _did_you_mean(retrieved: Retrieved) -> list[str]:
    fuzzy = [name for _, name in retrieved.linking.suggestions] if retrieved.linking else []
    names = [fix for fix in retrieved.corrections if fix != fix.lower()]  # names, not ordinary words
    return list(dict.fromkeys([*names, *fuzzy]))


def abstention(
    question: str,
    retrieved: Retrieved,
    snapshot: IndexSnapshot,
    backend: str,
    model: str | None,
    policy: AnswerPolicy | None = None,
) -> Answer:
    nearest_count = (policy or AnswerPolicy()).nearest
    nearest = sources_for(snapshot, [r.abstract.id for r in retrieved.ranked[:nearest_count]])
    names = ", ".join(f"**{s.abstract.label}**" for s in nearest)
    shape = retrieved.profile.shape
    reason = retrieved.abstain_reason
    if shape in ("yes_no", "list", "summary"):
        text = f"No — none of the abstracts addresses this. {reason} The nearest are {names}."
    else:
        text = f"{ABSTAIN_TEXT} {reason} The nearest abstracts are {names}." if names else f"{ABSTAIN_TEXT} {reason}"
    suggestions = _did_you_mean(retrieved)
    if suggestions:
        text += " Did you mean " + " or ".join(f"“{s}”" for s in suggestions) + "?"
    return Answer(
        question=question,
        text=text,
        sentences=[],
        sources=[],
        abstained=True,
        backend=backend,  # type: ignore[arg-type]
        model=model,
        nearest=nearest,
        abstention_score=retrieved.abstention_score,
        abstention_features=_features(retrieved, policy or AnswerPolicy()),
        reason=reason,
        shape=shape,
        suggestions=suggestions,
    )


def _with_previous_answers(history: Sequence[dict], answer_turn) -> list[dict]:
    """History whose user turns each have an assistant reply with sources; rebuilt extractively when missing
    (e.g. a question set that records only the user's turns)."""
    history = list(history)
    if not history or history[-1].get("role") != "user":
        return history
    earlier = _with_previous_answers(history[:-1], answer_turn)  # every earlier turn's answer, as a chat shows it
    answer = answer_turn(str(history[-1].get("content", "")), earlier)
    if answer is None:
        return [*earlier, history[-1]]
    sources = [{"number": s.number, "id": s.abstract.id, "label": s.abstract.label} for s in answer.sources]
    return [*earlier, history[-1], {"role": "assistant", "content": answer.text, "sources": sources}]


def _referenced_sources(question: str, standalone: str, history: Sequence[dict]) -> list[str]:
    """Sources of the previous answer whose label the follow-up rewrite brought in ("the second one" -> label)."""
    if standalone == question:
        return []
    other = other_source(history) if points_by_position(question) else None  # "the other one": maybe an older answer's
    return list(dict.fromkeys(
        str(s["id"])
        for s in [*last_sources(history, question), *([other] if other else [])]
        if s.get("id") and s.get("label") and s["label"] in standalone and s["label"] not in question
    ))  # fmt: skip


def _refused_work(
    question: str, history: Sequence[dict], snapshot: IndexSnapshot, policy: AnswerPolicy
) -> list[dict]:
    """``history`` as a follow-up ``question`` refers into it when the last answer was refused (no sources): that
    answer's source is the one work of the corpus its question named ("What is FooNet's learning rate?" refused;
    "what about its results?" asks about FooNet); when it named none, "it" is what the refused question asked
    about, not a paper of an older answer, whose sources are left out (unless the follow-up picks one by its place:
    "the second one"), or unless the refused question was itself a follow-up about that older paper ("what is its
    licence?" refused: "how big is it?" still asks about the paper). Unchanged when the last answer cited
    papers."""
    history = list(history)
    last = max((i for i, e in enumerate(history) if e.get("role") == "user"), default=None)
    if last is None or any(e.get("sources") for e in history[last + 1 :] if e.get("role") == "assistant"):
        return history
    refused = str(history[last].get("content", ""))
    corrected, _ = correct_question(snapshot, refused, policy)
    named = _works_named(snapshot, link_question(snapshot, corrected, policy), corrected)
    if not named and history[:last] and condense_heuristic(refused, history[:last]) != refused:
        # the refused question was itself a follow-up about an older answer's paper ("what problem does it
        # address?"): the next one's "it" is still that paper
        return history
    if not named and not points_by_position(question):
        return [{k: v for k, v in e.items() if k != "sources"} for e in history]
    if len(named) != 1:
        return history
    source = {"number": 1, "id": named[0], "label": snapshot.abstracts[named[0]].label}
    replies = [i for i in range(last + 1, len(history)) if history[i].get("role") == "assistant"]
    if replies:
        history[replies[-1]] = {**history[replies[-1]], "sources": [source]}
    else:
        history.append({"role": "assistant", "content": "", "sources": [source]})
    return history


# what a "similar" follow-up is like when no earlier answer cited a paper (an id no abstract has)
NO_EARLIER_PAPERS = ""
# "what's the closest one?" after a refusal: the papers nearest the refused question (an id no abstract has)
NEAREST_ASKED = " nearest"


def _last_refused(history: Sequence[dict]) -> bool:
    """Whether the last answer of ``history`` cited nothing (a refusal) after a question of the user's."""
    replies = [e for e in history if e.get("role") == "assistant"]
    return bool(replies) and not replies[-1].get("sources") and last_user_question(history) is not None


def _respelt(question: str, corrected: str) -> str:
    """``question`` with the words ``corrected`` spells otherwise put right, but not those it only writes in other
    capitals ("llms" stays as typed: a name in capitals would read as a work the follow-up names); as typed when the
    correction changed the words' number (a hyphen put into a glued word)."""
    typed, fixed = question.split(), corrected.split()
    if len(typed) != len(fixed):
        return question
    return " ".join(f if f.lower() != t.lower() else t for t, f in zip(typed, fixed, strict=True))


# a follow-up asking only which things of a kind ("which modalities?", "and what organs"): the kind is of the paper
# discussed, whose names the answer gives, not a topic to search the collection for ("what about aptamers?" is one)
_WHICH_KIND = re.compile(
    r"^\W*(?:(?:and|so|ok(?:ay)?)[\s,]+)?(?:(?:on|in|for|with|from|under|across)\s+)?(?:which|what)\s+(?!about\b|of\b)"
    r"[\w-]+(?:\s+[\w-]+)?\W*$",
    re.I,
)


def _new_subject_check(snapshot: IndexSnapshot, history: Sequence[dict], policy: AnswerPolicy) -> Callable[[str], bool]:
    """Whether a short follow-up that points at nothing starts a subject of its own ("how do FooNets work?", "what
    about aptamers?" after an answer about BarNet) rather than asking about the last answer's papers ("and the
    dataset?", "which baselines?"): it holds a word that neither those papers nor the previous question use, few
    abstracts use (policy.new_subject_df_share) and English rarely does (policy.new_subject_rarity); not when it
    asks for a detail of a kind a paper states ("what about latency?": a value; "which GPU?": hardware), nor when
    the word is no topic of any abstract (_is_a_topic: "any ablations?")."""
    ids = [str(s["id"]) for s in last_sources(history) if s.get("id") in snapshot.abstracts]
    earlier = set(content_words(last_user_question(history) or ""))
    n_docs = len(snapshot.abstracts)

    def starts_new(question: str) -> bool:
        words = [w for w in content_words(question) if w not in earlier]
        if not words or _WHICH_KIND.match(question):
            return False
        asked = profile(fix_shape_words(elliptic_ask(question)))
        if answer_type(asked.text, asked.kind) not in (None, "name"):
            return False
        present, doc_freq = topic_presence(snapshot, words, among=ids)
        held = set().union(*present.values()) if present else set()
        surfaces = _surfaces(question)
        return any(
            w not in held
            and 0 < doc_freq.get(w, 0) <= policy.new_subject_df_share * n_docs
            and english_rarity(surfaces.get(w, w), policy.rarity_zipf_scale) >= policy.new_subject_rarity
            and _is_a_topic(snapshot, w)
            for w in words
        )

    return starts_new


_TOPIC_ROLES = frozenset({"background", "gap", "contribution"})


def _is_a_topic(snapshot: IndexSnapshot, word: str) -> bool:
    """Whether some abstract says what it is about with the word (a content-word stem): it is in a background, gap
    or contribution sentence ("aptamer", "inpainting"), not only in how a work is built or evaluated ("ablation",
    "latency": a detail a follow-up asks of the paper it is about)."""
    bm25 = snapshot.sentence_bm25
    column = bm25.vocabulary.get(word)
    if column is None:
        return False
    roles = snapshot.sentence_roles
    return any(roles[int(row)] in _TOPIC_ROLES for row in bm25.weights.rows_of(column))


def _as_read(history: Sequence[dict]) -> str:
    """The last question of ``history`` as it was read against the turns before it ("the second one" -> the second
    paper's name), so that "tell me more" after it is about that paper; a "tell me more" reads as the question it
    asked more of."""
    last = max((i for i, e in enumerate(history) if e.get("role") == "user"), default=None)
    if last is None:
        return ""
    previous, earlier = str(history[last].get("content", "")), history[:last]
    if earlier and is_more_request(previous):  # "tell me more" again: the question the first one was more of
        return _as_read(earlier) or previous
    return condense_heuristic(previous, earlier) if earlier else previous


@dataclass(slots=True)
class QuestionState:
    """One question on its way through the answer flow: what was asked, the standalone question retrieval reads
    (a follow-up rewritten, a question in another language translated or glossed), and what each step found.

    ``prepare_question`` makes it; ``rank``, ``select_evidence`` and ``decide_abstention`` fill ``ranking``,
    ``plan`` and ``retrieved``; ``compose_answer`` turns it into the Answer. The LlamaIndex components
    (rag/query_engine.py) carry it on their QueryBundle."""

    question: str
    standalone: str
    history: list[dict]
    notices: list[str]
    more: tuple[list[str], set[str]] | None = None
    pinned: list[str] = field(default_factory=list)
    glossed: bool = False
    started: float = field(default_factory=time.perf_counter)
    ranking: Ranking | None = None
    plan: extractive.ExtractivePlan | None = None
    retrieved: Retrieved | None = None
    answer: Answer | None = None
    ask: str | None = None  # a follow-up's own question, for choosing its paper's sentences (rag.followup.own_ask)
    similar: list[str] = field(default_factory=list)  # "anything similar?": the earlier papers (rag.similar)
    each: list[str] = field(default_factory=list)  # "do both release code?": the earlier works it asks about together
    group_lead: str = ""  # "tell me more about the second theme": the lead naming the group ``each`` holds


def prepare_question(
    question: str,
    *,
    snapshot: IndexSnapshot,
    retriever: HybridRetriever,
    top_k: int,
    policy: AnswerPolicy | None = None,
    history: Sequence[dict] = (),
    composer=None,
    notices: Sequence[str] = (),
) -> QuestionState:
    """The standalone question to retrieve for: a follow-up rewritten against the history (whose earlier answers
    are rebuilt extractively when it holds only the user's turns), "tell me more" resolved to the previous
    answer's papers, a question the encoder cannot read translated (by the model) or glossed (by a dictionary)."""
    policy = policy or AnswerPolicy()
    started = time.perf_counter()
    notices = list(notices)
    history = list(history)
    if history and history[-1].get("role") == "user":

        def answer_turn(turn: str, turn_history: list[dict]) -> Answer | None:
            events = stream_answer(turn, snapshot=snapshot, retriever=retriever, top_k=top_k, policy=policy,
                                   history=turn_history)  # fmt: skip
            final = None
            for event in events:
                final = event
            return final if isinstance(final, Answer) and not final.abstained else None

        history = _with_previous_answers(history, answer_turn)
    asked = question
    if history:  # a follow-up read as spelt right: "wat about the secnd one", "how many screns"
        question = _respelt(question, correct_question(snapshot, question, policy)[0])
    if history:  # a refused question naming one work: "what about its results?" asks about that work
        history = _refused_work(question, history, snapshot, policy)
    if history:  # "it" reads as the work's name, not as its abstract's opening words
        ids = [str(s["id"]) for s in last_sources(history, question) if s.get("id") in snapshot.abstracts]
        history = with_names(history, unlabelled_names(snapshot, ids))
    def found(text: str) -> list[str]:
        return [r.abstract.id for r in retriever.search(text, top_k)]

    # "tell me more about the one that prunes heads": that source of the last answer, found by what it does
    def found_scored(text: str) -> list[tuple[str, float]]:
        return [(r.abstract.id, r.score) for r in retriever.search(text, top_k)]

    described = (
        resolve_described(question, history, found_scored, policy.described_listed_share,
                           lambda aid: _work_label(snapshot, aid))  # fmt: skip
        if history else question
    )
    # "do both release code?", "which one is faster?", "compare them": the earlier works together
    each: list[str] = []
    if history and described == question and not is_more_request(question):
        each = [aid for aid in referred_works(question, history, asks_for_availability(question))
                if aid in snapshot.abstracts]  # fmt: skip
        each = each if len(each) > 1 else []
    # "how many runs did they do?" after a list of papers: "they" is the listed paper the question is about
    is_work = _work_check(snapshot) if history else None
    def answering_first(text: str) -> list[str]:
        # a search's order, except that a count question ("how many trajectories did they build?") is about the
        # papers stating a count of what it counts (extractive.counts) before the others
        ids = found(f"{text} {_as_read(history)}")  # what it asks, within what the conversation is about
        counted = profile(fix_shape_words(text))
        if not (counted.kind == "number" and counted.asks_count and counted.focus_words):
            return ids
        listed = [str(s["id"]) for s in last_sources(history) if s.get("id") in snapshot.abstracts]
        ids = list(dict.fromkeys([*ids, *listed]))  # a listed paper the search leaves out is still a candidate

        def counts_it(aid: str) -> bool:
            return aid in listed and any(
                extractive.counts(snapshot.sentence_text(row), w) for row in rows_of(snapshot, [aid])
                for w in counted.focus_words
            )  # fmt: skip

        return sorted(ids, key=lambda aid: not counts_it(aid))

    subject = (
        pronoun_source(question, history, answering_first, is_work)
        if history and described == question and not each
        else None
    )
    similar: list[str] = []
    if history and _last_refused(history) and (
        asks_closest(question) or (asks_similar(question) and not last_sources(history, question))
    ):  # "what's the closest one?" after a refusal: the papers nearest the refused question, a line each
        return QuestionState(asked, _as_read(history), history, notices, started=started, similar=[NEAREST_ASKED])
    if asks_similar(question):  # "anything similar?": more like the papers just discussed
        similar = [str(s["id"]) for s in last_sources(history, question) if s.get("id") in snapshot.abstracts]
        similar = similar or [NO_EARLIER_PAPERS]  # none yet: it asks for nothing the collection can be searched for
    elif (tail := similar_to_tail(question)) is not None:  # "papers similar to FooNet": like the work it names
        corrected, _ = correct_question(snapshot, tail, policy)
        named = _works_named(snapshot, link_question(snapshot, corrected, policy), corrected)
        similar = named if len(named) == 1 else []
    if similar:
        return QuestionState(asked, question, history, notices, started=started, similar=similar)
    grouped = _group_asked(question, history, snapshot, policy) if history else None
    if grouped is not None:  # "tell me more about the second theme": that group's papers, a line each
        members, lead, group_asks = grouped
        return QuestionState(asked, question, history, notices, pinned=members, started=started, ask=group_asks,
                             each=members, group_lead=lead)  # fmt: skip
    more = None
    if history and is_more_request(question):
        previous = last_user_question(history)
        ids = [str(s["id"]) for s in last_sources(history, question) if s.get("id")]
        said = set()
        for entry in history:
            if entry.get("role") == "assistant":
                said |= extractive.said_sentences(str(entry.get("content", "")))
        if previous and ids:
            more = (ids, said)
            resolved = condense_heuristic(described, history, subject, is_work)
            # more of the previous answer: its question, as it was read
            standalone = _as_read(history) if resolved == question or FOLLOW_UP_TO in resolved else resolved
        else:
            standalone = condense_heuristic(described, history, subject, is_work)
    elif each:  # the works' names in place of the words standing for them ("compare them" -> "compare X and Y")
        standalone = with_works_named(question, [_work_label(snapshot, aid) for aid in each])
    elif described != question and described.endswith(")"):
        # "the one on X, what does it …? (Label…)": the paper it means is already given; "it" is that paper
        standalone = described
    else:
        standalone = (
            composer.condense(described, history)
            if (composer and history)
            else condense_heuristic(
                described, history, subject, is_work, _new_subject_check(snapshot, history, policy) if history else None
            )
        )
    glossed = False

    def glossed_english() -> str | None:  # the question glossed word by word, if the encoder then reads it
        text = gloss(standalone, known=snapshot.lexicon.stems.__contains__, rare_zipf=policy.gloss_rare_zipf)
        return text if text and readable_by_encoder(text) else None

    if not readable_by_encoder(standalone):
        translated = composer.translate(standalone) if composer is not None and hasattr(composer, "translate") else None
        glossed_text = None if translated else glossed_english()
        if translated and readable_by_encoder(translated):
            standalone = translated
            notices.append("The question was translated into English for retrieval; the answer quotes the abstracts.")
        elif glossed_text:
            glossed = True
            standalone = glossed_text
            notices.append(GLOSS_NOTICE)
        else:
            notices.append(NOT_ENGLISH_NOTICE)
    elif has_chinese(standalone):
        # mostly English with Chinese words between ("kv cache 相关的论文有哪些", "有没有做 speculative decoding 的"):
        # the Chinese says how it asks (which papers, is there one) and what about; glossed, the English reads it
        standalone = glossed_english() or standalone
    pinned = _referenced_sources(question, standalone, history)
    if more is not None and pinned:
        more = ([aid for aid in more[0] if aid in pinned] or more[0], more[1])
    elif more is not None:  # "tell me more" is about the papers just shown, however the earlier question read
        pinned = [aid for aid in more[0] if aid in snapshot.abstracts]
    ask = own_ask(question, history) if more is None and pinned and standalone != question else None
    ask = question if more is not None else ask  # "tell me more about the results": it picks the next sentences
    if each:  # the works are known; what it asks of each picks their sentences ("compare them" asks nothing more)
        pinned, ask = each, each_ask(question) or None
        each = each if ask else []
    return QuestionState(asked, standalone, history, notices, more, pinned, glossed, started, ask=ask, each=each)


def _group_asked(
    question: str, history: Sequence[dict], snapshot: IndexSnapshot, policy: AnswerPolicy
) -> tuple[list[str], str, str] | None:
    """A follow-up picking one group of the last answer's grouping of the collection ("tell me more about the second
    theme", "which papers in group 3 use graphs?"): the group's papers, the lead naming it, and what it asks of each
    ("" when it asks nothing more: each paper is quoted as the grouping quoted its papers). None when the question
    picks no group of such an answer."""
    reference = group_reference(question)
    count = answered_groups(history)
    if reference is None or not count:
        return None
    themes = collection_themes(snapshot, policy)
    position, words = reference
    if len(themes) != count or not (position == -1 or 1 <= position <= count):
        return None  # the index changed since, or no such group
    index = count - 1 if position == -1 else position - 1
    theme = themes[index]
    members = [aid for aid in theme.abstract_ids if aid in snapshot.abstracts]
    lead = f"Group {index + 1} of {count} (**{' · '.join(theme.words)}**, {len(members)} papers):"
    return members, lead, group_ask(question, words)


def stream_answer(
    question: str,
    *,
    snapshot: IndexSnapshot,
    retriever: HybridRetriever,
    top_k: int,
    policy: AnswerPolicy | None = None,
    history: Sequence[dict] = (),
    composer=None,
    notices: Sequence[str] = (),
    verify_policy: VerifyPolicy | None = None,
) -> Iterator[StreamEvent]:
    """Answer ``question``; with ``composer`` None the answer is extractive.

    The steps, in order, are the ones the LlamaIndex components run (rag/query_engine.py: AbstractRetriever ->
    EvidencePostprocessor -> AbstentionPostprocessor -> CitedSynthesizer), called here directly so that answering
    does not import LlamaIndex's core (1–2 s at start)."""
    policy = policy or AnswerPolicy()
    state = prepare_question(question, snapshot=snapshot, retriever=retriever, top_k=top_k, policy=policy,
                             history=history, composer=composer, notices=notices)  # fmt: skip
    state.ranking = rank(state.standalone, snapshot, retriever, top_k, policy, more=state.more, pinned=state.pinned,
                         similar=state.similar)  # fmt: skip
    state.plan = select_evidence(state.ranking, snapshot, retriever, policy, more=state.more, ask=state.ask,
                                 similar=state.similar, glossed=state.glossed, each=state.each,
                                 group_lead=state.group_lead)  # fmt: skip
    state.retrieved = decide_abstention(state.ranking, state.plan, snapshot, top_k, policy, pinned=state.pinned,
                                        glossed=state.glossed, similar=state.similar, more=state.more)  # fmt: skip
    yield from compose_answer(state, snapshot=snapshot, embedder=retriever.embedder, top_k=top_k, policy=policy,
                              composer=composer, verify_policy=verify_policy)  # fmt: skip


def compose_answer(
    state: QuestionState,
    *,
    snapshot: IndexSnapshot,
    embedder,
    top_k: int,
    policy: AnswerPolicy | None = None,
    composer=None,
    verify_policy: VerifyPolicy | None = None,
) -> Iterator[StreamEvent]:
    """Compose and verify the answer for a question whose abstention is decided (``state.retrieved``): the
    abstain answer, the extractive one (``composer`` None), or the model's, streamed, checked, and replaced by
    the extractive one when too little of it is supported. Yields text pieces, then the Answer."""
    policy = policy or AnswerPolicy()
    retrieved = state.retrieved
    if retrieved is None:
        raise ValueError("compose_answer needs the question's abstention decided (decide_abstention) first")
    question, standalone, history, notices, started = (
        state.question, state.standalone, state.history, state.notices, state.started
    )  # fmt: skip
    timings = Timings(retrieve_s=retrieved.seconds)
    backend = "ollama" if composer else "extractive"
    model = getattr(composer, "model", None) if composer else None

    def finish(answer: Answer) -> Answer:
        answer.standalone_question = standalone if standalone != question else None
        answer.notices = notices + answer.notices
        answer.timings.total_s = time.perf_counter() - started
        answer.abstention_score = retrieved.abstention_score
        answer.abstention_features = _features(retrieved, policy)
        answer.shape = retrieved.profile.shape
        if not answer.suggestions:
            answer.suggestions = _did_you_mean(retrieved)
        state.answer = answer
        return answer

    if retrieved.abstain:
        answer = abstention(question, retrieved, snapshot, backend, model, policy)
        answer.timings = timings
        yield TextDelta(answer.text)
        yield finish(answer)
        return

    if composer is None:
        text, sources = extractive_answer(retrieved, snapshot)
        suggestions = _did_you_mean(retrieved)
        if suggestions:
            quoted = [f"“{s}”" for s in suggestions]
            names = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
            notices.append(f"Answered for {names} (did you mean {'it' if len(quoted) == 1 else 'them'}?).")
        yield TextDelta(text)
        verify_started = time.perf_counter()
        sentences = _extractive_sentences(retrieved, sources)
        timings.verify_s = time.perf_counter() - verify_started
        yield finish(Answer(question, text, sentences, sources, False, "extractive", None, timings))
        return

    # --- generation through a model ---
    ids = [*retrieved.plan.abstract_ids, *(r.abstract.id for r in retrieved.ranked)]
    sources = sources_for(snapshot, ids[: max(top_k, len(retrieved.plan.abstract_ids))])
    stats = GenerationStats(model=model)
    pieces: list[str] = []
    interrupted = False
    generate_started = time.perf_counter()
    try:
        for piece in composer.stream(standalone, sources, stats, history):
            pieces.append(piece)
            yield TextDelta(piece)
    except GenerationError as exc:
        if not "".join(pieces).strip():
            raise
        interrupted = True
        notices.append(f"{exc.message} What arrived is shown and checked.")
    timings.generate_s = time.perf_counter() - generate_started
    timings.first_token_s = stats.first_token_s
    text = "".join(pieces).strip()
    verify_started = time.perf_counter()
    sentences = verify(text, sources, snapshot, embedder, verify_policy)
    if getattr(verify_policy, "judge", False) and hasattr(composer, "judge"):
        notices.extend(judge_sentences(sentences, sources, composer.judge, verify_policy.judge_rejects_not_stated))
    timings.verify_s = time.perf_counter() - verify_started
    answer = Answer(
        question, text, sentences, sources, False, "ollama", stats.model or model, timings,
        prompt_tokens=stats.prompt_tokens, completion_tokens=stats.completion_tokens, interrupted=interrupted,
    )  # fmt: skip
    if _model_declined(text):
        fallback = abstention(question, retrieved, snapshot, "ollama", answer.model, policy)
        fallback.text = f"{ABSTAIN_TEXT} The model found no answer in the retrieved abstracts."
        fallback.timings = timings
        fallback.prompt_tokens, fallback.completion_tokens = stats.prompt_tokens, stats.completion_tokens
        yield finish(fallback)
        return
    if answer.verified_share < policy.min_verified_share and not interrupted:
        verified = sum(s.verified for s in sentences)
        text, ex_sources = extractive_answer(retrieved, snapshot)
        fallback = Answer(
            question, text, _extractive_sentences(retrieved, ex_sources), ex_sources, False, "extractive",
            answer.model, timings, prompt_tokens=stats.prompt_tokens, completion_tokens=stats.completion_tokens,
        )  # fmt: skip
        fallback.notices.append(
            f"Only {verified} of {len(sentences)} sentences of the model's answer are supported by the abstracts "
            "they cite, so the extractive answer (sentences quoted from the abstracts) is shown instead."
        )
        yield finish(fallback)
        return
    yield finish(answer)


def _model_declined(text: str) -> bool:
    """The model's whole reply is the agreed "the abstracts do not answer" sentence (not merely quoting it)."""
    lowered = " ".join(text.lower().split())
    return len(lowered) < 160 and lowered.startswith(("the provided abstracts do not", "the abstracts do not"))
