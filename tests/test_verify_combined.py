"""Faithful claims that combine or summarise several sentences of an abstract, or speak in an assistant's voice
("The authors show that ..."), are accepted; the parts they combine are each checked against what they restate.
Own small examples, faked MiniLM similarities (tests/support/fake_similarity.py)."""

from __future__ import annotations

from tests.support.fake_similarity import check_with_fake_similarity as _check


def test_a_denial_of_one_thing_does_not_contradict_a_claim_about_what_comes_before_it():
    # "needs one labelled graph and no teacher graphs" denies teacher graphs, not the one labelled graph
    abstract = ("We study label-efficient graph distillation. "
                "Our student needs only one labelled graph and no teacher graphs.")  # fmt: skip
    claim = "The student learns from a single labelled graph, with no teacher graphs."
    assert _check(abstract, claim, best=1).verified


def test_a_claim_that_needs_the_denied_thing_is_still_rejected():
    abstract = ("We study label-efficient graph distillation. "
                "Our student needs only one labelled graph and no teacher graphs.")  # fmt: skip
    claim = "The student needs teacher graphs."
    assert not _check(abstract, claim, best=1).verified


def test_what_a_claim_says_is_swapped_out_may_be_what_the_abstract_says_is_common():
    abstract = ("Graph pretraining relies on random edge dropping during augmentation. "
                "We propose EdgeLens, which replaces random dropping with a learned saliency mask.")  # fmt: skip
    claim = "EdgeLens swaps random edge dropping in graph pretraining for a learned saliency mask."
    assert _check(abstract, claim, best=1, other=0.6).verified


PIPELINE = ("Existing planners predict one goal per step. We propose FlowPlan, which samples many candidate anchors. "
            "The anchors are turned into paths by a planner. A ranking module then selects the most promising "
            "route among them. Experiments show that FlowPlan improves coverage in unseen houses.")  # fmt: skip


def test_first_before_then_is_an_order_of_steps_not_a_claim_to_be_first():
    claim = "FlowPlan first samples candidate anchors and then turns them into paths with a planner."
    assert _check(PIPELINE, claim, best=1, other=0.6).verified


def test_first_alone_is_still_a_claim_the_abstract_must_make():
    claim = "FlowPlan is the first planner that samples candidate anchors."
    assert not _check(PIPELINE, claim, best=1, other=0.6).verified


def test_best_said_as_most_promising_in_a_sentence_with_the_same_words_around_it():
    claim = "FlowPlan samples candidate anchors, turns them into paths, selects the best route, and improves coverage."
    assert _check(PIPELINE, claim, best=1, other=0.6).verified


def test_best_of_a_claim_about_something_else_is_still_an_overclaim():
    claim = "FlowPlan samples candidate anchors and is the best planner for unseen houses."
    assert not _check(PIPELINE, claim, best=1, other=0.6).verified


def test_a_capitalised_strong_word_the_abstract_writes_the_same_way_is_a_name():
    abstract = ("We study ancestry shift in tabular models on the All of Us cohort. "
                "Local tables beat pooled tables across five phenotypes.")  # fmt: skip
    claim = "On All of Us, local tables beat pooled tables across five phenotypes."
    assert _check(abstract, claim, best=1).verified


def test_all_after_a_comma_gathers_the_claims_own_list():
    abstract = ("We release a dataset, a captioning model and a retrieval index for films. "
                "None of them uses external subtitles.")  # fmt: skip
    claim = "The paper releases a dataset, a captioning model and a retrieval index for films, all without external subtitles."
    assert _check(abstract, claim, best=0, other=0.6).verified


def test_all_before_a_noun_after_a_list_is_still_a_quantifier():
    abstract = "On clips of a car moving left, right, up, or down, most video models perform near chance."
    claim = "On clips of a car moving left, right, up or down, all video models perform near chance."
    assert not _check(abstract, claim, best=0).verified


def test_other_work_the_paper_acts_on_is_not_said_of_other_work():
    abstract = ("Many solvers approximate the partition function. "
                "By unifying existing approaches under a two-stage sketching pipeline, we study where error arises. "
                "Our sketches give estimates far more accurate than prior methods.")  # fmt: skip
    claim = "Casting partition-function estimation as a two-stage sketching pipeline, the authors get far more accurate estimates."
    assert _check(abstract, claim, best=2, other=0.6).verified


def test_what_other_work_does_is_still_not_the_papers():
    abstract = ("Existing approaches rely on costly Monte Carlo sampling of the partition function. "
                "We propose SketchZ, a deterministic sketch.")  # fmt: skip
    claim = "SketchZ relies on costly Monte Carlo sampling of the partition function."
    assert not _check(abstract, claim, best=1, other=0.6).verified


def test_a_result_verb_after_without_and_is_said_positively():
    abstract = ("We propose BitQ, a calibration-free bit-allocation method. "
                "Across several models, BitQ consistently outperforms calibration-based baselines.")  # fmt: skip
    claim = "BitQ allocates bits without calibration data and consistently outperforms calibration-based baselines."
    assert _check(abstract, claim, best=1, other=0.6).verified


def test_without_a_and_b_still_denies_both():
    abstract = ("We propose BitQ, a bit-allocation method. BitQ needs calibration data and outlier statistics.")
    claim = "BitQ allocates bits without calibration data and outlier statistics."
    assert not _check(abstract, claim, best=1, other=0.6).verified


def test_a_latex_exponent_is_not_a_quantity_of_the_abstract():
    abstract = ("Classification holds up out of distribution. "
                "Regression is more sensitive, with $R^2$ decreasing from 0.71 to about 0.40 on new scaffolds.")  # fmt: skip
    claim = "Regression suffers more, with R² falling from 0.71 to roughly 0.40 on new scaffolds."
    assert _check(abstract, claim, best=1).verified


def test_a_superscript_bound_reads_as_the_latex_one():
    abstract = "We prove that the re-solving policy achieves $O((\\log n)^2)$ regret in the large-budget regime."
    assert _check(abstract, "The re-solving policy achieves O((log n)²) regret in the large-budget regime.").verified
    assert not _check(abstract, "The re-solving policy achieves O((log n)³) regret in the large-budget regime.").verified


def test_a_possessive_acronym_is_matched_to_its_long_form():
    abstract = "Reliable confidence is essential for deploying large language models. We estimate it from one trace."
    claim = "The method estimates an LLM's confidence from one trace."
    assert _check(abstract, claim, best=1, other=0.6).verified


def test_an_acronym_that_ends_the_abstracts_names_is_their_kind():
    abstract = "We train retrieval agents with selective updates. Across HotpotQA and MultihopQA, our agents beat baselines."
    assert _check(abstract, "The agents beat baselines on two QA datasets.", best=1).verified
    assert not _check(abstract, "The agents beat baselines on two OCR datasets.", best=1).verified


def test_an_assistants_attribution_frame_is_not_content_the_abstract_must_hold():
    abstract = "We study linear probes on frozen encoders. Sparse probes transfer across model families."
    claim = "According to the authors, the paper reports that sparse probes transfer."
    assert _check(abstract, claim, best=1, sim=0.7).verified
    assert not _check(abstract, "According to the paper, dense adapters fuse vision tokens.", best=1, sim=0.7).verified


def test_a_second_comparison_verb_after_and_keeps_the_first_ones_subject():
    abstract = ("We propose ZedNet, a gated fusion module. Built on BaseNet-7B and 13B, ZedNet delivers consistent "
                "gains over the BaseNet-7B baseline (e.g., +4.2 on SQA) and surpasses prior multi-layer fusion methods on most benchmarks.")  # fmt: skip
    claim = ("ZedNet gates fusion, giving consistent gains over BaseNet-7B and beating prior multi-layer fusion methods on "
             "most benchmarks.")  # fmt: skip
    assert _check(abstract, claim, best=1).verified
    swapped = "Prior multi-layer fusion methods beat ZedNet on most benchmarks."
    assert not _check(abstract, swapped, best=1).verified


ASSISTED = ("In each round, a player sees the costs but picks only between two routes offered by a planner, while the "
            "planner sees the player's choice but not the realized costs. We design planners with low joint regret. "
            "Splitting the work this way avoids excess regret asymptotically.")  # fmt: skip


def test_never_for_a_plain_denial_of_the_same_thing_in_the_abstract():
    claim = "The planner never sees the realized costs, yet the planners reach low joint regret."
    assert _check(ASSISTED, claim, best=1, other=0.6).verified


def test_never_for_a_qualified_denial_is_still_an_overclaim():
    claim = "Splitting the work this way never incurs excess regret."
    assert not _check(ASSISTED, claim, best=2, other=0.6).verified


def test_can_solve_says_what_is_possible_not_that_it_is_solved():
    abstract = ("We present QuizGen, which trains models to write questions at a skill level. "
                "A question is calibrated if exactly one of two reference models answers it correctly.")  # fmt: skip
    claim = "QuizGen trains models to write questions that exactly one of two reference models can solve."
    assert _check(abstract, claim, best=0, other=0.6).verified
    assert not _check(abstract, "QuizGen solves question writing at every skill level.", best=0, other=0.6).verified


def test_a_condition_with_no_is_a_part_of_its_own():
    abstract = ("Standard quality metrics become circular for new attribute combinations. "
                "We propose a per-sample trust score for rating generated samples using only the training distribution.")  # fmt: skip
    claim = "The paper proposes a per-sample trust score for rating generated samples when no reference distribution exists."
    assert _check(abstract, claim, best=1).verified
    denied = "The paper proposes a per-sample trust score for rating generated samples when no training distribution is used."
    assert not _check(abstract, denied, best=1).verified


def test_a_hyphenated_setting_the_evidence_writes_as_its_initials():
    abstract = ("We prompt AV models with speaker boxes. "
                "Light tuning on these box-prompted videos extends the gains to three general AV benchmarks.")  # fmt: skip
    claim = "Light tuning extends the gains to three general audio-visual benchmarks."
    assert _check(abstract, claim, best=1).verified
    assert not _check(abstract, "Light tuning extends the gains to three general image benchmarks.", best=1).verified
