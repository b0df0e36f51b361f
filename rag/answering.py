"""Question -> verified, cited Answer: retrieve, select evidence, decide abstention, compose, verify.

One flow for every front end. ``stream_answer`` yields text as it is produced and ends with the Answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from rag.abstain import AbstentionSignals, decide
from rag.answer import Answer, AnswerSentence, Citation, Source, StreamEvent, TextDelta, Timings
from rag.cite import (
    Support,
    VerifiedSentence,
    number_agreement,
    split_answer,
    support_score,
    verify_sentences,
    word_overlap,
)
from rag.compose import GenerationStats, extractive
from rag.errors import GenerationError
from rag.evidence import EvidenceSentence, rows_of, score_sentences
from rag.followup import condense_heuristic
from rag.question import QuestionProfile, clauses, profile, term_occurs
from rag.retrieve import HybridRetriever, IndexSnapshot, RankedAbstract
from rag.text import content_words

log = logging.getLogger(__name__)

MIN_VERIFIED_SHARE = 0.5  # below this a generated answer is replaced by the extractive one
EVIDENCE_ABSTRACTS = 3  # single-paper questions: evidence is looked for in the top retrieved abstracts
NEAREST = 3
ABSTAIN_TEXT = "The abstracts do not answer this question."


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


def retrieve(question: str, snapshot: IndexSnapshot, retriever: HybridRetriever, top_k: int) -> Retrieved:
    started = time.perf_counter()
    prof = profile(question)
    embedder = retriever.embedder
    vector = embedder.encode([question])[0]
    ranked = retriever.search(question, max(top_k, EVIDENCE_ABSTRACTS), query_vector=vector)
    if prof.kind == "list":
        evidence = score_sentences(prof, vector, snapshot, range(len(snapshot.sentence_texts)))
        plan = extractive.plan_list(evidence)
    else:
        top_ids = [r.abstract.id for r in ranked[:EVIDENCE_ABSTRACTS]]
        evidence = score_sentences(prof, vector, snapshot, rows_of(snapshot, top_ids))
        answer_id = top_ids[0] if top_ids else None
        own = [e for e in evidence if e.abstract_id == answer_id]
        parts = clauses(question)
        part_vectors = embedder.encode(parts) if parts else []
        clause_evidence = [
            score_sentences(profile(part), part_vector, snapshot, rows_of(snapshot, [answer_id]))
            for part, part_vector in zip(parts, part_vectors, strict=True)
        ]
        plan = (
            extractive.plan_single(answer_id, own, prof, clause_evidence)
            if answer_id
            else extractive.ExtractivePlan([], [])
        )
    abstain, reason = decide(_signals(prof, snapshot, plan, evidence))
    return Retrieved(question, prof, vector, ranked[:top_k], plan, abstain, reason, time.perf_counter() - started)


def _signals(prof: QuestionProfile, snapshot: IndexSnapshot, plan, evidence: Sequence[EvidenceSentence]):
    corpus = snapshot.lowered_corpus
    unknown = tuple(t for t in prof.specific_terms if not term_occurs(t, corpus))
    answer_text = " ".join(snapshot.abstracts[a].text for a in plan.abstract_ids[:1]).lower()
    missing = tuple(t for t in prof.specific_terms if t not in unknown and not term_occurs(t, answer_text))
    number_evidence = any(e.has_number and e.focus_share >= 0.5 for e in plan.sentences) or (
        not prof.focus_words and any(e.has_number for e in plan.sentences)
    )
    focus_in_answer = None
    if prof.focus_words and plan.abstract_ids:
        words = set(content_words(answer_text))
        focus_in_answer = sum(w in words for w in prof.focus_words) / len(prof.focus_words)
    return AbstentionSignals(
        kind=prof.kind,
        focus_in_answer=focus_in_answer,
        unknown_terms=unknown,
        terms_missing_from_answer=missing,
        best_dense=max((e.dense for e in evidence), default=0.0),
        number_evidence=number_evidence,
    )


def sources_for(snapshot: IndexSnapshot, ids: Sequence[str]) -> list[Source]:
    return [Source(i, snapshot.abstracts[aid]) for i, aid in enumerate(dict.fromkeys(ids), start=1)]


class SupportScorer:
    """Scores how well an abstract supports a sentence; caches sentence vectors within one answer."""

    def __init__(self, snapshot: IndexSnapshot, embedder, sources: Sequence[Source]) -> None:
        self.snapshot = snapshot
        self.embedder = embedder
        self.sources = sources
        self._vectors: dict[str, np.ndarray] = {}

    def prime(self, sentences: Sequence[str]) -> None:
        todo = [s for s in dict.fromkeys(sentences) if s not in self._vectors]
        if todo:
            for text, vector in zip(todo, self.embedder.encode(todo), strict=True):
                self._vectors[text] = vector

    def __call__(self, sentence: str, number: int) -> Support:
        abstract = self.sources[number - 1].abstract
        self.prime([sentence])
        rows = list(self.snapshot.sentence_rows[abstract.id])
        sims = self.snapshot.sentence_vectors[rows] @ self._vectors[sentence]
        best = int(np.argmax(sims))
        score = support_score(
            float(sims[best]), word_overlap(sentence, abstract.text), number_agreement(sentence, abstract.text)
        )
        return Support(score, self.snapshot.sentence_spans[rows[best]])


def verify(text: str, sources: Sequence[Source], snapshot: IndexSnapshot, embedder) -> list[AnswerSentence]:
    parsed = split_answer(text, len(sources))
    scorer = SupportScorer(snapshot, embedder, sources)
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
    )


def extractive_answer(retrieved: Retrieved, snapshot: IndexSnapshot) -> tuple[str, list[Source]]:
    sources = sources_for(snapshot, retrieved.plan.abstract_ids)
    text = extractive.render(retrieved.plan, snapshot.abstracts, retrieved.profile.kind == "list")
    return text, sources


def _extractive_sentences(retrieved: Retrieved, sources: Sequence[Source]) -> list[AnswerSentence]:
    """Quoted sentences support themselves: cite their own span with full support (no re-scoring needed)."""
    numbers = {s.abstract.id: s.number for s in sources}
    return [
        AnswerSentence(
            text=e.text,
            citations=[Citation(numbers[e.abstract_id], e.abstract_id, 1.0, e.span.start, e.span.end)],
            verified=True,
        )
        for e in retrieved.plan.sentences
    ]


def abstention(question: str, retrieved: Retrieved, snapshot: IndexSnapshot, backend: str, model: str | None) -> Answer:
    nearest = sources_for(snapshot, [r.abstract.id for r in retrieved.ranked[:NEAREST]])
    return Answer(
        question=question,
        text=f"{ABSTAIN_TEXT} {retrieved.abstain_reason} The nearest abstracts are listed below.",
        sentences=[],
        sources=[],
        abstained=True,
        backend=backend,  # type: ignore[arg-type]
        model=model,
        nearest=nearest,
    )


def stream_answer(
    question: str,
    *,
    snapshot: IndexSnapshot,
    retriever: HybridRetriever,
    top_k: int,
    history: Sequence[dict] = (),
    composer=None,
    notices: Sequence[str] = (),
) -> Iterator[StreamEvent]:
    """Answer ``question``; with ``composer`` None the answer is extractive."""
    started = time.perf_counter()
    notices = list(notices)
    standalone = (
        composer.condense(question, history) if (composer and history) else condense_heuristic(question, history)
    )
    retrieved = retrieve(standalone, snapshot, retriever, top_k)
    timings = Timings(retrieve_s=retrieved.seconds)
    backend = "ollama" if composer else "extractive"
    model = getattr(composer, "model", None) if composer else None
    embedder = retriever.embedder

    def finish(answer: Answer) -> Answer:
        answer.standalone_question = standalone if standalone != question else None
        answer.notices = notices + answer.notices
        answer.timings.total_s = time.perf_counter() - started
        return answer

    if retrieved.abstain:
        answer = abstention(question, retrieved, snapshot, backend, model)
        answer.timings = timings
        yield TextDelta(answer.text)
        yield finish(answer)
        return

    if composer is None:
        text, sources = extractive_answer(retrieved, snapshot)
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
    sentences = verify(text, sources, snapshot, embedder)
    timings.verify_s = time.perf_counter() - verify_started
    answer = Answer(
        question, text, sentences, sources, False, "ollama", stats.model or model, timings,
        prompt_tokens=stats.prompt_tokens, completion_tokens=stats.completion_tokens, interrupted=interrupted,
    )  # fmt: skip
    if _model_declined(text):
        fallback = abstention(question, retrieved, snapshot, "ollama", answer.model)
        fallback.text = f"{ABSTAIN_TEXT} The model found no answer in the retrieved abstracts."
        fallback.timings = timings
        fallback.prompt_tokens, fallback.completion_tokens = stats.prompt_tokens, stats.completion_tokens
        yield finish(fallback)
        return
    if answer.verified_share < MIN_VERIFIED_SHARE and not interrupted:
        verified = sum(s.verified for s in sentences)
        text, ex_sources = extractive_answer(retrieved, snapshot)
        fallback = Answer(
            question, text, _extractive_sentences(retrieved, ex_sources), ex_sources, False, "extractive",
            answer.model, timings, prompt_tokens=stats.prompt_tokens, completion_tokens=stats.completion_tokens,
        )  # fmt: skip
        fallback.notices.append(
            f"Only {verified} of {len(sentences)} sentences of the model's answer could be verified against the "
            "abstracts, so the extractive answer is shown instead."
        )
        yield finish(fallback)
        return
    yield finish(answer)


def _model_declined(text: str) -> bool:
    """The model's whole reply is the agreed "the abstracts do not answer" sentence (not merely quoting it)."""
    lowered = " ".join(text.lower().split())
    return len(lowered) < 160 and lowered.startswith(("the provided abstracts do not", "the abstracts do not"))
