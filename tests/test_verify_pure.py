"""Unit tests for rag/verify.py with small hand-written abstracts (similarities are given, no model)."""

from __future__ import annotations

from rag.settings import VerifyPolicy
from rag.text import sentence_spans
from rag.verify import check_claim
from rag.verify_numbers import quantities
from tests.support.fake_similarity import check_with_fake_similarity as _check

ABSTRACT = (
    "We present FooBench, a benchmark of 1,200 tasks for image segmentation. "
    "Small specialist models outperform large generalist models on FooBench. "
    "Pretraining on synthetic data may improve robustness. "
    "Our method reduces latency without increasing memory."
)
SPANS = sentence_spans(ABSTRACT)


def _verdict(claim: str, best: int, sim: float = 0.85):
    sims = [0.2] * len(SPANS)
    sims[best] = sim
    return check_claim(claim, ABSTRACT, SPANS, sims, VerifyPolicy())


def test_faithful_restatement_is_verified():
    v = _verdict("Small specialist models outperform large generalist models on FooBench.", 1)
    assert v.verified and v.support >= VerifyPolicy().support_threshold
    assert v.evidence[0] == SPANS[1]


def test_swapped_comparison_is_rejected_with_a_quote():
    v = _verdict("Large generalist models outperform small specialist models on FooBench.", 1)
    assert not v.verified
    assert "opposite" in v.reason and "Small specialist models" in v.reason


def test_changed_number_is_rejected():
    v = _verdict("FooBench is a benchmark of 1,500 tasks for image segmentation.", 0)
    assert not v.verified and "1,500" in v.reason


def test_same_number_written_differently_is_verified():
    assert _verdict("FooBench is a benchmark of 1200 tasks for image segmentation.", 0).verified


def test_flipped_polarity_is_rejected():
    v = _verdict("Our method reduces latency and increases memory.", 3)
    assert not v.verified


def test_unknown_name_is_rejected():
    v = _verdict("Small specialist models outperform large generalist models on BarBench.", 1)
    assert not v.verified and "BarBench" in v.reason


def test_overclaim_is_rejected():
    v = _verdict("Pretraining on synthetic data proves to improve robustness.", 2)
    assert not v.verified and "proves" in v.reason


def test_changed_setting_is_rejected():
    v = _verdict("We present FooBench, a benchmark of 1,200 tasks for video segmentation.", 0)
    assert not v.verified and "video" in v.reason


def test_off_topic_claim_fails_on_support():
    v = _verdict("Graph neural networks predict protein folding.", 0, sim=0.1)
    assert not v.verified and v.failures[0].check == "support"


def test_quantities_read_scale_and_units():
    values = {(q.value, q.unit) for q in quantities("1.2M images, 45 percent faster, 3x fewer steps")}
    assert (1_200_000.0, "") in values and (45.0, "%") in values and (3.0, "x") in values


# --- second round of checks: each with its own tiny abstract -------------------------------------------------




def test_a_count_in_words_that_differs_from_the_abstracts_count_is_rejected():
    abstract = "We build ZedSet from public screens spanning five broad classes of phenotypes."
    v = _check(abstract, "ZedSet is built from public screens spanning eight broad classes of phenotypes.")
    assert not v.verified and "five" in v.reason and "eight" in v.reason


def test_a_count_in_words_of_something_the_abstract_does_not_count_is_left_alone():
    abstract = "We evaluate ZedNet on image segmentation and depth estimation benchmarks."
    assert _check(abstract, "ZedNet is evaluated on two tasks, image segmentation and depth estimation.").verified


def test_whether_or_not_yes_no_and_failed_as_an_adjective_are_not_negations():
    abstract = (
        "A player must decide whether the root value of the tree is at least a threshold or not. "
        "The reward decomposes each prompt into yes/no questions and zeroes descendants of failed parents."
    )
    assert _check(abstract, "The player decides whether the root value of the tree is at least a threshold.").verified
    assert _check(abstract, "The reward zeroes descendants of failed parent questions.", best=1).verified


def test_fails_to_is_still_a_negation():
    abstract = "The baseline fails to generalize to unseen molecules."
    assert not _check(abstract, "The baseline generalizes to unseen molecules.").verified


def test_freedom_from_a_step_contradicts_a_claim_that_it_is_required():
    abstract = (
        "The registration problem is posed in the acquisition space, which has a rotation symmetry. "
        "A by-product is freedom from having to augment the data with rotated copies."
    )
    v = _check(abstract, "The registration framework requires augmenting the data with rotated copies.")
    assert not v.verified and "opposite" in v.reason


def test_what_unlike_attributes_to_other_work_is_not_the_papers_claim():
    abstract = (
        "Unlike existing works that rely on strong assumptions such as ignorable dropout, we use partial "
        "identification to derive bounds."
    )
    v = _check(abstract, "The method relies on strong assumptions such as ignorable dropout to derive bounds.")
    assert not v.verified


def test_every_is_an_overclaim_when_the_abstract_does_not_say_it():
    abstract = "Training with ZedData yields gains on most hand pose benchmarks."
    v = _check(abstract, "Training with ZedData yields gains on every hand pose benchmark.")
    assert not v.verified and "every" in v.reason


def test_upper_bound_against_lower_bound_is_rejected():
    abstract = "We derive an explicit lower bound on the penalty that guarantees exactness."
    v = _check(abstract, "We derive an explicit upper bound on the penalty that guarantees exactness.")
    assert not v.verified and "lower" in v.reason


def test_swapped_dominance_is_rejected():
    abstract = (
        "We compare estimators of code correctness. "
        "Estimators based on fuzzy similarity strictly dominate estimators based on exact equivalence."
    )
    claim = "Estimators of code correctness based on exact equivalence strictly dominate those based on fuzzy similarity."
    v = _check(abstract, claim)
    assert not v.verified and "opposite" in v.reason


def test_everyday_words_of_a_paraphrase_are_not_new_details():
    abstract = "ZedDec reuses key-value caches of shared query prefixes to speed up decoding."
    claim = "To make decoding faster, ZedDec takes advantage of shared query prefixes and reuses key-value caches."
    assert _check(abstract, claim).verified
    assert not _check(abstract, claim, novel_word_max_zipf=8.0).verified  # counting every word, as before


def test_rare_words_the_abstract_never_uses_are_still_new_details():
    abstract = "ZedDec reuses key-value caches of shared query prefixes to speed up decoding."
    v = _check(abstract, "ZedDec reuses key-value caches of shared prefixes via speculative tokenization and quantized paging.")
    assert not v.verified


# --- third round: direction phrased with "over" / "compared to", adverbs and stand-ins --------------------------


def test_improves_over_is_a_comparison_and_its_swap_is_rejected():
    abstract = "Experiments on three datasets show that ZedAug consistently improves accuracy over random cropping."
    assert _check(abstract, "ZedAug improves accuracy over random cropping on three datasets.").verified
    v = _check(abstract, "Random cropping consistently outperforms ZedAug in accuracy on three datasets.")
    assert not v.verified and "opposite" in v.reason


def test_what_follows_the_compared_object_is_not_part_of_it():
    abstract = "We prove that sampling-based estimators strictly dominate greedy estimators in terms of variance."
    v = _check(abstract, "We prove that greedy estimators strictly dominate sampling-based ones in terms of variance.")
    assert not v.verified and "opposite" in v.reason


def test_stand_in_words_do_not_count_as_a_side():
    abstract = "In deep networks, later layers strictly dominate earlier ones in a capacity hierarchy."
    assert not _check(abstract, "In deep networks, earlier layers strictly dominate later ones in a capacity hierarchy.").verified
    assert _check(abstract, "Later layers dominate earlier ones in the capacity hierarchy of deep networks.").verified


def test_lower_error_is_better_so_it_agrees_with_outperforms():
    abstract = "ZedNet outperforms BarNet on the segmentation benchmark."
    assert _check(abstract, "ZedNet has lower error compared to BarNet on the segmentation benchmark.").verified
    assert not _check(abstract, "ZedNet has higher error than BarNet on the segmentation benchmark.").verified


def test_an_adjective_like_dominant_is_not_a_comparison():
    abstract = "We study two dominant paradigms of code generation: sampling and repair."
    assert _check(abstract, "The paper studies sampling and repair, two dominant paradigms of code generation.").verified


def test_listed_opposites_about_the_same_thing_are_rejected():
    abstract = "We find that ZedFold embeddings are complementary to features from standard docking scores."
    v = _check(abstract, "ZedFold embeddings are redundant with features from standard docking scores.")
    assert not v.verified and "complementary" in v.reason


def test_np_hard_against_polynomial_time_is_rejected():
    abstract = "We show that finding the optimal tariff schedule is NP-hard in the general case."
    assert not _check(abstract, "Finding the optimal tariff schedule takes polynomial time in the general case.").verified


def test_opposite_words_about_different_things_are_left_alone():
    abstract = "ZedNet uses local attention windows for speed."
    assert _check(abstract, "ZedNet, evaluated on global benchmarks, uses attention windows for speed.").verified
    assert not _check(abstract, "ZedNet uses global attention windows for speed.").verified


def test_a_prefix_antonym():
    abstract = "The protocol uses asymmetric encryption keys for every client."
    assert not _check(abstract, "The protocol uses symmetric encryption keys for every client.").verified


# --- attribution ----------------------------------------------------------------------------------------------

_PRIOR = (
    "Image captioning models are costly to adapt. "
    "Existing methods, however, typically require paired caption data to align the visual encoder with the decoder. "
    "We propose ZedCap, a pair-free adaptation method that aligns the encoder with unpaired text alone."
)


def test_what_existing_methods_do_given_to_the_papers_method_is_rejected():
    v = _check(_PRIOR, "ZedCap requires paired caption data to align the visual encoder with the decoder.", best=1)
    assert not v.verified  # said of existing methods; the paper's method is pair-free
    abstract = "Existing methods, however, typically require paired caption data to align the encoder with the decoder."
    v = _check(abstract + " We propose ZedCap for captioning.", "ZedCap requires paired caption data to align the encoder with the decoder.")
    assert not v.verified and v.failures[0].check == "attribution" and "Existing methods" in v.reason


def test_saying_it_of_existing_methods_or_denying_it_for_the_paper_is_fine():
    assert _check(_PRIOR, "Existing methods require paired caption data to align the visual encoder.", best=1).verified
    assert _check(_PRIOR, "Unlike prior methods, ZedCap does not require paired caption data.", best=2).verified


def test_what_the_paper_also_says_of_itself_is_not_misattributed():
    abstract = (
        "Prior works use contrastive pretraining on large image collections. "
        "ZedVis likewise uses contrastive pretraining on large image collections, but adds a depth head."
    )
    assert _check(abstract, "ZedVis uses contrastive pretraining on large image collections.", best=1).verified


# --- names swapped between two the abstract uses ----------------------------------------------------------------

_TWO_NAMES = (
    "We evaluate two retrievers, ZedRet and BarRet, on legal search. "
    "ZedRet reaches the highest recall on statute lookup across all courts. "
    "BarRet is cheaper to index."
)


def test_a_name_put_in_the_role_the_abstract_gives_another_name_is_rejected():
    v = _check(_TWO_NAMES, "BarRet reaches the highest recall on statute lookup across all courts.", best=1)
    assert not v.verified and "ZedRet" in v.reason and "BarRet" in v.reason


def test_the_right_name_in_its_role_is_verified():
    assert _check(_TWO_NAMES, "ZedRet reaches the highest recall on statute lookup across all courts.", best=1).verified
    assert _check(_TWO_NAMES, "BarRet is cheaper to index than ZedRet.", best=2).verified


def test_a_name_the_sentence_calls_our_model_is_not_swapped_with_a_baseline_it_names():
    abstract = "We introduce ZedLM, a compact encoder. Our model reaches 91 points on the reading benchmark, ahead of BarLM."
    assert _check(abstract, "ZedLM reaches 91 points on the reading benchmark.", best=1).verified


def test_a_without_part_ends_where_the_means_start():
    abstract = "ZedAdapt adapts vision backbones to microscopy without labels by combining a masked objective with stain metadata."
    assert _check(abstract, "ZedAdapt combines a masked objective with stain metadata to adapt backbones without labels.").verified
    v = _check(abstract, "ZedAdapt adapts vision backbones to microscopy with labels by combining a masked objective with stain metadata.")
    assert not v.verified


def test_without_using_stays_negated():
    abstract = "We name film characters from the movie itself, without using external cast lists or photographs."
    assert not _check(abstract, "Character names come from external cast lists and photographs.").verified


def test_a_strong_word_in_the_abstracts_own_phrase_is_not_an_overclaim():
    abstract = "We study pricing for cloud GPUs. We design three menus with approximation guarantees, all of which can beat flat pricing."
    assert _check(abstract, "The paper studies cloud GPU pricing and designs menus with approximation guarantees.").verified
    assert not _check(abstract, "The paper proves that cloud GPU pricing menus always beat flat pricing.", best=1).verified


# --- one term swapped for another the abstract uses --------------------------------------------------------------

_TWO_METHODS = (
    "Bayesian methods such as variational inference or particle filtering struggle in discrete domains. "
    "We adapt variational inference to program synthesis by exploiting the grammar of the target language."
)


def test_a_term_swapped_for_another_the_abstract_uses_is_rejected():
    v = _check(_TWO_METHODS, "The paper adapts particle filtering to program synthesis by exploiting the grammar of the target language.", best=1)
    assert not v.verified and v.failures[0].check == "swap" and "variational inference" in v.reason


def test_the_same_sentence_with_a_synonym_the_abstract_never_uses_is_not_a_swap():
    v = _check(_TWO_METHODS, "The paper adapts variational inference to code synthesis by exploiting the grammar of the target language.", best=1)
    assert not any(f.check == "swap" for f in v.failures)


def test_two_terms_trading_places_is_rejected():
    abstract = "During distillation, knowledge flows from the teacher network to the student network in every layer."
    v = _check(abstract, "During distillation, knowledge flows from the student network to the teacher network in every layer.")
    assert not v.verified and "other way round" in v.reason


def test_coordinated_terms_in_another_order_are_not_an_exchange():
    abstract = "We evaluate ZedSeg on street scenes from Cityscapes and Mapillary with a frozen backbone."
    assert _check(abstract, "We evaluate ZedSeg on street scenes from Mapillary and Cityscapes with a frozen backbone.").verified


# --- math written in LaTeX or plain text ------------------------------------------------------------------------


def test_a_changed_fraction_written_in_latex_is_rejected():
    abstract = r"Our mechanism obtains a $\tfrac{1-\epsilon}{2}$ approximation when demand is small."
    assert _check(abstract, "The mechanism obtains a (1-ε)/2 approximation when demand is small.").verified
    v = _check(abstract, "The mechanism obtains a (1-ε)/3 approximation when demand is small.")
    assert not v.verified and "(1-ε)/2" in v.reason


def test_a_changed_asymptotic_bound_is_rejected():
    abstract = r"We prove that the re-solving policy achieves $O((\log T)^2)$ regret and $O(\sqrt{T})$ violation."
    assert _check(abstract, "The re-solving policy achieves O((log T)^2) regret and O(√T) violation.").verified
    assert not _check(abstract, "The re-solving policy achieves O(log T) regret.").verified


# --- faithful paraphrases that earlier rounds rejected -----------------------------------------------------------


def test_a_paraphrase_avoiding_what_prior_work_relies_on_is_verified():
    abstract = "Unlike existing works that rely on ignorable dropout to obtain point estimates, we derive bounds."
    assert _check(abstract, "Rather than relying on ignorable dropout to obtain point estimates, the paper derives bounds.").verified


def test_unavailable_and_yet_to_are_negations():
    abstract = (
        "Reference distributions are unavailable in the extrapolative regime. "
        "Liquid biopsy has yet to produce applications for kidney disease."
    )
    assert _check(abstract, "In the extrapolative regime, reference distributions do not exist.").verified
    assert _check(abstract, "Liquid biopsy has not produced applications for kidney disease.", best=1).verified
    assert not _check(abstract, "Liquid biopsy has produced applications for kidney disease.", best=1).verified


def test_x_free_means_without_x():
    abstract = "This training-free approach overlays boxes on speakers and improves three dialogue benchmarks."
    assert _check(abstract, "Without any training, overlaying boxes on speakers improves three dialogue benchmarks.").verified
    assert not _check(abstract, "The approach requires training to overlay boxes on speakers.").verified


def test_a_prefixed_word_agrees_with_a_negated_evidence_word():
    abstract = "The criterion overlooks local details that are not mentioned in the prompt."
    assert _check(abstract, "The criterion overlooks unmentioned local details of the prompt.").verified


def test_a_hyphenated_count_is_read():
    abstract = "The benchmark covers a 27-method, seven-family matrix over four datasets."
    assert _check(abstract, "The benchmark covers 27 methods from seven families over four datasets.").verified
    assert not _check(abstract, "The benchmark covers 27 methods from nine families over four datasets.").verified


def test_only_and_confirms_are_not_overclaims_by_themselves():
    abstract = "ZedGraph relies on small auxiliary models, and experiments corroborate the analysis."
    assert _check(abstract, "ZedGraph depends only on small auxiliary models, and experiments confirm the analysis.").verified


def test_every_agrees_with_each_and_all_together_is_not_all():
    abstract = "Each internal node is labeled MAX or MIN. Prior datasets rarely provide occlusions and depth jointly."
    assert _check(abstract, "Every internal node is labeled MAX or MIN.").verified
    assert _check(abstract, "Prior datasets rarely provide occlusions and depth all together.", best=1).verified


def test_a_strong_word_said_in_another_sentence_about_the_same_thing_is_the_abstracts():
    abstract = (
        "ZedA is a same-sample score and ZedB is a held-out variant. "
        "We prove that both estimators are asymptotically unbiased."
    )
    claim = "ZedA is a same-sample score and ZedB a held-out variant, and both are proven asymptotically unbiased."
    assert _check(abstract, claim).verified
    assert not _check(abstract, "ZedA always beats ZedB as a same-sample score.").verified


def test_text_to_image_is_one_setting():
    abstract = "ZedArena ranks eleven text-to-image systems by human preference."
    assert _check(abstract, "ZedArena ranks eleven text-to-image systems by human preference.").verified


def test_names_with_a_common_suffix_and_acronyms_of_the_abstracts_words():
    abstract = "We audit training data with Shapley attributions and study Monte Carlo Tree Search."
    assert _check(abstract, "The paper audits training data with Shapley-based attributions.").verified
    assert _check(abstract, "The paper studies MCTS.").verified


def test_a_sentence_that_says_it_of_the_method_is_no_swap():
    abstract = (
        "We present ZedApp, an instruction-following benchmark. "
        "It adopts a Prompt-as-Environment design, pairing long system prompts with code engines."
    )
    assert _check(abstract, "ZedApp pairs long system prompts with code engines.", best=1).verified


def test_a_term_replaced_by_its_opposite_is_rejected_even_at_the_start():
    abstract = "We find a depth effect, where early layers mostly drive syntax errors while late layers drive fluency errors."
    v = _check(abstract, "In pruned models, late layers mostly drive syntax errors.")
    assert not v.verified and v.failures[0].check == "swap"
    abstract2 = "The slackened program reserves capacity and achieves stronger bounds in the small job regime."
    assert not _check(abstract2, "The slackened program reserves capacity and achieves stronger bounds in the large-job regime.").verified


def test_an_abbreviation_or_a_renamed_subject_is_not_a_swap():
    abstract = "We present ZedSum, a summarizer. When applied to 5,000 outputs from four LMs, the summarizer keeps key facts."
    assert _check(abstract, "When applied to 5,000 outputs from four language models, ZedSum keeps key facts.", best=1).verified


def test_requiring_what_the_abstract_says_it_goes_without_is_rejected():
    abstract = "We propose ZedMerge, a training-free token merging rule. It beats baselines while using no task labels."
    assert not _check(abstract, "ZedMerge requires additional training to learn which tokens to merge.").verified
    assert not _check(abstract, "ZedMerge relies on task labels to beat baselines.", best=1).verified
    assert _check(abstract, "ZedMerge beats baselines without task labels.", best=1).verified


def test_like_existing_methods_still_gives_it_to_the_paper():
    abstract = (
        "Existing calibration methods typically rely on post-hoc adjustment of confidences at the output level. "
        "We propose ZedCal, which corrects the causes of miscalibration inside the network."
    )
    v = _check(abstract, "Like existing calibration methods, ZedCal relies on post-hoc adjustment of confidences at the output level.")
    assert not v.verified


def test_not_yet_is_an_adverb_not_a_contrast():
    abstract = "Blood tests are routine for cancer but have yet to produce tools for kidney fibrosis."
    assert _check(abstract, "Blood tests have not yet produced tools for kidney fibrosis.").verified
    assert not _check(abstract, "Blood tests have produced tools for kidney fibrosis.").verified


def test_an_unlike_part_runs_to_where_the_paper_speaks():
    abstract = (
        "Unlike existing works that rely on strong assumptions, such as ignorable dropout, to obtain point "
        "estimates, we use partial identification to derive bounds."
    )
    assert _check(abstract, "Rather than relying on ignorable dropout to obtain point estimates, the paper derives bounds.").verified
    assert not _check(abstract, "The paper relies on ignorable dropout to obtain point estimates.").verified


def test_without_altering_agrees_with_keeping_the_same():
    abstract = "The penalty lets one use the asymmetric form without altering the critical points of the symmetric problem."
    assert _check(abstract, "With the penalty, the asymmetric form keeps the same critical points as the symmetric problem.").verified
    assert not _check(abstract, "The penalty alters the critical points of the symmetric problem.").verified


def test_more_setting_families():
    abstract = "ZedEval measures calibration for open-ended question answering with on-policy samples."
    v = _check(abstract, "ZedEval measures calibration for multiple-choice question answering with on-policy samples.")
    assert not v.verified and "open-ended" in v.reason
    assert not _check(abstract, "ZedEval measures calibration for open-ended question answering with off-policy samples.").verified


def test_prioritize_a_over_b_favours_a():
    abstract = "Our analysis shows that pairwise preference scores prioritize image aesthetics over prompt adherence."
    assert _check(abstract, "Pairwise preference scores prioritize image aesthetics over prompt adherence.").verified
    v = _check(abstract, "Pairwise preference scores prioritize prompt adherence over image aesthetics.")
    assert not v.verified
