"""Faithful restatements written in other words pass, and the same change of meaning still fails (rag/verify.py):
converse and passive comparisons, acronyms spelled out, counts in words, negation by "prevents" / "inability",
hedges the claim keeps, "we show" in a theory abstract, aims ("To solve X"), adjective forms of a setting.

Similarities are faked: the sentence named by ``best`` is the one the claim is closest to. Every example is made up.
"""

from __future__ import annotations

from rag.verify_direction import comparisons
from rag.verify_numbers import quantities
from rag.verify_tokens import tokenize
from tests.support.fake_similarity import check_with_fake_similarity as _check

BEATS = ("Experiments on river and coastal gauges show that FloodCast consistently outperforms hydrological "
         "baselines across every forecast horizon.")  # fmt: skip


# --- comparisons turned round, the direction kept ----------------------------------------------------------------


def test_a_passive_comparison_keeps_the_direction():
    claim = ("Experiments on river and coastal gauges show that hydrological baselines are consistently outperformed "
             "by FloodCast across every forecast horizon.")  # fmt: skip
    assert _check(BEATS, claim).verified


def test_trails_and_lags_behind_say_the_same_as_outperforms():
    for verb in ("trail", "lag behind"):
        claim = (f"Experiments on river and coastal gauges show that hydrological baselines consistently {verb} "
                 "FloodCast across every forecast horizon.")  # fmt: skip
        assert _check(BEATS, claim).verified, verb


def test_is_better_than_says_the_same_as_outperforms():
    claim = ("Experiments on river and coastal gauges show that FloodCast is consistently better than hydrological "
             "baselines across every forecast horizon.")  # fmt: skip
    assert _check(BEATS, claim).verified


def test_the_converse_with_the_sides_kept_is_still_the_opposite():
    claim = ("Experiments on river and coastal gauges show that FloodCast consistently trails hydrological baselines "
             "across every forecast horizon.")  # fmt: skip
    assert not _check(BEATS, claim).verified


def test_the_passive_with_the_sides_swapped_is_still_the_opposite():
    claim = ("Experiments on river and coastal gauges show that FloodCast is consistently outperformed by "
             "hydrological baselines across every forecast horizon.")  # fmt: skip
    assert not _check(BEATS, claim).verified


def test_beaten_by_is_a_passive_comparison():
    found = comparisons(tokenize("Hydrological baselines are beaten by FloodCast on every gauge."))
    assert found and "floodcast" in found[0].better and "baselin" in found[0].worse


def test_a_comparative_swapped_around_a_shared_verb_is_still_caught():
    abstract = "Coastal gauges record far more tidal noise into the archive than inland gauges do. Models use both."
    assert not _check(abstract, "Inland gauges record far more tidal noise into the archive than coastal gauges do.").verified


# --- acronyms spelled out ----------------------------------------------------------------------------------------


def test_an_acronym_spelled_out_is_the_same_name():
    abstract = ("We introduce Sparse Tidal Operator Networks (STON), a forecasting family for estuaries. "
                "STON is accurate enough to replace numerical solvers while running on a laptop.")  # fmt: skip
    claim = "Sparse Tidal Operator Networks are accurate enough to replace numerical solvers while running on a laptop."
    assert _check(abstract, claim, best=1).verified


def test_a_plural_acronym_in_a_hyphenated_name_spelled_out():
    abstract = "Most Audio-LLMs answer near chance on simple pitch questions about two notes played in turn."
    claim = "Most Audio Large Language Models answer near chance on simple pitch questions about two notes played in turn."
    assert _check(abstract, claim).verified


def test_another_name_in_the_acronyms_place_is_still_a_swap():
    abstract = ("We introduce Sparse Tidal Operator Networks (STON), a forecasting family for estuaries, and compare "
                "it with WaveFormer. STON is accurate enough to replace numerical solvers while running on a laptop.")  # fmt: skip
    claim = "WaveFormer is accurate enough to replace numerical solvers while running on a laptop."
    assert not _check(abstract, claim, best=1).verified


# --- numbers in other forms --------------------------------------------------------------------------------------


def test_a_count_in_digits_for_the_abstracts_word():
    abstract = ("The corpus spans 3 regions and 12 languages, scored by seven annotators over 40 hours of "
                "recordings from 250 speakers.")  # fmt: skip
    claim = "The corpus spans 3 regions and 12 languages, scored by 7 annotators over 40 hours of recordings."
    assert _check(abstract, claim).verified


def test_a_digit_count_in_another_counts_place_is_still_caught():
    abstract = "The corpus covers 3 regions and 12 languages, recorded from 250 speakers over 40 hours."
    assert not _check(abstract, "The corpus covers 12 regions and 3 languages, recorded from 250 speakers over 40 hours.").verified


def test_3d_is_a_term_not_a_number():
    assert [q.value for q in quantities("It pairs 2 cameras with 3D pose for 10 birds.")] == [2.0, 10.0]


def test_a_count_next_to_a_3d_term_is_not_misplaced():
    abstract = ("The archive couples 4-channel audio with three camera views, calibrated 3D pose for each animal, "
                "and tags across 12 individuals and two seasons.")  # fmt: skip
    claim = "The archive couples 4-channel audio with three camera views, recorded across 12 individual animals."
    assert _check(abstract, claim).verified


# --- negation in other words -------------------------------------------------------------------------------------


def test_preventing_x_is_saying_x_cannot_happen():
    abstract = "Requests are padded to one length before leaving the device, preventing inference of the user's query."
    claim = "Requests are padded to one length before leaving the device, so an observer cannot infer the user's query."
    assert _check(abstract, claim).verified


def test_an_inability_is_saying_it_cannot():
    abstract = "We isolate two flaws of the greedy planner: it loops within each room and it cannot reach far rooms."
    claim = "The authors isolate two flaws of the greedy planner: looping within each room and an inability to reach far rooms."
    assert _check(abstract, claim).verified


def test_saying_it_can_where_the_abstract_says_it_prevents_is_still_the_opposite():
    abstract = "Requests are padded to one length before leaving the device, preventing inference of the user's query."
    claim = "Requests are padded to one length before leaving the device, so an observer can infer the user's query."
    assert not _check(abstract, claim).verified


# --- hedges and strength -----------------------------------------------------------------------------------------


def test_a_hedge_the_claim_keeps_does_not_make_proves_an_overclaim():
    abstract = ("We prove a lower bound on memory. We show that every smooth filter on a bounded signal set can be "
                "approximated by a fixed bank of decaying exponentials.")  # fmt: skip
    claim = "The authors prove that any smooth filter on a bounded signal set can be approximated by a fixed bank of decaying exponentials."
    assert _check(abstract, claim, best=1).verified


def test_proves_for_suggests_is_still_an_overclaim():
    abstract = "Our ablations suggest that the decaying exponentials carry most of the filter's memory on bounded signals."
    claim = "The ablations prove that the decaying exponentials carry most of the filter's memory on bounded signals."
    assert not _check(abstract, claim).verified


def test_rigorously_show_is_a_proof():
    abstract = "We rigorously show that each layer of a gated mixer can be written as a sparse sum of experts."
    claim = "The paper proves that each layer of a gated mixer can be written as a sparse sum of experts."
    assert _check(abstract, claim).verified


def test_every_where_another_sentence_says_all_in_other_word_forms():
    abstract = ("We build a benchmark to probe whether captioners can describe scenes that break physical rules. "
                "Experiments show that all captioners exhibit sharp degradation from ordinary to rule-breaking scenes.")  # fmt: skip
    claim = ("The benchmark probes whether captioners can describe scenes that break physical rules, and finds that "
             "every captioner degrades sharply from ordinary to rule-breaking scenes.")  # fmt: skip
    assert _check(abstract, claim).verified


def test_to_solve_is_an_aim_not_a_result():
    abstract = "For this task, we develop a sampling routine based on a tracking rule that has optimal sample cost."
    claim = "To solve this task, the authors develop a sampling routine based on a tracking rule with optimal sample cost."
    assert _check(abstract, claim).verified


def test_solves_as_a_result_is_still_an_overclaim():
    abstract = "For this task, we develop a sampling routine based on a tracking rule that may lower sample cost."
    claim = "The sampling routine based on a tracking rule solves this task and lowers sample cost."
    assert not _check(abstract, claim).verified


# --- settings named by an adjective ------------------------------------------------------------------------------


def test_textual_descriptions_name_the_text_setting():
    abstract = ("The simulator is driven by 3D hand poses. Scenes are edited through anchor frames coupled with textual "
                "descriptions of how each room changes.")  # fmt: skip
    claim = "The simulator is driven by 3D hand poses and edits scenes through anchor frames paired with text describing how each room changes."
    assert _check(abstract, claim).verified


# --- topical support: a hyphenated word built on the abstract's words --------------------------------------------

_PROBE = "We propose a probe that scores each sample's leakage risk using one trained model and no shadow models."


def test_a_free_compound_of_the_abstracts_words_counts_as_its_words():
    v = _check(_PROBE, "The paper proposes a shadow-model-free probe that scores each sample's leakage risk.", sim=0.5)
    assert v.verified, v.reason


def test_a_compound_of_words_the_abstract_never_uses_does_not_count():
    v = _check(_PROBE, "The paper proposes a reward-critic-free probe that scores each sample's leakage risk.", sim=0.5)
    assert not v.verified


# --- opposites that cancel ---------------------------------------------------------------------------------------


def test_skipping_is_avoiding():
    abstract = "The router flags easy batches whose gradients will likely stay small, thereby avoiding backward passes at those steps."
    claim = "The router flags easy batches whose gradients will likely stay small, which lets it skip backward passes at those steps."
    assert _check(abstract, claim).verified


def test_unlikely_to_change_is_likely_to_preserve():
    abstract = "The router flags edge pairs whose removal will likely preserve the ranking of the top results."
    claim = "The router flags edge pairs whose removal is unlikely to change the ranking of the top results."
    assert _check(abstract, claim).verified


def test_not_robust_is_saying_brittle():
    abstract = "Tuned on clean scans, the detector is brittle under scanner noise from other hospitals."
    assert _check(abstract, "Tuned on clean scans, the detector is not robust under scanner noise from other hospitals.").verified


def test_two_settings_flipped_together_are_still_caught():
    abstract = "In non-stationary markets with sparse signals, cooperation can emerge among trading agents without any designed incentive."
    claim = "In stationary markets with dense signals, cooperation can emerge among trading agents without any designed incentive."
    assert not _check(abstract, claim).verified


# --- a combined claim: a term of another sentence is no swap -----------------------------------------------------


def test_a_term_the_next_sentence_says_is_no_swap():
    abstract = ("We show that each layer of a gated mixer or a plain mixer can be written as a sum of experts. "
                "Using this view, we show that the gated mixer is more data-efficient than the plain mixer.")  # fmt: skip
    claim = ("Writing each layer as a sum of experts, the authors show that the gated mixer is more data-efficient "
             "than the plain mixer.")  # fmt: skip
    assert _check(abstract, claim).verified


def test_a_term_no_sentence_says_there_is_still_a_swap():
    abstract = ("We adapt variational inference to the tagging setting by exploiting the available label structure. "
                "We also review sequential Monte Carlo for comparison.")  # fmt: skip
    claim = "The paper adapts sequential Monte Carlo to the tagging setting by exploiting the available label structure."
    assert not _check(abstract, claim).verified


# --- numbers written another way ---------------------------------------------------------------------------------

_HOURS = "The archive holds 1.2 million hours of speech from 4 regions."


def test_a_scaled_number_is_a_number_not_a_name():
    assert _check(_HOURS, "The archive holds 1.2M hours of speech from four regions.").verified
    assert not _check(_HOURS, "The archive holds 1.5M hours of speech from four regions.").verified


def test_a_parameter_count_as_a_modifier():
    abstract = "The model has 7 billion parameters and runs on one GPU in real time."
    assert _check(abstract, "The 7B-parameter model runs on a single GPU in real time.").verified
    assert not _check(abstract, "The 13B-parameter model runs on a single GPU in real time.").verified


def test_a_digit_part_of_a_name_still_has_to_be_the_abstracts():
    abstract = "Trained on the CapSet instruction data, RouteNet gains over the CapSet baseline on four benchmarks."
    claim = "Trained on the CapSet-665K instruction data, RouteNet gains over the CapSet baseline on four benchmarks."
    assert not _check(abstract, claim).verified


def test_a_gain_in_points_is_the_difference_of_the_two_scores():
    abstract = "With the cache, accuracy rises from 61.2% to 68.4% on the held-out split of the benchmark."
    assert _check(abstract, "With the cache, accuracy rises by 7.2 points on the held-out split of the benchmark.").verified
    assert not _check(abstract, "With the cache, accuracy rises by 8.1 points on the held-out split of the benchmark.").verified


def test_a_speedup_is_the_ratio_of_the_two_times():
    abstract = "With the cache, latency on long prompts falls from 120 ms to 40 ms on one server."
    assert _check(abstract, "With the cache, long prompts run 3x faster on one server.").verified
    assert not _check(abstract, "With the cache, long prompts run 5x faster on one server.").verified


def test_a_fraction_as_a_percentage():
    abstract = "The probe reaches an AUROC of 0.91 on the held-out split of the benchmark."
    assert _check(abstract, "The probe reaches an AUROC of 91% on the held-out split of the benchmark.").verified
    assert not _check(abstract, "The probe reaches an AUROC of 95% on the held-out split of the benchmark.").verified


def test_one_manner_adverb_for_another_is_no_swap():
    abstract = ("Across all sites, the sampler consistently lowers the variance of the estimate. "
                "It also runs reliably on older hardware.")  # fmt: skip
    assert _check(abstract, "Across all sites, the sampler reliably lowers the variance of the estimate.").verified
