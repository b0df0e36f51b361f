"""Unit tests for rag/verify_binding.py (crossed roles) with small hand-written sentences."""

from __future__ import annotations

from rag.settings import VerifyPolicy
from rag.text import sentence_spans
from rag.verify import check_claim
from rag.verify_binding import crossed_roles, exchanged_terms, steps_reversed
from rag.verify_tokens import tokenize

EVIDENCE = "Our pipeline uses a rule tagger to split the recipe into cooking steps, then applies a neural parser to link the steps."


def _crossing(claim: str, *evidence: str):
    return crossed_roles(tokenize(claim), [tokenize(e) for e in evidence])


def test_two_terms_trading_what_they_do_is_a_crossing():
    c = _crossing("The pipeline uses a neural parser to split the recipe into cooking steps and a rule tagger to link the steps.", EVIDENCE)
    assert c is not None and {c.first, c.second} == {"neural parser", "rule tagger"}


def test_the_same_roles_in_other_words_are_no_crossing():
    assert _crossing("A rule tagger splits the recipe into cooking steps and a neural parser links the steps.", EVIDENCE) is None


def test_a_phrase_moved_to_the_front_is_no_crossing():
    evidence = "The planner reaches the goal in fewer moves than the greedy baseline when the map is partially observed."
    assert _crossing("When the map is partially observed, the planner reaches the goal in fewer moves than the greedy baseline.", evidence) is None


def test_symmetric_terms_next_to_each_other_are_no_crossing():
    assert _crossing("Dropout is combined with weight decay in every layer.", "Weight decay is combined with dropout in every layer.") is None


def test_terms_named_after_what_they_do_trading_places():
    evidence = "The codec defines two knobs: Frame Rate, the number of images shown per second, and Bit Depth, the number of bits per pixel."
    claim = "In the codec, Bit Depth is the number of images shown per second, while Frame Rate is the number of bits per pixel."
    assert _crossing(claim, evidence) is not None


def test_parts_of_two_sentences_in_another_order_are_no_crossing():
    first = "Sparse labels make the detector overconfident on rare classes."
    second = "Dense labels slow the annotation of large image collections."
    claim = "Dense labels slow annotation of large image collections, and sparse labels make the detector overconfident on rare classes."
    assert _crossing(claim, first, second) is None


def test_a_crossing_makes_the_claim_unsupported_with_a_readable_reason():
    abstract = "We study recipe parsing. " + EVIDENCE + " The pipeline is evaluated on ten cookbooks."
    spans = sentence_spans(abstract)
    sims = [0.2, 0.9, 0.2]
    claim = "The pipeline uses a neural parser to split the recipe into cooking steps and a rule tagger to link the steps."
    v = check_claim(claim, abstract, spans, sims, VerifyPolicy())
    assert not v.verified and v.failures[0].check == "roles"
    assert "the other way round" in v.reason and "rule tagger" in v.reason
    faithful = "The pipeline uses a rule tagger to split the recipe into cooking steps and a neural parser to link the steps."
    assert check_claim(faithful, abstract, spans, sims, VerifyPolicy()).verified


# --- exchanged terms (exchanged_terms) ---------------------------------------------------------------------------

SETTINGS_EVIDENCE = ("On Cora and Citeseer under the inductive protocol and on Reddit under the transductive protocol, "
                     "the sampler cuts training time in half.")  # fmt: skip


def _exchange(claim: str, *evidence: str):
    return exchanged_terms(tokenize(claim), [tokenize(e) for e in evidence])


def test_two_settings_put_in_each_others_place_are_an_exchange():
    found = _exchange("The sampler is tested on Cora and Citeseer under the transductive protocol and on Reddit under the "
                      "inductive protocol.", SETTINGS_EVIDENCE)  # fmt: skip
    assert found is not None and {found.first, found.second} == {"transductive", "inductive"}


def test_the_settings_kept_in_place_are_no_exchange():
    assert _exchange("The sampler is tested on Cora and Citeseer under the inductive protocol and on Reddit under the "
                     "transductive protocol.", SETTINGS_EVIDENCE) is None  # fmt: skip


def test_items_of_one_list_in_another_order_are_no_exchange():
    evidence = "The probe is trained on speech, music and ambient sound, and evaluated on twelve retrieval tasks."
    assert _exchange("The probe is trained on ambient sound, music and speech, and evaluated on twelve retrieval tasks.", evidence) is None


def test_the_subjects_of_a_contrast_exchanged_are_an_exchange():
    evidence = "On small graphs, spectral filters are most accurate, while spatial filters such as GAT and GIN catch up as graphs grow."
    claim = "On small graphs, spatial filters such as GAT and GIN are most accurate, while spectral filters catch up as graphs grow."
    found = _exchange(claim, evidence)
    assert found is not None and "spectral" in (found.first + found.second)


def test_a_clause_moved_to_the_other_end_is_no_exchange():
    evidence = "A noisier teacher model leads to a stronger student after distillation."
    assert _exchange("A stronger student after distillation comes from a noisier teacher model.", evidence) is None


def test_names_exchanged_across_two_evidence_sentences_are_an_exchange():
    first = "We build a planner on the Lazy-PRM roadmap that has provably bounded path cost."
    second = "A learned variant of the RRT-Connect sampling routine further reduces planning time on cluttered scenes."
    claim = "The planner is built on the RRT-Connect roadmap, and a learned variant of the Lazy-PRM sampling routine reduces planning time."
    found = _exchange(claim, first, second)
    assert found is not None and {found.first, found.second} == {"RRT-Connect", "Lazy-PRM"}


def test_exchanged_settings_fail_the_roles_check_with_a_reason():
    claim = "The sampler is tested on Cora and Citeseer under the transductive protocol and on Reddit under the inductive protocol."
    spans = sentence_spans(SETTINGS_EVIDENCE)
    verdict = check_claim(claim, SETTINGS_EVIDENCE, spans, [0.9] * len(spans), VerifyPolicy())
    assert not verdict.verified and "other way round" in verdict.reason


def test_a_compound_turned_round_is_no_exchange():
    assert _exchange("Lumen is a benchmark of 40 chart reading tasks.", "We introduce Lumen, a benchmark of 40 tasks for reading charts.") is None


# --- steps in the other order (steps_reversed) ----------------------------------------------------------------------

STEPS = "The raw scans are first denoised with a wavelet filter. We then register the cleaned scans to a common atlas."


def test_steps_given_in_the_other_order_are_reversed():
    claim = "The raw scans are first registered to a common atlas and only afterwards denoised with a wavelet filter."
    moved = steps_reversed(tokenize(claim), [tokenize(s) for s in sentence_spans_text(STEPS)])
    assert moved is not None and {"atlas", "denois", "wavelet"} <= set(moved)


def test_steps_in_the_same_order_are_not_reversed():
    claim = "The scans are first denoised with a wavelet filter and then registered to a common atlas."
    assert steps_reversed(tokenize(claim), [tokenize(s) for s in sentence_spans_text(STEPS)]) is None


def test_a_claim_without_steps_is_not_reversed():
    assert steps_reversed(tokenize("The scans are registered to a common atlas."), [tokenize(STEPS)]) is None


def test_reversed_steps_fail_the_direction_check_with_a_reason():
    claim = "The raw scans are first registered to a common atlas and only afterwards denoised with a wavelet filter."
    spans = sentence_spans(STEPS)
    verdict = check_claim(claim, STEPS, spans, [0.9] * len(spans), VerifyPolicy())
    assert not verdict.verified and "other order" in verdict.reason


def sentence_spans_text(text: str) -> list[str]:
    return [s.of(text) for s in sentence_spans(text)]


def test_terms_exchanged_within_one_part_of_a_sentence_that_says_one_twice_fail_the_roles_check():
    evidence = ("Only heavy pruning changes the outputs of early layers, while late layers tolerate mild noise and "
                "collapse under pruning.")  # fmt: skip
    claim = "Late layers tolerate pruning and collapse under mild noise."
    spans = sentence_spans(evidence)
    verdict = check_claim(claim, evidence, spans, [0.9] * len(spans), VerifyPolicy())
    assert not verdict.verified and "other way round" in verdict.reason
    kept = "Late layers tolerate mild noise and collapse under pruning."
    assert check_claim(kept, evidence, spans, [0.9] * len(spans), VerifyPolicy()).verified
