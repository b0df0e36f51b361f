"""Which papers a list, summary or yes/no answer cites: one decision per paper from several of its features.

A single score (the best sentence's relevance, cut at a margin below the best paper's) cannot tell a paper about
the topic from a near one: raising the cut loses relevant papers as fast as it drops near ones. Each candidate
paper is described instead by several features of how it relates to the question (``FEATURES``): its best
sentence's relevance and gap to the best paper's, the relevance of its own work's sentences (contribution, method,
result) rather than its setting, the dense similarity of the abstract as a whole, the share of the question's topic
words it uses and its gap to the best paper's, where the retrieval ranked it, and its nearness to each facet of the
topic (by all its sentences, and by its own work's alone: a paper naming the topic only in its setting is near it
by a sentence about other work).
A logistic model over them (weights fitted on dev by ``python -m eval.fit_membership``, kept in AnswerPolicy)
gives each paper a probability of belonging; the papers at or above the policy's cut are cited.

Pure functions over ``EvidenceSentence`` lists; nothing here reads the index.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from rag.evidence import EvidenceSentence

# the parts of an abstract that say what the work itself does (rag.roles), as opposed to its setting
OWN_ROLES = frozenset({"contribution", "method", "result"})

FEATURES: tuple[str, ...] = (
    "relevance",  # the paper's best sentence relevance (score without the role bonus)
    "relevance_gap",  # the best candidate's relevance minus the paper's
    "own_relevance",  # best relevance among the paper's contribution/method/result sentences (0 when none)
    "dense_mean",  # mean cosine with the question over all the paper's sentences: the abstract as a whole
    "coverage",  # idf-weighted share of the question's topic words the paper uses (rag.evidence.topic_coverage)
    "coverage_gap",  # the best candidate's coverage minus the paper's
    "retrieval_rank",  # log(1 + position) in the fused retrieval ranking of the shortlist
    "summary",  # 1 for an overview question (its topic is often several, each paper about one)
    "yes_no",  # 1 for 'is there a paper on X' (the papers clearly about X)
    "facet_relevance",  # best cosine of the paper's sentences with any facet of the topic (facet_similarities)
    "facet_gap",  # the smallest, over the topic's facets, of the best paper's facet cosine minus the paper's
    "own_facet_relevance",  # facet_relevance over the paper's own-work (contribution/method/result) sentences only
)


def facet_similarities(
    sentence_sims: Mapping[str, np.ndarray], own: Mapping[str, Sequence[bool]] | None = None
) -> dict[str, dict[str, float]]:
    """Abstract id -> its ``facet_relevance`` and ``facet_gap``, from each paper's sentences' cosines with each facet
    of the question's topic (``sentence_sims``: abstract id -> an array, one row per sentence, one column per facet:
    the topic said alone, and each of its coordinated parts when it has several, "clinical, diagnostics, medical
    imaging"). An overview of several things is answered by papers each about one of them: a paper on one facet is
    far from the best paper by the question as a whole, but near the best paper on its own facet.
    ``own``: abstract id -> one flag per sentence, whether it says what the work itself does (OWN_ROLES); its
    ``own_facet_relevance`` is the best facet cosine of those sentences alone (0 when none): a paper that names the
    topic only in its setting ("existing X methods fail to ...") is near it by a sentence about other work."""
    best = {aid: sims.max(axis=0) for aid, sims in sentence_sims.items() if sims.size}
    if not best:
        return {}
    top = np.max(np.stack(list(best.values())), axis=0)
    out = {aid: {"facet_relevance": float(b.max()), "facet_gap": float((top - b).min())} for aid, b in best.items()}
    for aid, features in out.items():
        mask = np.asarray((own or {}).get(aid, ()), bool)
        sims = sentence_sims[aid]
        features["own_facet_relevance"] = float(sims[mask].max()) if mask.shape == (len(sims),) and mask.any() else 0.0
    return out


def paper_features(
    evidence: Sequence[EvidenceSentence],
    coverage: Mapping[str, float] | None = None,
    order: Sequence[str] = (),
    shape: str = "",
    most: int | None = None,
    facets: Mapping[str, Mapping[str, float]] | None = None,
) -> dict[str, dict[str, float]]:
    """Abstract id -> its ``FEATURES``, for the ``most`` papers of ``evidence`` with the best relevance (all when
    None). ``coverage``: abstract id -> topic coverage (missing: 0); ``order``: the retrieval ranking of the
    abstracts (a paper not in it ranks after all of it); ``facets``: abstract id -> its facet features
    (facet_similarities; missing: 0 and a gap of 1)."""
    by_paper: dict[str, list[EvidenceSentence]] = {}
    for e in evidence:
        by_paper.setdefault(e.abstract_id, []).append(e)
    if not by_paper:
        return {}
    relevance = {aid: max(e.relevance for e in es) for aid, es in by_paper.items()}
    ranked = sorted(by_paper, key=lambda aid: -relevance[aid])[: most if most else None]
    position = {aid: i for i, aid in enumerate(dict.fromkeys(order))}
    cov = {aid: (coverage or {}).get(aid, 0.0) for aid in ranked}
    own = {aid: max((e.relevance for e in by_paper[aid] if e.role in OWN_ROLES), default=0.0) for aid in ranked}
    top_rel, top_cov = relevance[ranked[0]], max(cov.values())
    features: dict[str, dict[str, float]] = {}
    for aid in ranked:
        es = by_paper[aid]
        features[aid] = {
            "relevance": relevance[aid],
            "relevance_gap": top_rel - relevance[aid],
            "own_relevance": own[aid],
            "dense_mean": sum(e.dense for e in es) / len(es),
            "coverage": cov[aid],
            "coverage_gap": top_cov - cov[aid],
            "retrieval_rank": math.log1p(position.get(aid, len(position))),
            "summary": float(shape == "summary"),
            "yes_no": float(shape == "yes_no"),
            "facet_relevance": (facets or {}).get(aid, {}).get("facet_relevance", 0.0),
            "facet_gap": (facets or {}).get(aid, {}).get("facet_gap", 1.0),
            "own_facet_relevance": (facets or {}).get(aid, {}).get("own_facet_relevance", 0.0),
        }
    return features


def member_probability(features: Mapping[str, float], weights: Mapping[str, float], bias: float) -> float:
    """The logistic model's probability that the paper belongs in the answer (features missing from ``weights``
    count 0)."""
    z = bias + sum(w * features.get(name, 0.0) for name, w in weights.items())
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


def members(
    features: Mapping[str, Mapping[str, float]], weights: Mapping[str, float], bias: float, cut: float, most: int
) -> list[str]:
    """The papers whose probability is at least ``cut``, best first, at most ``most``; the best-ranked paper (by
    relevance) when none is."""
    if not features:
        return []
    prob = {aid: member_probability(f, weights, bias) for aid, f in features.items()}
    chosen = sorted((aid for aid, p in prob.items() if p >= cut), key=lambda aid: -prob[aid])[:most]
    return chosen or [max(features, key=lambda aid: features[aid]["relevance"])]
