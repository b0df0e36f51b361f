"""Faithful restatements in other words pass; the same sentence with its meaning changed still fails (rag/verify.py).

Similarities are faked: the sentence named by ``best`` is the one the claim is closest to.
"""

from __future__ import annotations

from rag.verify_clauses import clauses
from rag.verify_direction import _trend_words
from rag.verify_tokens import tokenize
from tests.support.fake_similarity import check_with_fake_similarity as _check

# --- acronyms written in the plural ------------------------------------------------------------------------------


def test_a_plural_acronym_of_words_the_abstract_writes_out_is_named():
    abstract = "Vision language models often miscount small objects in cluttered kitchen scenes."
    assert _check(abstract, "VLMs often miscount small objects in cluttered kitchen scenes.").verified


def test_a_plural_acronym_that_matches_no_words_is_still_missing():
    abstract = "Vision language models often miscount small objects in cluttered kitchen scenes."
    v = _check(abstract, "GNNs often miscount small objects in cluttered kitchen scenes.")
    assert not v.verified and "GNNs" in v.reason


# --- "Unlike X, Name does not ..." --------------------------------------------------------------------------------


def test_unlike_part_ends_where_a_named_subject_starts():
    tokens = tokenize("Unlike earlier samplers, QuickWalk does not need a burn-in phase.")
    parts = clauses(tokens)
    assert any(c[-1].lower == "phase" and sum(t.lower == "not" for t in c) == 1 for c in parts)


def test_no_x_restates_does_not_require_x_after_unlike():
    abstract = "Unlike earlier samplers, QuickWalk does not need a burn-in phase. It mixes in linear time."
    assert _check(abstract, "In contrast to earlier samplers, QuickWalk requires no burn-in phase.").verified


def test_the_positive_claim_is_still_the_opposite_after_unlike():
    abstract = "Unlike earlier samplers, QuickWalk does not need a burn-in phase. It mixes in linear time."
    v = _check(abstract, "QuickWalk needs a burn-in phase, unlike earlier samplers.")
    assert not v.verified


# --- a setting moved to the other end of the sentence ----------------------------------------------------------


def test_a_setting_moved_to_the_front_is_not_a_role_swap():
    abstract = "On the harbour dataset, TideNet lowers forecast error by a third, beating wave models at equal cost."
    assert _check(abstract, "At matched cost, TideNet beats wave models on the harbour dataset.").verified


def test_two_systems_trading_places_is_still_caught():
    abstract = "On the harbour dataset, TideNet lowers forecast error by a third, beating wave models at equal cost."
    assert not _check(abstract, "At matched cost, wave models beat TideNet on the harbour dataset.").verified


# --- trends: states against changes, comparatives of different words, metrics that drop ------------------------


def test_less_of_one_property_is_not_the_opposite_of_more_of_another():
    abstract = "We find that the pruned network is more robust to label noise than the dense network."
    assert _check(abstract, "The pruned network is less sensitive to label noise than the dense network.").verified


def test_less_of_the_same_property_is_the_opposite():
    abstract = "We find that the pruned network is more robust to label noise than the dense network."
    assert not _check(abstract, "The pruned network is less robust to label noise than the dense network.").verified


def test_changing_a_state_is_not_denied_by_the_state():
    abstract = "Exact inference in these models is slow. We propose a sampler that amortises inference with a network."
    claim = "The sampler speeds up inference in these models by amortising it with a network."
    assert _check(abstract, claim, best=1).verified


def test_a_metric_that_drops_is_the_opposite_of_one_that_improves():
    abstract = "We train the parser on legal text. However, accuracy drops on handwritten legal forms."
    v = _check(abstract, "The parser improves accuracy on handwritten legal forms.", best=1)
    assert not v.verified and "drops" in v.reason


def test_a_comparative_records_the_word_it_modifies():
    words = _trend_words(tokenize("the student is more robust than the teacher"))
    assert any(w[3] == "more" and "head:robust" in w[2] for w in words)


# --- names, numbers and words written another way ---------------------------------------------------------------


def test_a_name_with_an_en_dash_is_the_name_with_a_hyphen():
    abstract = "We fit a Lotka–Volterra model to plankton counts from three lakes."
    assert _check(abstract, "The authors fit a Lotka-Volterra model to plankton counts from three lakes.").verified


def test_a_multiplier_is_a_number_not_a_name():
    abstract = "The kernel runs up to $4\\times$ faster than the dense baseline on sparse inputs."
    assert _check(abstract, "The kernel runs up to 4x faster than the dense baseline on sparse inputs.").verified
    assert not _check(abstract, "The kernel runs up to 9x faster than the dense baseline on sparse inputs.").verified


def test_all_gathering_the_claims_own_list_is_no_overclaim():
    abstract = "One decoder handles denoising, inpainting and partial super-resolution with a shared mask token."
    claim = "Denoising, inpainting and super-resolution are all handled by one decoder with a shared mask token."
    assert _check(abstract, claim).verified


def test_all_as_a_universal_is_still_an_overclaim():
    abstract = "The decoder handles some corruptions, suggesting a shared mask token helps partial restoration."
    assert not _check(abstract, "The decoder handles all corruptions with a shared mask token.").verified


def test_cannot_be_identified_restates_non_identifiable():
    abstract = "We show that under standard objectives the mixing matrix is non-identifiable from pooled samples."
    assert _check(abstract, "Under standard objectives, the mixing matrix cannot be identified from pooled samples.").verified
    assert not _check(abstract, "Under standard objectives, the mixing matrix can be identified from pooled samples.").verified


def test_less_robust_restates_non_robust():
    abstract = "We find that poisons crafted on non-robust surrogates transfer better to unseen victims."
    assert _check(abstract, "Poisons crafted on less robust surrogates transfer better to unseen victims.").verified


def test_a_setting_the_claim_also_names_is_not_replaced():
    abstract = "We recover 3D joint axes of articulated objects. The input is a single handheld video of the object."
    claim = "From a single handheld video, the method recovers the 3D joint axes of articulated objects."
    assert _check(abstract, claim, best=1).verified


def test_a_setting_swapped_for_its_sibling_is_still_caught():
    abstract = "We recover joint axes of articulated objects from a single handheld video of the object."
    v = _check(abstract, "We recover joint axes of articulated objects from a single handheld photograph of the object.")
    assert not v.verified


def test_derived_word_forms_are_not_new_details():
    abstract = "Solvers fail on deep nesting; the planner reuses structured rules and stratifies tasks by depth."
    claim = "Solver failures on deep nesting are handled by reusable structured rules and a stratification by depth."
    assert _check(abstract, claim).verified


def test_derived_stems():
    from rag.verify_tokens import derived

    assert derived("fail", "failur") and derived("reus", "reusabl")
    assert not derived("cat", "catalog") and not derived("train", "trainingsdaten")


# --- conditions, failures, counts, X-free -----------------------------------------------------------------------


def test_with_no_is_a_condition_not_a_denial():
    abstract = "Fine-tuning on the puzzles improves downstream algebra scores even with no new algebra data."
    assert _check(abstract, "Fine-tuning on the puzzles improves downstream algebra scores.").verified


def test_a_failure_the_abstract_traces_agrees_with_cannot():
    abstract = "We localize the failure of speech models on sarcasm detection by probing prosody features."
    assert _check(abstract, "Speech models cannot handle sarcasm detection, as probing prosody features shows.").verified


def test_a_trained_part_is_the_opposite_of_a_training_free_one():
    abstract = "We merge redundant tokens with a training-free scoring rule that ranks tokens by attention entropy."
    v = _check(abstract, "Redundant tokens are merged by a scoring network trained to rank tokens by attention entropy.")
    assert not v.verified and "free" in v.reason


def test_one_where_the_abstract_counts_many():
    from rag.verify_scope import count_swapped

    abstract = "we study how multiple collectives steer a shared classifier".split()
    assert count_swapped("a single collective steers the classifier".split(), abstract) == ("single", "collect")
    assert count_swapped("multiple collectives steer the classifier".split(), abstract) is None


def test_beats_b_by_an_amount_on_m_restates_improves_m_by_the_amount_over_b():
    abstract = "On the river benchmarks, FloodCast improves recall by 9 points over HydroNet while using less memory."
    claim = "On the river benchmarks, FloodCast beats HydroNet by 9 points in recall and uses less memory."
    assert _check(abstract, claim).verified


def test_the_loser_named_as_the_winner_is_still_caught():
    abstract = "On the river benchmarks, FloodCast improves recall by 9 points over HydroNet while using less memory."
    assert not _check(abstract, "On the river benchmarks, HydroNet improves recall by 9 points over FloodCast.").verified


def test_comparison_words_are_not_new_details():
    abstract = "Across both corpora, TagMix improves tagging accuracy by 2 points over CRF taggers at equal cost."
    claim = "TagMix outperforms CRF taggers by 2 points in tagging accuracy across both corpora at negligible extra cost."
    assert _check(abstract, claim).verified


def test_solely_restates_only_and_a_guarantee_restates_a_proof():
    abstract = "We build pairs of prompts that differ only in tone. We prove convergence of the tuning procedure."
    assert _check(abstract, "The prompt pairs differ solely in tone.").verified
    assert _check(abstract, "The tuning procedure comes with a convergence guarantee.", best=1).verified


def test_shorter_where_the_abstract_says_longer():
    abstract = "All five rankers prefer the longer summary in most pairs of the probe set."
    assert not _check(abstract, "All five rankers prefer the shorter summary in most pairs of the probe set.").verified


def test_overlap_counts_other_forms_and_closed_compounds():
    from rag.verify_align import _overlap
    from rag.verify_tokens import content_stems

    claim = tokenize("The running time fails rarely")
    abstract = set(content_stems(tokenize("Its runtime shows few failures")))
    assert _overlap(claim, content_stems(claim), abstract) == 1.0 - 1 / len(content_stems(claim))


def test_tuned_on_what_the_abstract_goes_without():
    abstract = "On the street benchmark, LaneFix improves lane recall by 8 points without real-world tuning data."
    v = _check(abstract, "After tuning on real-world clips, LaneFix improves lane recall on the street benchmark.")
    assert not v.verified and "without" in v.reason
    assert _check(abstract, "Instruction tuning lets LaneFix improve lane recall on the street benchmark by 8 points.").verified


def test_one_where_the_evidence_counts_many_even_if_another_sentence_counts_one():
    abstract = ("Prior studies consider a single collective. We model multiple collectives that steer one shared "
                "classifier at once.")
    claim = "The paper models a single collective that steers one shared classifier at once."
    assert not _check(abstract, claim, best=1).verified
    assert _check(abstract, "The paper models multiple collectives steering one shared classifier.", best=1).verified


def test_a_hyphenated_in_is_no_negating_prefix():
    abstract = "In vitro, the peptide blocks entry of the virus into lung cells."
    assert _check(abstract, "The peptide blocks virus entry into lung cells in an in-vitro assay.").verified


def test_the_best_baseline_restates_the_strongest_baseline():
    abstract = "The planner solves 14 of 20 maze layouts, against 6 of 20 for the strongest baseline."
    assert _check(abstract, "The planner solves 14 of 20 maze layouts, far more than the best baseline.").verified


def test_an_unlike_part_of_the_claim_describes_other_work():
    abstract = "Earlier solvers need memory that grows quadratically with the horizon. Ours needs constant memory."
    claim = "Unlike earlier solvers, whose memory grows quadratically with the horizon, the new solver needs constant memory."
    assert _check(abstract, claim, best=1).verified


def test_optimal_up_to_a_factor_restates_matching_lower_bounds_up_to_it():
    abstract = "Our estimator's error matches the minimax lower bound up to logarithmic factors."
    assert _check(abstract, "The estimator's error is optimal up to logarithmic factors.").verified
    assert not _check(abstract, "The estimator's error is optimal.").verified


def test_growth_rates_are_exclusive_settings():
    abstract = "The sketch needs memory linear in the stream length and answers queries in constant time."
    assert not _check(abstract, "The sketch needs memory quadratic in the stream length.").verified


def test_fewer_samples_is_not_the_opposite_of_more_sample_efficient():
    abstract = "We show that the sparse router is more sample-efficient than the dense router."
    assert _check(abstract, "The authors show that the sparse router needs fewer samples than the dense router.").verified


def test_unknown_restates_without_knowing_across_function_notation():
    abstract = "Each user has a budget $b(T)$ unknown to the platform. Our pricing rule reaches low regret."
    claim = "The pricing rule reaches low regret without needing to know the users' budget b(T)."
    assert _check(abstract, claim, best=1).verified


def test_function_notation_does_not_split_a_clause():
    assert len(clauses(tokenize("the loss f(x) is not convex"))) == 1


def test_a_growth_rate_inside_a_compound_is_no_rate():
    abstract = "For a solvable linear-regression model, the error decays exponentially with depth."
    assert _check(abstract, "In a solvable linear-regression model, the error decays exponentially with depth.").verified


def test_classification_and_regression_are_exclusive_settings():
    abstract = "We bound how multiple collectives can steer a classifier's behaviour."
    assert not _check(abstract, "We bound how multiple collectives can steer a regression model's behaviour.").verified


def test_an_acronym_of_hyphenated_words():
    abstract = "Large vision-language models miscount objects in crowded scenes."
    assert _check(abstract, "Large VLMs miscount objects in crowded scenes.").verified


def test_training_time_where_the_abstract_says_inference_time():
    abstract = "Pruning these heads at inference time halves the memory of the decoder."
    assert not _check(abstract, "Pruning these heads at training time halves the memory of the decoder.").verified
    assert _check(abstract, "At inference time, pruning these heads halves the decoder's memory.").verified


def test_a_verb_whose_noun_the_abstract_uses_elsewhere_is_no_swap():
    abstract = ("The benchmark covers the span of tasks a clerk meets. Completion rate ranges from 3.1% to 52.4% across "
                "the agents we test.")
    assert _check(abstract, "Across the tested agents, completion rate spans from 3.1% to 52.4%.", best=1).verified


def test_replaces_x_with_y_restates_instead_of_x_y():
    abstract = "Instead of predicting a single waypoint, our planner samples several candidate waypoints from a flow model."
    assert _check(abstract, "The planner replaces single waypoint prediction with sampling candidate waypoints from a flow model.").verified
    assert _check(abstract, "The planner swaps single waypoint prediction for sampling candidate waypoints from a flow model.").verified


def test_replaces_denies_the_first_object_only():
    parts = clauses(tokenize("the planner replaces grid search with a learned sampler"))
    negated = [c for c in parts if c[0].lower == "not"]
    assert negated and [t.lower for t in negated[0][1:]] == ["grid", "search"]


def test_what_an_abstract_replaces_is_not_denied_elsewhere():
    abstract = ("Random cropping treats all regions as equally informative. We propose ProbeNet, which replaces random "
                "cropping with a learned probe bank.")
    assert _check(abstract, "Random cropping treats all regions as equally informative.").verified
