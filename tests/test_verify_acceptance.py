"""Faithful restatements worded differently from the abstract are accepted, and the same claims with their meaning
changed are still rejected (rag/verify.py). Small hand-written abstracts; similarities are faked (``best`` is the
sentence the claim is closest to)."""

from __future__ import annotations

from rag.verify_clauses import clauses, is_negated
from rag.verify_tokens import tokenize
from tests.support.fake_similarity import check_with_fake_similarity as _check

# --- a "without" part ends where a second predicate starts --------------------------------------------------------


def _parts(text: str) -> list[tuple[str, bool]]:
    return [(" ".join(t.text for t in c), is_negated(c)) for c in clauses(tokenize(text))]


def test_without_part_ends_at_and_before_an_adverb_and_verb():
    parts = _parts("ZedQ packs weights without outlier statistics and consistently beats rounding baselines.")
    assert ("without outlier statistics", True) in parts
    assert ("consistently beats rounding baselines", False) in parts


def test_without_part_ends_at_and_before_a_finite_comparison_verb_or_auxiliary():
    assert ("outperforms pruning", False) in _parts("It compresses models without retraining and outperforms pruning.")
    assert ("is faster", False) in _parts("It compresses models without retraining and is faster.")


def test_without_part_keeps_a_list_of_nouns():
    parts = _parts("It segments cells without labels and stain metadata.")
    assert ("without labels and stain metadata", True) in parts


def test_claim_with_a_without_part_and_a_positive_result_is_accepted():
    abstract = ("We propose ZedQ, an outlier-free scheme for packing weights. "
                "Across four model families, ZedQ consistently beats rounding baselines at equal memory.")
    claim = "ZedQ packs weights without outlier statistics and consistently beats rounding baselines across four model families."
    assert _check(abstract, claim, best=1).verified


def test_the_same_result_denied_is_still_rejected():
    abstract = "Across four model families, ZedQ consistently beats rounding baselines at equal memory."
    claim = "ZedQ does not beat rounding baselines across four model families."
    assert not _check(abstract, claim).verified


# --- numbers written in LaTeX math with thousands separators ------------------------------------------------------


def test_a_latex_number_with_spaced_thousands_reads_as_one_number():
    from rag.verify_numbers import quantities

    assert [q.value for q in quantities("We train $3, 150$ probes.")] == [3150.0]
    assert [q.value for q in quantities("We train $3{,}150$ probes.")] == [3150.0]
    assert [q.value for q in quantities("in the set $\\{1, 150\\}$")] == [1.0, 150.0]


def test_a_claim_with_the_number_in_digits_agrees_with_the_latex_one():
    abstract = "ZedBench spans $12, 480$ graded questions in nine subjects."
    assert _check(abstract, "ZedBench has 12,480 graded questions across nine subjects.").verified
    assert not _check(abstract, "ZedBench has 12,840 graded questions across nine subjects.").verified


# --- "all" gathering a list after a comma -------------------------------------------------------------------------


_TOOLKIT = ("We release ZedKit for bird-song analysis: a corpus, a labelling tool and a baseline tagger. "
            "Every part works without manual segmentation of the recordings.")


def test_all_after_a_comma_gathers_the_list_before_it():
    claim = "ZedKit offers a corpus, a labelling tool and a baseline tagger, all without manual segmentation of recordings."
    assert _check(_TOOLKIT, claim).verified


def test_all_before_a_noun_after_a_list_still_quantifies():
    abstract = "On clips of a ball moving left, right, up, or down, most trackers drift within ten frames."
    v = _check(abstract, "On clips of a ball moving left, right, up or down, all trackers drift within ten frames.")
    assert not v.verified and "all" in v.reason


# --- a comparison said from the other side ------------------------------------------------------------------------

_SAMPLERS = "Our analysis shows that ZedWalk is more sample-efficient than random restarts on sparse graphs."


def test_the_converse_of_a_comparison_is_accepted():
    assert _check(_SAMPLERS, "Random restarts are less sample-efficient than ZedWalk on sparse graphs.").verified


def test_a_comparison_turned_round_is_still_rejected():
    assert not _check(_SAMPLERS, "ZedWalk is less sample-efficient than random restarts on sparse graphs.").verified
    assert not _check(_SAMPLERS, "Random restarts are more sample-efficient than ZedWalk on sparse graphs.").verified


# --- words the abstract writes in another form count towards support ---------------------------------------------


def _overlap_of(claim: str, abstract: str) -> float:
    from rag.verify_align import _overlap
    from rag.verify_tokens import content_stems

    claim_tokens, abstract_tokens = tokenize(claim), tokenize(abstract)
    return _overlap(claim_tokens, content_stems(claim_tokens), set(content_stems(abstract_tokens)), abstract_tokens)


def test_a_hyphenated_word_matches_its_parts_written_next_to_each_other():
    assert _overlap_of("single-neuron edits", "edits of a single neuron") == 1.0
    assert _overlap_of("single-neuron edits", "a single layer edits each neuron") < 1.0


def test_a_count_in_words_matches_its_digits_and_back():
    assert _overlap_of("seventeen raters", "17 raters") == 1.0
    assert _overlap_of("17 raters", "seventeen raters") == 1.0
    assert _overlap_of("sixteen raters", "17 raters") < 1.0


def test_an_acronym_matches_the_words_it_abbreviates():
    assert _overlap_of("LLM calibration", "calibration of large language models") == 1.0
    assert _overlap_of("LMs calibration", "calibration of language models") == 1.0
    assert _overlap_of("GNN calibration", "calibration of large language models") < 1.0


# --- negations of exclusiveness -----------------------------------------------------------------------------------

_GRAPHS = ("Earlier tools localize bugs using call graphs of the code. "
           "ZedLoc combines call graphs with review graphs built from the project's issue history.")


def test_rather_than_x_alone_does_not_deny_x():
    claim = "Rather than relying on call graphs alone, ZedLoc also uses review graphs built from the issue history."
    assert _check(_GRAPHS, claim, best=1).verified


def test_not_relying_on_x_at_all_is_still_rejected():
    claim = "ZedLoc does not use call graphs, relying on review graphs built from the issue history."
    assert not _check(_GRAPHS, claim, best=1).verified


def test_and_no_negates_only_what_follows_it():
    parts = _parts("The score needs one trained model and no shadow models.")
    assert ("The score needs one trained model", False) in parts
    assert ("no shadow models", True) in parts


def test_a_claim_about_the_part_before_and_no_is_accepted():
    abstract = "We propose ZedScore, a privacy score that needs one trained model and no shadow models."
    assert _check(abstract, "ZedScore estimates privacy risk from one trained model, with no shadow models.").verified
    assert not _check(abstract, "ZedScore needs shadow models as well as one trained model.").verified


# --- listed opposites compared by word, not only by stem ------------------------------------------------------------


def test_cheap_is_not_the_opposite_of_low_costs():
    abstract = "We find that, under low annotation costs, active labelling needs fewer queries than random labelling."
    assert _check(abstract, "With cheap annotation, active labelling needs fewer queries than random labelling.").verified


def test_cheap_is_still_the_opposite_of_costly():
    abstract = "We find that annotation is costly for active labelling of rare classes."
    assert not _check(abstract, "We find that annotation is cheap for active labelling of rare classes.").verified


def test_a_negated_part_ends_at_and_before_a_finite_verb():
    parts = _parts("The probe needs no extra calls to the model and relies on a small helper model.")
    assert ("relies on a small helper model", False) in parts
    assert any(negated and "extra calls" in text for text, negated in parts)


# --- strong words that are not stronger than the abstract ---------------------------------------------------------


def test_first_then_orders_steps():
    abstract = "ZedGen trains part-level generators and injects the assembled parts into a whole-scene latent."
    assert _check(abstract, "ZedGen first trains part-level generators and then injects the parts into a whole-scene latent.").verified
    assert not _check(abstract, "ZedGen is the first to train part-level generators for whole scenes.").verified


def test_a_capitalised_strong_word_inside_a_name_is_the_name():
    abstract = "On the All of Us cohort, ZedTab tables beat size-matched tables on most phenotypes."
    assert _check(abstract, "ZedTab tables beat size-matched tables on most phenotypes of the All of Us cohort.").verified


def test_never_restates_a_negation_of_the_abstract():
    abstract = "In each round the helper observes the user's choice but not the realized rewards."
    assert _check(abstract, "In each round the helper never observes the realized rewards, only the user's choice.").verified


def test_never_is_stronger_than_not_consistently():
    abstract = "We find that trimodal fusion does not consistently outperform the strongest bimodal fusion."
    assert not _check(abstract, "We find that trimodal fusion never outperforms the strongest bimodal fusion.").verified


def test_best_restates_optimal():
    abstract = "We show that computing the optimal static price menu is NP-hard for sold GPUs."
    assert _check(abstract, "Computing the best static price menu for sold GPUs is NP-hard.").verified


def test_an_exponent_is_no_quantity():
    from rag.verify_numbers import quantities

    assert [q.value for q in quantities("with $R^2$ falling from 0.71 to 0.40")] == [0.71, 0.40]
    assert [q.value for q in quantities("in $O(n^{3})$ time for 12 graphs")] == [12.0]


def test_a_number_joined_to_a_word_counts_that_word():
    from rag.verify_numbers import quantities

    (q,) = [q for q in quantities("a 450-question benchmark") if q.value == 450]
    assert "question" in q.counted
    abstract = "We build a 450-question benchmark, with about 12 graded rubric items per question."
    assert _check(abstract, "The benchmark has 450 questions, each with about 12 graded rubric items.").verified
    assert not _check(abstract, "The benchmark has 12 questions, each with about 450 graded rubric items.").verified


def test_a_unicode_superscript_reads_as_a_power():
    abstract = "Our scheduler achieves $O((\\log T)^2)$ regret across a broad class of drifting demands."
    assert _check(abstract, "The scheduler achieves O((log T)²) regret across a broad class of drifting demands.").verified
    assert not _check(abstract, "The scheduler achieves O((log T)³) regret across a broad class of drifting demands.").verified


# --- everyday words weigh less in the overlap than the terms a claim is about ------------------------------------


def test_an_everyday_word_missing_costs_less_than_a_term_missing():
    from rag.settings import VerifyPolicy
    from rag.verify_align import _overlap
    from rag.verify_tokens import content_stems

    abstract = tokenize("Deferring calibration past the midpoint degrades accuracy of the tagger.")
    stems = set(content_stems(abstract))
    weight = VerifyPolicy().common_word_weight

    def overlap(claim: str) -> float:
        tokens = tokenize(claim)
        return _overlap(tokens, content_stems(tokens), stems, abstract, weight)

    everyday = overlap("Calibration put off past the midpoint degrades accuracy of the tagger.")
    technical = overlap("Quantization deferred past the midpoint degrades accuracy of the tagger.")
    assert everyday > technical
    assert overlap("Deferring calibration past the midpoint degrades accuracy of the tagger.") == 1.0


# --- novel words that substitute the evidence's words one for one -------------------------------------------------

_SURROGATES = "As a result, held-out sets are inevitably imperfect surrogates, which can misestimate tagger drift."


def test_one_for_one_substitutions_are_no_added_details():
    claim = "As a result, held-out sets are unavoidably imperfect stand-ins, which can misjudge tagger drift."
    assert _check(_SURROGATES, claim).verified


def test_words_added_beside_the_evidence_are_still_new_details():
    claim = ("As a result, held-out sets are inevitably imperfect surrogates, which can misestimate tagger drift "
             "under adversarial paraphrase perturbations in multilingual deployments.")
    assert not _check(_SURROGATES, claim).verified
