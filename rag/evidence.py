"""Sentence-level evidence: score every candidate sentence for a question and pick the ones that answer it.

Scores combine MiniLM similarity (precomputed sentence vectors), BM25 over sentences, and whether the sentence
holds what the question asks for (a number for "how many", the counted or named thing), plus a bonus or penalty by
the sentence's role for the question's shape (a list wants contributions, not background). Weights: AnswerPolicy.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rag.abstain import spelled_out, with_long_forms
from rag.lexicon import is_name_like
from rag.manifest import sorted_unique
from rag.policy import AnswerPolicy
from rag.question import QuestionProfile, asked_kind, names_instances, states_count
from rag.retrieve import IndexSnapshot
from rag.roles import asks_for_availability, concludes, states_evaluation
from rag.text import Span, content_words, numbers_in


@dataclass(frozen=True, slots=True)
class EvidenceSentence:
    abstract_id: str
    row: int  # row in the snapshot's sentence arrays
    span: Span  # offsets into the abstract's text
    text: str
    score: float
    dense: float
    lexical: float  # BM25 relative to the best sentence in the corpus for this question (0..1)
    has_number: bool
    focus_share: float  # share of the question's focus words the sentence contains
    role: str = "background"  # what the sentence does in its abstract (rag.roles)
    role_bonus: float = 0.0  # the part of ``score`` that comes from the role (AnswerPolicy.role_bonus)
    new_names: int = 0  # how many distinct names the sentence holds that the question does not (counted only when
    # the question asks for names or what a work is evaluated on)

    @property
    def relevance(self) -> float:
        """The score without the role bonus: how much the sentence is about the question, whatever it does in its
        abstract (the role decides which sentence of a paper to quote, not whether the paper is relevant)."""
        return self.score - self.role_bonus


def score_sentences(
    profile: QuestionProfile,
    question_vector: np.ndarray,
    snapshot: IndexSnapshot,
    rows: Iterable[int],
    policy: AnswerPolicy | None = None,
    *,
    dense_weight: float = 1.0,
    asked_vector: np.ndarray | None = None,
) -> list[EvidenceSentence]:
    """Score the given sentence rows for the question, best first. ``dense_weight`` 0 ignores the encoder (for a
    question it cannot read) and leans on BM25 alone. ``asked_vector``: the encoded part of the question saying what
    is asked about its work (rag.question.asked_phrase); each sentence's similarity to it adds
    ``policy.asked_weight`` times itself, so that among one work's sentences the one answering what is asked wins,
    not the one that resembles the work's name."""
    policy = policy or AnswerPolicy()
    LEXICAL_WEIGHT, FOCUS_WEIGHT, NUMBER_BONUS = policy.lexical_weight, policy.focus_weight, policy.number_bonus  # noqa: N806
    DETAILED_ROWS = policy.detailed_rows  # noqa: N806
    rows = list(rows)
    if not rows:
        return []
    vectors = snapshot.sentence_vectors[rows]
    raw_dense = vectors @ question_vector
    asked_sim = None
    if asked_vector is not None and policy.asked_weight and dense_weight:
        asked_sim = policy.asked_weight * (vectors @ asked_vector)
    dense = raw_dense * dense_weight if dense_weight != 1.0 else raw_dense
    if dense_weight != 1.0:
        LEXICAL_WEIGHT = LEXICAL_WEIGHT + (1.0 - dense_weight)  # noqa: N806
    bm25_all = snapshot.sentence_bm25.scores(profile.text)
    top = float(bm25_all.max()) if bm25_all.size else 0.0
    lexical = bm25_all[rows] / top if top > 0 else np.zeros(len(rows), np.float32)
    if len(rows) > DETAILED_ROWS:
        # Large corpora: the per-sentence word and number checks below are Python-level. The bonuses add at most
        # FOCUS_WEIGHT + NUMBER_BONUS, so a sentence whose vectorised score trails the best by more cannot win.
        base = dense + LEXICAL_WEIGHT * lexical
        keep = np.flatnonzero(base >= base.max() - (FOCUS_WEIGHT + NUMBER_BONUS))
        if keep.size > DETAILED_ROWS:
            keep = keep[np.argpartition(-base[keep], DETAILED_ROWS - 1)[:DETAILED_ROWS]]
        rows = [rows[i] for i in keep]
        dense, lexical = dense[keep], lexical[keep]
        asked_sim = asked_sim[keep] if asked_sim is not None else None
    # How many focus words each sentence holds, from the sentence BM25 matrix (the same content words, so the same
    # as counting them in each sentence's words, without tokenizing thousands of sentences per question).
    roles = snapshot.sentence_roles
    bonus = dict(policy.role_bonus.get(role_key(profile), {}))
    if asks_for_availability(profile.text):
        bonus.pop("availability", None)
    asked = {t.lower() for t in profile.specific_terms}
    n_focus = len(profile.focus_words)
    focus_counts = snapshot.sentence_bm25.word_counts(profile.focus_words)[rows] if n_focus else None
    # "what joint types …", "which metrics …": a sentence naming instances of the kind asked for answers it
    kind = asked_kind(profile.text) if policy.instance_bonus and profile.shape in policy.instance_shapes else []
    scored = []
    for i, row in enumerate(rows):
        text = snapshot.sentence_text(row)
        has_number = bool(numbers_in(spelled_out(text)))  # "less than one percent" states a value too
        share = int(focus_counts[i]) / n_focus if focus_counts is not None else 0.0
        if profile.kind == "number" and has_number and n_focus > 0 and share < 1.0:
            # "five 1B-scale LMs" counts language models where its abstract defines "language models (LMs)"
            spelt = set(content_words(with_long_forms(text, snapshot.abstracts[snapshot.sentence_owner[row]].text)))
            share = max(share, sum(w in spelt for w in profile.focus_words) / n_focus)
        score = float(dense[i]) + LEXICAL_WEIGHT * float(lexical[i]) + FOCUS_WEIGHT * share
        if asked_sim is not None:
            score += float(asked_sim[i])
        if profile.kind == "number" and has_number and (not profile.asks_count or states_count(text)):
            score += NUMBER_BONUS  # "how many …" is answered by a count ("6,289 pairs"), not a score ("0.95")
        role = roles[row]
        if kind and role not in policy.instance_skip_roles and names_instances(text, kind):
            score += policy.instance_bonus
        role_bonus = bonus.get(role, 0.0)
        if (profile.asks_takeaway or profile.asks_significance) and concludes(text):
            # "what was the main takeaway", "why does that matter": the concluding sentence
            role_bonus += policy.conclusion_bonus
        score += role_bonus
        new_names = _count_new_names(text, asked) if profile.wants_names or profile.asks_evaluation else 0
        if new_names:
            score += policy.name_answer_bonus if profile.wants_names else 0.0
            if profile.asks_evaluation and states_evaluation(text):
                score += policy.evaluation_bonus
        scored.append(
            EvidenceSentence(
                abstract_id=snapshot.sentence_owner[row],
                row=row,
                span=snapshot.sentence_spans[row],
                text=text,
                score=score,
                dense=float(dense[i]),
                lexical=float(lexical[i]),
                has_number=has_number,
                focus_share=share,
                role=role,
                role_bonus=role_bonus,
                new_names=new_names,
            )
        )
    scored.sort(key=lambda e: (-e.score, e.row))
    return scored


def role_key(profile: QuestionProfile) -> str:
    """Which ``AnswerPolicy.role_bonus`` entry applies: the shape, or ``how_why_failure`` for a why-question about a
    shortcoming (its answer is the abstract's diagnosis, a gap sentence, not its method), ``findings`` for one asking
    what a work found, ``problem`` for one asking what problem it remedies (its gap sentences)."""
    if profile.shape == "how_why" and profile.explains_failure:
        return "how_why_failure"
    if profile.asks_significance and profile.shape in ("how_why", "fact", "followup"):  # "why does that matter?"
        return "significance"
    if profile.asks_findings and profile.shape in ("fact", "followup"):  # "what was the main finding?"
        return "findings"
    if profile.asks_problem and profile.shape in ("fact", "followup", "name"):  # "what problem does X address?"
        return "problem"
    return profile.shape


_TOKEN = re.compile(r"(?<![\w-])([A-Za-z0-9][\w]*(?:[-.][\w]+)*)")


def _new_names(sentence: str, asked: set[str]) -> bool:
    """Whether the sentence names something (CamelCase, ALLCAPS, letters with digits) the question does not."""
    return _count_new_names(sentence, asked) > 0


def _count_new_names(sentence: str, asked: set[str]) -> int:
    """How many distinct names (CamelCase, ALLCAPS, letters with digits) the sentence holds that the question does
    not: "on A, B and C" names three."""
    return len({m.group(1).lower() for m in _TOKEN.finditer(sentence) if is_name_like(m.group(1))} - asked)


def topic_coverage(topic: Sequence[str], present: Iterable[str], doc_freq: Mapping[str, int], n_docs: int) -> float:
    """The share of the question's topic words an abstract uses (``present``), each word weighted by its idf over
    the abstracts (``doc_freq`` of ``n_docs``): a paper using the rare words of the topic ("articulated", "regret")
    is about it; one sharing only its common words ("model", "data") is not. Words no abstract uses are left out
    (nothing can cover them); 0.0 when no word is left."""
    have = set(present)
    weights = {
        w: math.log1p((n_docs - doc_freq[w] + 0.5) / (doc_freq[w] + 0.5))
        for w in dict.fromkeys(topic)
        if doc_freq.get(w)
    }
    total = sum(weights.values())
    return sum(v for w, v in weights.items() if w in have) / total if total > 0 else 0.0


def distinctive_words(
    question: str, doc_freq: Mapping[str, int], max_docs: int, max_zipf: float, zipf: Callable[[str], float]
) -> list[str]:
    """The question's content words (stems, rag.text.content_words) that pick out a few abstracts: used by 1 to
    ``max_docs`` of them (``doc_freq``) and written as a word rarer in English than ``max_zipf`` (``zipf``: a
    lower-cased word -> its Zipf frequency). "neural collapse" -> ["collaps"] where few abstracts say "collapse"
    and many say "neural"; a common word a few abstracts happen to use ("built on top of") is not one."""
    out: list[str] = []
    for surface in _PLAIN_WORD.findall(question.lower()):  # "TabPFN-style": each part by its own rarity
        for w in content_words(surface):
            if w not in out and 0 < doc_freq.get(w, 0) <= max_docs and zipf(surface) < max_zipf:
                out.append(w)
    return out


_PLAIN_WORD = re.compile(r"[^\W_]+")


def topic_presence(
    snapshot: IndexSnapshot, words: Sequence[str], among: Iterable[str] | None = None
) -> tuple[dict[str, set[str]], dict[str, int]]:
    """Which of ``words`` (content words) each abstract (of ``among``, default all) uses, and in how many abstracts
    each occurs, read off the sentence BM25 matrix (a weight is non-zero exactly where the word occurs). Counted
    with numpy over the sentence owners, so a common word at 100k chunks costs no Python loop over its rows."""
    bm25 = snapshot.sentence_bm25
    columns = snapshot.columns
    owner_rows = np.asarray(columns.sentence_owner_rows)
    wanted = None if among is None else np.array([columns.row_of[a] for a in among if a in columns.row_of], np.int64)
    present: dict[str, set[str]] = {}
    doc_freq: dict[str, int] = {}
    for w in dict.fromkeys(words):
        column = bm25.vocabulary.get(w)
        if column is None:
            continue
        owners = sorted_unique(owner_rows[bm25.weights.rows_of(column)])
        doc_freq[w] = int(owners.size)
        held = owners if wanted is None else owners[np.isin(owners, wanted)]
        for r in held:
            present.setdefault(columns.ids[int(r)], set()).add(w)
    return present, doc_freq


def paper_similarity(
    snapshot: IndexSnapshot, abstract_ids: Iterable[str], vector: np.ndarray, sentences: int
) -> dict[str, float]:
    """Abstract id -> the mean cosine with ``vector`` of its ``sentences`` most similar sentences (all of them when
    it has fewer): how much of the paper is about what ``vector`` encodes, read by the sentences saying it rather
    than averaged over the paper's setting and details."""
    out: dict[str, float] = {}
    for aid in abstract_ids:
        rows = snapshot.sentence_rows[aid]
        if not len(rows):
            continue
        sims = np.sort(snapshot.sentence_vectors[rows.start : rows.stop] @ vector)[::-1][:sentences]
        out[aid] = float(sims.mean())
    return out


def rows_of(snapshot: IndexSnapshot, abstract_ids: Iterable[str]) -> list[int]:
    return [row for aid in abstract_ids for row in snapshot.sentence_rows[aid]]


def best_per_abstract(evidence: Sequence[EvidenceSentence]) -> dict[str, EvidenceSentence]:
    """The best-scoring sentence of each abstract (``evidence`` sorted best first)."""
    best: dict[str, EvidenceSentence] = {}
    for e in evidence:
        best.setdefault(e.abstract_id, e)
    return best


def pick_sentences(
    evidence: Sequence[EvidenceSentence],
    profile: QuestionProfile,
    clause_evidence: Sequence[Sequence[EvidenceSentence]] = (),
    max_sentences: int = 3,
    margin: float = 0.5,
) -> list[EvidenceSentence]:
    """From one abstract's scored sentences, choose up to ``max_sentences`` that answer the question.

    First the best sentence for the whole question and for each part of a compound question ("what is X, and
    how …"), then the best remaining ones within ``margin`` of the top score. A number question keeps a sentence
    holding a number. The result is in reading order. (Margin and count calibrated on eval/questions.jsonl.)
    """
    if not evidence:
        return []
    chosen: dict[int, EvidenceSentence] = {evidence[0].row: evidence[0]}
    for part in clause_evidence:
        if part and len(chosen) < max_sentences:
            chosen.setdefault(part[0].row, part[0])
    if profile.kind == "number" and not any(e.has_number for e in chosen.values()):
        numbered = next((e for e in evidence if e.has_number and e.focus_share > 0), None)
        if numbered is not None and len(chosen) < max_sentences:
            chosen[numbered.row] = numbered
    for e in evidence:
        if len(chosen) >= max_sentences or e.score < evidence[0].score - margin:
            break
        chosen.setdefault(e.row, e)
    return sorted(chosen.values(), key=lambda e: e.row)
