"""Unit tests for the pure parts of rag/compose/extractive.py: markers, list plans and rendering."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rag.compose.extractive import (
    ExtractivePlan,
    finding_of,
    main_proposal,
    membership_scores,
    naming_sentence,
    plan_compare,
    plan_list,
    plan_more,
    plan_single,
    render,
    said_sentences,
    topic_sentence,
    with_asked_words,
    with_clause_answers,
    with_marker,
)
from rag.corpus import Abstract
from rag.evidence import EvidenceSentence
from rag.policy import AnswerPolicy
from rag.question import QuestionProfile
from rag.text import Span

POLICY = AnswerPolicy(list_member_weights={})  # the single-score list cut (the membership model: test_membership)
LIST_FLOOR, LIST_MARGIN, LIST_MAX = POLICY.list_floor, POLICY.list_margin, POLICY.list_max


def ev(
    abstract_id: str,
    row: int,
    score: float,
    text: str | None = None,
    role: str = "contribution",
    role_bonus: float = 0.0,
    has_number: bool = False,
) -> EvidenceSentence:
    return EvidenceSentence(
        abstract_id=abstract_id,
        row=row,
        span=Span(0, 5),
        text=text if text is not None else f"{abstract_id} sentence {row}.",
        score=score,
        dense=score,
        lexical=0.0,
        has_number=has_number,
        focus_share=0.0,
        role=role,
        role_bonus=role_bonus,
    )


def abstract(aid: str, label: str) -> Abstract:
    return Abstract(id=aid, label=label, text=f"{label} text.", locations=(), content_hash="0" * 64)


# --- with_marker ---


@pytest.mark.parametrize(
    ("sentence", "number", "expected"),
    [
        ("It works.", 1, "It works [1]."),
        ("Does it work?", 2, "Does it work [2]?"),
        ("It works!", 3, "It works [3]!"),
        ("No final punctuation", 1, "No final punctuation [1]"),
        ('He said "yes."', 1, 'He said "yes [1]."'),
        ("See the appendix (Fig. 2).", 4, "See the appendix (Fig. 2) [4]."),
        ("  Padded sentence .  ", 1, "Padded sentence [1]."),
        ("Accuracy is 3.5", 1, "Accuracy is 3.5 [1]"),
        ("Two digits.", 12, "Two digits [12]."),
    ],
)
def test_with_marker(sentence, number, expected):
    assert with_marker(sentence, number) == expected


# --- plan_list ---


def test_plan_list_empty():
    assert plan_list([], POLICY) == ExtractivePlan([], [], "list")


def test_plan_list_one_sentence_per_abstract_within_margin():
    evidence = [
        ev("a", 1, 1.0),
        ev("a", 2, 0.95),  # a's second sentence: not a second entry
        ev("b", 5, 0.9),
        ev("c", 7, 1.0 - LIST_MARGIN - 0.01),  # just outside the margin
    ]
    plan = plan_list(evidence, POLICY)
    assert plan.abstract_ids == ["a", "b"]
    assert [e.row for e in plan.sentences] == [1, 5]


def test_plan_list_orders_by_score_then_row():
    evidence = [ev("b", 3, 0.9), ev("a", 9, 0.95), ev("c", 1, 0.9)]
    assert plan_list(evidence, POLICY).abstract_ids == ["a", "c", "b"]


def test_plan_list_floor_applies_when_above_margin_cut():
    evidence = [ev("a", 1, LIST_FLOOR + 0.1), ev("b", 2, LIST_FLOOR - 0.01)]
    assert plan_list(evidence, POLICY).abstract_ids == ["a"]


def test_plan_list_keeps_best_when_all_below_floor():
    evidence = [ev("a", 1, 0.2), ev("b", 2, 0.1)]
    plan = plan_list(evidence, POLICY)
    assert plan.abstract_ids == ["a"]
    assert [e.row for e in plan.sentences] == [1]


def test_plan_list_caps_members():
    evidence = [ev(f"x{i}", i, 1.0) for i in range(LIST_MAX + 3)]
    plan = plan_list(evidence, POLICY)
    assert len(plan.abstract_ids) == LIST_MAX
    assert plan.abstract_ids == [f"x{i}" for i in range(LIST_MAX)]


def test_plan_list_margin_boundary_is_inclusive():
    evidence = [ev("a", 1, 1.0), ev("b", 2, 1.0 - LIST_MARGIN)]
    assert plan_list(evidence, POLICY).abstract_ids == ["a", "b"]


def test_plan_list_membership_ignores_the_role_bonus():
    # b's sentence on the topic is background (penalised for quoting), c's a weak contribution (boosted): b belongs
    evidence = [ev("a", 1, 1.0), ev("b", 5, 0.6, role="background", role_bonus=-0.3), ev("c", 9, 0.7, role_bonus=0.4)]
    assert membership_scores(evidence) == {"a": 1.0, "b": pytest.approx(0.9), "c": pytest.approx(0.3)}
    assert plan_list(evidence, POLICY).abstract_ids == ["a", "b"]


def test_plan_list_coverage_keeps_out_papers_off_the_topic():
    evidence = [ev("a", 1, 1.0), ev("b", 2, 0.95), ev("c", 3, 0.9), ev("d", 4, 0.85)]
    coverage = {"a": 0.8, "b": 0.1, "c": 0.5}
    assert plan_list(evidence, POLICY, coverage=coverage, min_coverage=0.3).abstract_ids == ["a", "c"]
    assert plan_list(evidence, POLICY).abstract_ids == ["a", "b", "c", "d"]  # without coverage: the margin alone


def test_plan_list_coverage_never_empties_the_list():
    evidence = [ev("a", 1, 1.0), ev("b", 2, 0.95), ev("c", 3, 0.9)]
    assert plan_list(evidence, POLICY, coverage={"c": 0.9}, min_coverage=0.3).abstract_ids == ["c"]
    assert plan_list(evidence, POLICY, coverage={}, min_coverage=0.3).abstract_ids == ["a"]


def test_plan_list_coverage_does_not_apply_to_named_members():
    evidence = [ev("a", 1, 1.0), ev("b", 2, 0.9)]
    plan = plan_list(evidence, POLICY, members=["b"], coverage={"a": 1.0, "b": 0.0}, min_coverage=0.3)
    assert plan.abstract_ids == ["b"]


# --- plan_single ---


def test_plan_single_cites_one_abstract_and_picks_its_sentences():
    profile = QuestionProfile(text="Explain.", kind="general", topic_words=())
    plan = plan_single("a", [ev("a", 4, 1.0), ev("a", 2, 0.9), ev("a", 8, 0.1)], profile)
    assert plan.abstract_ids == ["a"]
    assert [e.row for e in plan.sentences] == [2, 4]


def test_a_question_for_findings_is_answered_with_the_findings_first():
    profile = QuestionProfile(text="How well does FooNet do?", kind="general", topic_words=(), asks_findings=True)
    evidence = [
        ev("a", 2, 1.0, "We propose FooNet, a pruning method."),
        ev("a", 7, 0.95, "FooNet halves the error of the best baseline.", role="result"),
    ]
    plan = plan_single("a", evidence, profile)
    assert [e.row for e in plan.sentences][0] == 7
    asked_otherwise = plan_single("a", evidence, QuestionProfile(text="What is FooNet?", kind="general", topic_words=()))
    assert [e.row for e in asked_otherwise.sentences] == sorted(e.row for e in asked_otherwise.sentences)


def test_a_general_answer_quotes_what_the_work_finds_when_its_result_quota_states_no_finding():
    # the result quota is met by a sentence reporting an evaluation; the sentence stating the finding joins it
    profile = QuestionProfile(text="Why does ZedNet forget so fast?", kind="general", topic_words=())
    evidence = [
        ev("a", 1, 1.0, "Forgetting in ZedNet is a long-standing puzzle.", role="gap"),
        ev("a", 2, 0.9, "We propose a theory of forgetting in ZedNet."),
        ev("a", 5, 0.8, "Experiments on three benchmarks improve recall by 4%.", role="result"),
        ev("a", 4, 0.3, "We show that forgetting grows with the width of the last layer.", role="result"),
    ]
    rows = [e.row for e in plan_single("a", evidence, profile).sentences]
    assert 4 in rows and 5 in rows
    without = plan_single("a", evidence, profile, policy=AnswerPolicy(core_stated_finding=False))
    assert 4 not in [e.row for e in without.sentences]
    # a quoted finding already answers what the work finds: nothing is added
    stated = [*evidence[:2], replace(evidence[3], score=0.85), evidence[2]]
    off = AnswerPolicy(core_stated_finding=False)
    assert plan_single("a", stated, profile).sentences == plan_single("a", stated, profile, policy=off).sentences
    # the main finding, not one added to it, though that one scores better
    added = ev("a", 6, 0.45, "We also show that ZedNet transfers to speech.", role="result")
    rows = [e.row for e in plan_single("a", [*evidence[:3], added, evidence[3]], profile).sentences]  # by score
    assert 4 in rows and 6 not in rows


def test_a_question_for_findings_quotes_a_finding_even_when_none_scores_among_the_best():
    profile = QuestionProfile(text="What about its results?", kind="general", topic_words=(), asks_findings=True)
    evidence = [
        ev("a", 1, 1.0, "No benchmark exists for routing quills.", role="gap"),
        ev("a", 2, 0.95, "We propose FooNet, a quill router."),
        ev("a", 6, 0.2, "FooNet reports a 12% lower error.", role="result"),
        ev("a", 5, 0.1, "We show that FooNet is optimal.", role="result"),
    ]
    plan = plan_single("a", evidence, profile)
    assert plan.sentences[0].row == 5  # the finding it states leads


def test_a_question_for_findings_adds_an_outcome_when_the_quoted_result_only_says_where_it_was_evaluated():
    profile = QuestionProfile(text="How well do models do on FrogBench?", kind="general", topic_words=(), asks_findings=True)
    evidence = [
        ev("a", 8, 1.0, "FrogBench is built by hand and evaluated on 9 chat models.", role="result"),
        ev("a", 2, 0.9, "We introduce FrogBench, a benchmark of pond sounds."),
        ev("a", 9, 0.2, "Results reveal that accuracy ranges from 3.1% to 40.2%.", role="result"),
    ]
    rows = [e.row for e in plan_single("a", evidence, profile).sentences]
    assert 9 in rows and rows.index(9) < rows.index(2)  # the outcome is quoted, with the results leading


def test_a_number_question_leads_with_the_sentence_stating_a_number():
    profile = QuestionProfile(text="How big is FrogBench?", kind="number", topic_words=(), shape="number")
    evidence = [
        ev("a", 2, 1.0, "We introduce FrogBench, the first benchmark of pond sounds."),
        ev("a", 5, 0.95, "FrogBench comprises 466 recordings from nine ponds.", has_number=True),
    ]
    rows = [e.row for e in plan_single("a", evidence, profile).sentences]
    assert rows[0] == 5


def test_a_sentence_posing_the_problem_is_no_proposal():
    from rag.compose.extractive import has_role

    poses = ev("a", 1, 1.0, "We introduce the Quill Routing problem, in which a player must route quills.")
    solves = ev("a", 2, 1.0, "We develop a sampling algorithm based on the Orbit strategy.")
    assert not has_role(poses, "proposal")
    assert has_role(solves, "proposal")


def test_a_keyword_query_quotes_what_solves_the_problem_it_poses():
    evidence = [
        ev("a", 1, 1.0, "We introduce the Quill Routing problem, in which a player must route quills."),
        ev("a", 4, 0.9, "Our routing beats all baselines by 12%.", role="result"),
        ev("a", 2, 0.2, "We develop a sampling algorithm based on the Orbit strategy."),
    ]
    terse = QuestionProfile(text="quill routing sample complexity", kind="general", topic_words=(), terse=True)
    assert [e.row for e in plan_single("a", evidence, terse).sentences] == [1, 2, 4]


# --- render ---

ABSTRACTS = {"a": abstract("a", "FooNet"), "b": abstract("b", "BarSet")}


def test_render_prose_numbers_by_plan_order():
    plan = ExtractivePlan(["b", "a"], [ev("a", 1, 1.0, "Alpha holds."), ev("b", 2, 0.9, "Beta holds.")])
    assert render(plan, ABSTRACTS, as_list=False) == "Alpha holds [2]. Beta holds [1]."


def test_render_single_abstract_several_sentences():
    plan = ExtractivePlan(["a"], [ev("a", 1, 1.0, "One."), ev("a", 2, 0.9, "Two?")])
    assert render(plan, ABSTRACTS, as_list=False) == "One [1]. Two [1]?"


def test_render_list_one_line_per_abstract_with_label():
    plan = ExtractivePlan(["a", "b"], [ev("a", 1, 1.0, "Alpha holds."), ev("b", 2, 0.9, "Beta holds")])
    assert render(plan, ABSTRACTS, as_list=True) == "- **FooNet**: Alpha holds [1].\n- **BarSet**: Beta holds [2]"


def test_render_empty_plan():
    assert render(ExtractivePlan([], []), ABSTRACTS, as_list=False) == ""
    assert render(ExtractivePlan([], []), ABSTRACTS, as_list=True) == ""


def test_plan_list_then_render_round_trip():
    plan = plan_list([ev("b", 2, 0.9, "Beta holds."), ev("a", 1, 1.0, "Alpha holds.")], POLICY)
    assert render(plan, ABSTRACTS, as_list=True) == "- **FooNet**: Alpha holds [1].\n- **BarSet**: Beta holds [2]."


# --- compare tables ---


def test_plan_compare_one_row_per_work_with_the_same_aspects():
    a = [ev("a", 1, 0.9, "A does X.", "contribution"), ev("a", 2, 0.8, "A uses Y.", "method"),
         ev("a", 3, 0.7, "A wins by 5%.", "result")]  # fmt: skip
    b = [ev("b", 7, 0.9, "B does Z.", "contribution"), ev("b", 8, 0.5, "B was tested.", "result")]
    plan = plan_compare([("a", a), ("b", b)])
    assert plan.abstract_ids == ["a", "b"]
    text = render(plan, ABSTRACTS)
    lines = text.splitlines()
    assert lines[0] == "| Work | What it does | How | Results |"
    assert lines[2] == "| **FooNet** [1] | A does X [1]. | A uses Y [1]. | A wins by 5% [1]. |"
    assert lines[3] == "| **BarSet** [2] | B does Z [2]. | — | B was tested [2]. |"


def test_plan_compare_how_prefers_a_method_sentence_after_the_contribution():
    a = [ev("a", 1, 0.9, "Attacks should in principle be small.", "method"),
         ev("a", 2, 0.8, "We propose FooNet.", "contribution"),
         ev("a", 3, 0.4, "FooNet learns which pairs to skip.", "method")]  # fmt: skip
    plan = plan_compare([("a", a)])
    assert [e.row for e in plan.rows[0][1][1]] == [3]


def test_plan_compare_without_a_contribution_sentence_uses_the_best_other_one():
    a = [ev("a", 1, 0.9, "Availability.", "availability"), ev("a", 2, 0.8, "Background.", "background")]
    plan = plan_compare([("a", a)])
    assert [e.text for e in plan.rows[0][1][0]] == ["Background."]


def test_a_compare_row_quotes_the_sentences_detailing_the_proposal():
    a = [ev("a", 5, 0.9, "Probes are widely used.", "background"),
         ev("a", 1, 0.6, "We propose ZorbNet, a pruned probe.", "contribution"),
         ev("a", 3, 0.5, "ZorbNet is trained on 40k pairs.", "method"),
         ev("a", 2, 0.2, "It also releases a suite of 12 tasks.", "contribution")]  # fmt: skip
    what, how, _ = plan_compare([("a", a)]).rows[0][1]
    assert [e.row for e in what] == [1, 2]  # the proposal, then the contribution right after it
    assert [e.row for e in how] == [3]


def test_the_how_cell_opens_with_the_method_sentence_right_after_the_proposal():
    a = [ev("a", 4, 0.9, "Training takes two hours.", "method"),
         ev("a", 6, 0.8, "Pruning uses a fixed mask.", "method"),
         ev("a", 1, 0.5, "We propose ZorbNet, a pruned probe.", "contribution"),
         ev("a", 2, 0.1, "ZorbNet first ranks heads by gradient.", "method")]  # fmt: skip
    _, how, _ = plan_compare([("a", a)], policy=AnswerPolicy(compare_how_sentences=2)).rows[0][1]
    assert [e.row for e in how] == [2, 4]  # the detail, then the best other method sentence; reading order
    _, how, _ = plan_compare([("a", a)], policy=AnswerPolicy(compare_how_sentences=1)).rows[0][1]
    assert [e.row for e in how] == [2]


def test_the_results_cell_prefers_what_the_work_shows_over_an_evaluation_report():
    a = [ev("a", 1, 0.9, "We propose ZorbNet.", "contribution"),
         ev("a", 3, 0.8, "Experiments on five suites confirm gains.", "result"),
         ev("a", 4, 0.2, "We prove that every pruned probe is consistent.", "result")]  # fmt: skip
    assert [e.row for e in plan_compare([("a", a)]).rows[0][1][2]] == [4]


def test_what_a_work_does_is_its_main_contribution_not_one_added_to_it():
    a = [ev("a", 4, 0.9, "We also provide ZorbNet-Lite, a smaller probe.", "contribution"),
         ev("a", 1, 0.6, "We close this gap with ZorbNet, a pruned probe.", "contribution")]  # fmt: skip
    assert [e.row for e in plan_compare([("a", a)]).rows[0][1][0]] == [1]


def test_what_a_work_does_adds_a_further_contribution_said_later_up_to_the_policys_count():
    a = [ev("a", 1, 0.9, "We present ZorbSet, a synthetic probe dataset.", "contribution"),
         ev("a", 2, 0.8, "Real datasets are small.", "gap"),
         ev("a", 3, 0.5, "ZorbSet contains 2M labelled probes.", "contribution"),
         ev("a", 5, 0.4, "We further release ZorbSet-Lite.", "contribution")]  # fmt: skip
    assert [e.row for e in plan_compare([("a", a)]).rows[0][1][0]] == [1, 3]  # reading order; not the "further" one
    one = plan_compare([("a", a)], policy=AnswerPolicy(compare_what_sentences=1)).rows[0][1][0]
    assert [e.row for e in one] == [1]


def test_render_table_escapes_pipes():
    plan = plan_compare([("a", [ev("a", 1, 0.9, "Uses |x| norms.", "contribution")])])
    assert "Uses \\|x\\| norms [1]." in render(plan, ABSTRACTS)


# --- tell me more ---


def test_plan_more_skips_what_was_said_and_keeps_the_papers():
    evidence = [ev("a", 1, 0.9, "First point here now."), ev("a", 2, 0.8, "Second point here now."),
                ev("b", 3, 0.7, "Other paper point here.")]  # fmt: skip
    said = said_sentences("First point here now [1].")
    plan = plan_more(["a"], evidence, said, 2)
    assert [e.row for e in plan.sentences] == [2]
    assert plan.abstract_ids == ["a"]


def test_tell_me_more_about_a_role_quotes_that_role_first_and_never_a_repeat():
    evidence = [ev("a", 1, 0.9, "We propose ZorbNet, a pruned probe.", "contribution"),
                ev("a", 2, 0.8, "ZorbNet ranks heads by gradient.", "method"),
                ev("a", 3, 0.7, "ZorbNet then drops the lowest ones.", "method"),
                ev("a", 4, 0.2, "ZorbNet beats dense probes on five suites.", "result")]  # fmt: skip
    said = said_sentences("We propose ZorbNet, a pruned probe [1].")
    assert [e.row for e in plan_more(["a"], evidence, said, 2, role="result").sentences] == [2, 4]
    assert [e.row for e in plan_more(["a"], evidence, said, 2, role="method").sentences] == [2, 3]
    assert 1 not in [e.row for e in plan_more(["a"], evidence, said, 4).sentences]


def test_tell_me_more_quotes_a_finding_then_figures_before_other_results():
    evidence = [ev("a", 1, 0.9, "ZorbNet ranks heads by gradient.", "method"),
                ev("a", 2, 0.8, "ZorbNet does well across suites.", "result"),
                replace(ev("a", 3, 0.3, "On QuillQA it keeps 98% accuracy at 3 bits.", "result"), has_number=True),
                ev("a", 4, 0.1, "We show that pruning never hurts calibration.", "result")]  # fmt: skip
    assert [e.row for e in plan_more(["a"], evidence, set(), 2, result_sentences=2).sentences] == [3, 4]
    assert [e.row for e in plan_more(["a"], evidence, set(), 2, result_sentences=1).sentences] == [1, 4]


def test_tell_me_more_about_an_aspect_quotes_the_sentence_on_it_first_even_if_said():
    evidence = [ev("a", 3, 0.9, "ZorbNet fails in two ways on long inputs.", "gap"),
                ev("a", 1, 0.5, "We propose ZorbNet, a pruned probe.", "contribution"),
                ev("a", 2, 0.4, "ZorbNet ranks heads by gradient.", "method"),
                ev("a", 4, 0.1, "ZorbNet beats dense probes on five suites.", "result")]  # fmt: skip
    said = said_sentences("ZorbNet fails in two ways on long inputs [1].")
    assert [e.row for e in plan_more(["a"], evidence, said, 2, by_score=True).sentences] == [1, 3]
    assert [e.row for e in plan_more(["a"], evidence, said, 2).sentences] == [1, 2]


def test_said_sentences_strip_markers_and_markdown():
    said = said_sentences("- **FooNet**: It does a thing well [1].\nAnother sentence with words [2].")
    assert "it does a thing well" in said
    assert "another sentence with words" in said


def test_a_list_of_papers_naming_something_holds_exactly_those_papers_quoting_the_name():
    evidence = [
        ev("a", 0, 0.9, "A paper about sampling without any named model."),
        ev("b", 1, 0.5, "We introduce a sparse probe."),
        ev("b", 2, 0.4, "Experiments with Zorb-7B show gains."),
        ev("c", 3, 0.3, "We evaluate Zorb-7B on two tasks."),
    ]
    plan = plan_list(evidence, POLICY, members=["b", "c"], mentions=["Zorb-7B"])
    assert plan.abstract_ids == ["b", "c"]
    assert [e.text for e in plan.sentences] == [
        "Experiments with Zorb-7B show gains.",
        "We evaluate Zorb-7B on two tasks.",
    ]


def test_open_members_are_joined_by_the_papers_the_model_chooses():
    evidence = [
        ev("a", 0, 0.9, "We match graphs with a learned kernel."),
        ev("b", 1, 0.3, "Experiments with Zorb-7B show gains."),
        ev("c", 2, 0.1, "A paper on something else entirely."),
    ]
    model = AnswerPolicy(list_member_weights={"relevance": 10.0}, list_member_bias=-5.0, list_member_cut=0.5)
    named_only = plan_list(evidence, model, members=["b"], mentions=["Zorb-7B"])
    assert named_only.abstract_ids == ["b"]
    opened = plan_list(evidence, model, members=["b"], mentions=["Zorb-7B"], open_members=True)
    assert opened.abstract_ids == ["b", "a"]
    assert [e.text for e in opened.sentences][:1] == ["Experiments with Zorb-7B show gains."]


def test_members_absent_from_the_evidence_fall_back_to_the_usual_list():
    evidence = [ev("a", 0, 0.9), ev("b", 1, 0.85)]
    assert plan_list(evidence, POLICY, members=["zzz"]).abstract_ids == ["a", "b"]


def test_a_how_question_also_quotes_the_best_method_sentence():
    profile = QuestionProfile(text="How does ZorbNet work?", kind="general", topic_words=("zorbnet",), shape="how_why")
    evidence = [
        ev("a", 0, 0.9, "We introduce ZorbNet, a sparse probe.", role="contribution"),
        ev("a", 2, 0.2, "We train it by pruning heads greedily.", role="method"),
        ev("a", 1, 0.1, "Sparse probes are widely used.", role="background"),
    ]
    plan = plan_single("a", evidence, profile, policy=POLICY)
    assert [e.row for e in plan.sentences] == [0, 2]


def test_a_how_question_quotes_one_more_sentence_than_a_fact_question():
    evidence = [
        ev("a", 0, 0.9, "We introduce ZorbNet, a sparse probe.", role="contribution"),
        ev("a", 1, 0.85, "It first ranks heads by saliency.", role="method"),
        ev("a", 2, 0.8, "It then prunes the lowest-ranked heads.", role="method"),
        ev("a", 3, 0.75, "A small adapter restores the lost accuracy.", role="method"),
    ]
    how = QuestionProfile(text="How does ZorbNet work?", kind="general", topic_words=("zorbnet",), shape="how_why")
    fact = QuestionProfile(text="What is ZorbNet?", kind="general", topic_words=("zorbnet",), shape="fact")
    policy = AnswerPolicy(max_sentences=3, shape_max_sentences={"how_why": 4})
    assert [e.row for e in plan_single("a", evidence, how, policy=policy).sentences] == [0, 1, 2, 3]
    assert [e.row for e in plan_single("a", evidence, fact, policy=policy).sentences] == [0, 1, 2]


def test_a_sentence_beyond_max_sentences_must_be_nearly_as_good_as_the_best():
    evidence = [
        ev("a", 0, 0.9, "We introduce ZorbNet, a sparse probe.", role="contribution"),
        ev("a", 1, 0.85, "It first ranks heads by saliency.", role="method"),
        ev("a", 2, 0.8, "It then prunes the lowest-ranked heads.", role="method"),
        ev("a", 3, 0.3, "Probes are common.", role="background"),
    ]
    how = QuestionProfile(text="How does ZorbNet work?", kind="general", topic_words=("zorbnet",), shape="how_why")
    policy = AnswerPolicy(max_sentences=3, shape_max_sentences={"how_why": 4}, extra_sentence_margin=0.5)
    assert [e.row for e in plan_single("a", evidence, how, policy=policy).sentences] == [0, 1, 2]


def test_a_how_answer_quotes_the_best_method_sentences_even_below_the_margin():
    profile = QuestionProfile(text="How does ZorbNet work?", kind="general", topic_words=("zorbnet",), shape="how_why")
    evidence = [
        ev("a", 0, 1.0, "We introduce ZorbNet, a sparse probe.", role="contribution"),
        ev("a", 4, 0.9, "ZorbNet is accurate on QuuxBench.", role="result"),
        ev("a", 2, 0.3, "It first ranks heads by saliency.", role="method"),
        ev("a", 3, 0.2, "It then prunes the lowest-ranked heads.", role="method"),
        ev("a", 1, 0.1, "Sparse probes are widely used.", role="background"),
    ]
    policy = AnswerPolicy(core_shapes=(), max_sentences=3, shape_max_sentences={"how_why": 3}, answer_role_sentences=2)
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [0, 2, 3]


def test_a_why_question_about_a_shortcoming_quotes_the_gap_sentence():
    profile = QuestionProfile(
        text="Why do probes fail on new domains?", kind="general", topic_words=("probe",), shape="how_why",
        explains_failure=True,
    )  # fmt: skip
    evidence = [
        ev("a", 2, 1.0, "We introduce ZorbNet, a sparse probe.", role="contribution"),
        ev("a", 3, 0.9, "It ranks heads by saliency.", role="method"),
        ev("a", 1, 0.2, "However, probes overfit the source domain.", role="gap"),
    ]
    policy = AnswerPolicy(core_shapes=(), max_sentences=2, shape_max_sentences={"how_why": 2}, answer_role_sentences=1)
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [1, 2]


def test_why_a_work_matters_is_answered_by_its_set_up_and_conclusion_not_its_method():
    profile = QuestionProfile(
        text="why does that matter?", kind="general", topic_words=("matter",), shape="how_why",
        asks_significance=True,
    )  # fmt: skip
    evidence = [
        ev("a", 2, 1.0, "We introduce ZorbNet, a sparse probe.", role="contribution"),
        ev("a", 3, 0.9, "It ranks heads by saliency.", role="method"),
        ev("a", 0, 0.2, "Probes are costly to run on large models.", role="background"),
        ev("a", 5, 0.1, "Overall, sparse probes suffice for auditing.", role="result"),
    ]
    policy = AnswerPolicy(core_shapes=(), max_sentences=3, shape_max_sentences={"how_why": 3}, answer_role_sentences=1)
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [0, 2, 5]


def test_a_yes_no_question_about_a_work_quotes_the_sentence_holding_the_detail_it_asks_about():
    profile = QuestionProfile(
        text="Does ZorbNet require fine-tuning?", kind="general", topic_words=("zorbnet", "requir", "fine-tun"),
        shape="fact",
    )  # fmt: skip
    evidence = [
        ev("a", 1, 1.0, "We introduce ZorbNet, a sparse probe.", role="contribution"),
        ev("a", 2, 0.9, "ZorbNet ranks heads by saliency.", role="method"),
        ev("a", 3, 0.8, "ZorbNet is accurate on QuuxBench.", role="result"),
        ev("a", 4, 0.1, "Overall, probing works without any fine-tuning.", role="result"),
    ]
    policy = AnswerPolicy(core_shapes=(), max_sentences=2, shape_max_sentences={"fact": 2}, proposal_sentences=0)
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [1, 2, 4]
    off = AnswerPolicy(core_shapes=(), max_sentences=2, shape_max_sentences={"fact": 2}, proposal_sentences=0,
                       polar_detail_mass=0.0)  # fmt: skip
    assert [e.row for e in plan_single("a", evidence, profile, policy=off).sentences] == [1, 2]
    asked = QuestionProfile(text="What does ZorbNet require?", kind="general", topic_words=profile.topic_words)
    assert 4 not in [e.row for e in plan_single("a", evidence, asked, policy=policy).sentences]  # not a yes/no one


def test_with_role_keeps_the_best_sentence_and_the_cap():
    from rag.compose.extractive import with_role

    chosen = [ev("a", 0, 0.9, role="result"), ev("a", 1, 0.8, role="result")]
    evidence = [*chosen, ev("a", 5, 0.1, role="method"), ev("a", 6, 0.05, role="method")]
    assert [e.row for e in with_role(chosen, evidence, [("method", 2)], 3)] == [0, 5, 6]
    assert [e.row for e in with_role(chosen, evidence, [("method", 0)], 3)] == [0, 1]
    assert with_role([], evidence, [("method", 2)], 3) == []


def test_a_tighter_margin_keeps_only_the_papers_clearly_about_it():
    evidence = [ev("a", 0, 0.9), ev("b", 1, 0.8), ev("c", 2, 0.6)]
    assert plan_list(evidence, POLICY, margin=0.15).abstract_ids == ["a", "b"]
    assert plan_list(evidence, POLICY, members=["a", "c"], margin=0.15).abstract_ids == ["a"]
    assert plan_list(evidence, POLICY, members=["a", "c"]).abstract_ids == ["a", "c"]


def test_with_contribution_adds_each_papers_other_contribution_sentence_in_one_item():
    evidence = [
        ev("a", 1, 0.9, "We study sparse probes.", role="contribution"),
        ev("a", 3, 0.5, "We introduce ZorbNet, a pruned probe.", role="contribution"),
        ev("a", 2, 0.4, "Probes are common.", role="background"),
        ev("b", 7, 0.85, "We present QuuxSet.", role="contribution"),
    ]
    plan = plan_list(evidence, POLICY, with_contribution=True)
    assert [e.row for e in plan.sentences] == [1, 3, 7]
    text = render(plan, {"a": abstract("a", "ZorbNet"), "b": abstract("b", "QuuxSet")})
    assert text.splitlines() == [
        "- **ZorbNet**: We study sparse probes [1]. We introduce ZorbNet, a pruned probe [1].",
        "- **QuuxSet**: We present QuuxSet [2].",
    ]
    assert [e.row for e in plan_list(evidence, POLICY).sentences] == [1, 7]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("In particular, the probe needs only ten labels.", True),
        ("Specifically, heads are ranked by saliency.", True),
        ("However, this step is usually a single guess.", True),
        ("The former needs ten labels; the latter a hundred.", True),
        ("However, probes are costly.", False),
        ("We introduce ZorbNet.", False),
    ],
)
def test_elaborates(sentence, expected):
    from rag.compose.extractive import elaborates

    assert elaborates(sentence) is expected


def test_the_sentence_spelling_out_the_best_one_is_quoted_in_place_of_the_weakest():
    from rag.compose.extractive import with_elaboration

    chosen = [ev("a", 0, 0.5, "Probes are common."), ev("a", 2, 0.9, "ZorbNet needs fewer labels than probes.")]
    follower = ev("a", 3, 0.1, "In particular, it needs only ten labels.")
    evidence = [*chosen, follower, ev("a", 1, 0.2, "Specifically, probes are linear.")]
    assert [e.row for e in with_elaboration(chosen, evidence, 3)] == [0, 2, 3]
    assert [e.row for e in with_elaboration(chosen, evidence, 2)] == [2, 3]
    plain = [ev("a", 0, 0.9, "ZorbNet is fast."), ev("a", 1, 0.2, "It runs on phones.")]
    assert [e.row for e in with_elaboration(plain[:1], plain, 3)] == [0]


def test_a_keyword_query_quotes_the_contribution_and_a_result():
    profile = QuestionProfile(text="zorbnet probe", kind="general", topic_words=("zorbnet",), terse=True)
    evidence = [
        ev("a", 1, 0.9, "Probes are linear maps over hidden states.", role="background"),
        ev("a", 0, 0.8, "Probes need many labels.", role="gap"),
        ev("a", 2, 0.3, "We introduce ZorbNet, a sparse probe.", role="contribution"),
        ev("a", 4, 0.2, "ZorbNet is 3x more label-efficient.", role="result"),
    ]
    policy = AnswerPolicy(max_sentences=3, shape_max_sentences={"fact": 3}, sentence_margin=0.2)
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [1, 2, 4]


def test_a_question_asking_for_names_quotes_where_a_quoted_short_form_is_spelt_out():
    from rag.compose.extractive import with_spelled_out

    defines = ev("a", 1, 0.2, "We build on toy parity (TP) and zed odds (ZO).")
    uses = ev("a", 4, 0.9, "TP- and ZO-aligned toy properties conflict.", role="result")
    other = ev("a", 2, 0.5, "We define FooNet (FN) over feature sets.")
    assert [e.row for e in with_spelled_out([uses], [uses, other, defines], "Which notions does it use?")] == [1, 4]
    # the question uses the short form itself, or the answer spells it out already: nothing added
    assert [e.row for e in with_spelled_out([uses], [uses, defines], "Do TP and ZO conflict?")] == [4]
    assert [e.row for e in with_spelled_out([defines, uses], [defines, uses], "Which notions?")] == [1, 4]


def test_plan_single_spells_out_a_quoted_short_form_whatever_is_asked():
    uses = ev("a", 4, 0.9, "TP- and ZO-aligned toy properties conflict.", role="result")
    defines = ev("a", 1, 0.1, "We build on toy parity (TP) and zed odds (ZO).", role="method")
    policy = AnswerPolicy(max_sentences=1, shape_max_sentences={}, sentence_margin=0.0, core_shapes=())
    names = QuestionProfile(text="Which notions conflict?", kind="name", topic_words=())
    general = QuestionProfile(text="Explain the conflict.", kind="general", topic_words=())
    number = QuestionProfile(text="How many properties conflict?", kind="number", topic_words=())
    assert [e.row for e in plan_single("a", [uses, defines], names, policy=policy).sentences] == [1, 4]
    # a question describing the work in its own words: the answer says what the work calls the ideas it quotes
    assert [e.row for e in plan_single("a", [uses, defines], general, policy=policy).sentences] == [1, 4]
    assert [e.row for e in plan_single("a", [uses, defines], number, policy=policy).sentences] == [1, 4]
    only_names = policy.model_copy(update={"spelled_out_any_kind": False})
    assert [e.row for e in plan_single("a", [uses, defines], general, policy=only_names).sentences] == [4]


def test_counts_needs_a_number_right_before_the_counted_word():
    from rag.compose.extractive import counts

    assert counts("Across four toy tasks (6,000+ runs).", "run")
    assert counts("A study of 300 unscripted sessions.", "session")
    assert counts("We use five toy datasets.", "dataset")
    assert not counts("ZorbNet-4 runs fast.", "run")
    assert not counts("We run it 5 times.", "run")


def test_a_count_of_two_things_quotes_the_sentence_giving_the_missing_number():
    from rag.compose.extractive import with_counts

    sessions = ev("a", 5, 0.9, "A study of 300 toy sessions shows gains.", role="result")
    runs = ev("a", 2, 0.3, "We log 6,000+ runs of FooNet.")
    other = ev("a", 3, 0.6, "FooNet is fast.", role="result")
    assert [e.row for e in with_counts([sessions], [sessions, other, runs], ("run", "session"), 1)] == [2, 5]
    assert [e.row for e in with_counts([sessions], [sessions, other, runs], ("session",), 1)] == [5]
    assert [e.row for e in with_counts([sessions], [sessions, other, runs], ("run",), 0)] == [5]


def test_main_proposal_is_the_first_one_not_added_to_another():
    added = ev("a", 1, 0.9, "We also propose BarSet, a toy benchmark.")
    main = ev("a", 3, 0.5, "We propose ZorbNet, a sparse probe.")
    later = ev("a", 5, 0.8, "For noisy toys, we propose a robust loss.")
    assert main_proposal([added, later, main]) == main
    assert main_proposal([added]) == added
    assert main_proposal([ev("a", 2, 0.9, "Probes are common.", role="background")]) is None


def test_a_keyword_query_quotes_the_main_proposal_over_a_later_one():
    profile = QuestionProfile(text="zorbnet probe", kind="general", topic_words=("zorbnet",), terse=True)
    evidence = [
        ev("a", 6, 0.9, "For noisy toys, we propose a robust loss."),
        ev("a", 7, 0.8, "ZorbNet is 3x more label-efficient.", role="result"),
        ev("a", 0, 0.7, "Probes need many labels.", role="gap"),
        ev("a", 2, 0.3, "We introduce ZorbNet, a sparse probe."),
    ]
    policy = AnswerPolicy(max_sentences=3, shape_max_sentences={"fact": 3}, sentence_margin=0.2)
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [2, 6, 7]


def test_a_best_sentence_that_spells_out_the_one_before_brings_that_one():
    from rag.compose.extractive import with_elaboration

    antecedent = ev("a", 1, 0.2, "We propose ZorbNet, a three-stage probe.")
    best = ev("a", 2, 0.9, "Specifically, it ranks, prunes and retrains heads.")
    other = ev("a", 0, 0.5, "Probes are common.")
    assert [e.row for e in with_elaboration([other, best], [best, other, antecedent], 2)] == [1, 2]


def test_a_comparison_on_an_aspect_gets_a_column_for_it():
    a = [ev("a", 1, 0.9, "A does X.", "contribution"), ev("a", 2, 0.8, "A uses Y.", "method")]
    b = [ev("b", 7, 0.9, "B does Z.", "contribution")]
    asked = {"a": [ev("a", 1, 0.9, "A does X.", "contribution"), ev("a", 3, 0.5, "A needs 10 GPUs.", "result")],
             "b": [ev("b", 9, 0.7, "B needs one GPU.", "result")]}  # fmt: skip
    plan = plan_compare([("a", a), ("b", b)], asked, "their compute cost")
    lines = render(plan, ABSTRACTS).splitlines()
    assert lines[0] == "| Work | What it does | Their compute cost | How | Results |"
    assert lines[2] == "| **FooNet** [1] | A does X [1]. | A needs 10 GPUs [1]. | A uses Y [1]. | — |"
    assert lines[3] == "| **BarSet** [2] | B does Z [2]. | B needs one GPU [2]. | — | — |"


def test_what_a_work_does_prefers_the_sentence_saying_what_it_proposes():
    a = [ev("a", 1, 0.9, "We study sparse probes.", "contribution"),
         ev("a", 2, 0.5, "We propose ZorbNet, a pruned probe.", "contribution")]  # fmt: skip
    one = plan_compare([("a", a)], policy=AnswerPolicy(compare_what_sentences=1)).rows[0][1][0]
    assert [e.text for e in one] == ["We propose ZorbNet, a pruned probe."]


def test_a_how_answer_names_what_the_work_proposes_not_only_the_problem_it_studies():
    profile = QuestionProfile(text="How is routing decided?", kind="general", topic_words=("rout",), shape="how_why")
    evidence = [
        ev("a", 0, 0.9, "We study online routing under shifting demand.", role="contribution"),
        ev("a", 2, 0.8, "It re-solves a small program at each step.", role="method"),
        ev("a", 3, 0.7, "Each solve uses one sample per period.", role="method"),
        ev("a", 1, 0.1, "We propose ReRoute, a re-solving algorithm.", role="contribution"),
    ]
    policy = AnswerPolicy(
        core_shapes=(), shape_max_sentences={"how_why": 4}, answer_role_sentences=2, proposal_sentences=1
    )
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [0, 1, 2, 3]
    none = AnswerPolicy(
        core_shapes=(), shape_max_sentences={"how_why": 4}, answer_role_sentences=2, proposal_sentences=0
    )
    assert [e.row for e in plan_single("a", evidence, profile, policy=none).sentences] == [0, 2, 3]


@pytest.mark.parametrize(
    ("text", "role", "expected"),
    [
        ("We propose ZorbNet, a sparse probe.", "contribution", True),
        ("We address this gap by deriving two bounds.", "contribution", True),
        ("We study sparse probes.", "contribution", False),
        ("In this paper, we investigate probes.", "contribution", False),
        # the problem studied, then what the work contributes to it
        ("We study a regularized ZorbNet objective and derive a lower bound on its penalty.", "contribution", True),
        ("We study sparse probes, then propose a pruning rule for them.", "contribution", True),
        ("We study sparse probes and their failure modes.", "contribution", False),
        ("We propose to prune heads.", "method", False),
    ],
)
def test_has_role_proposal(text, role, expected):
    from rag.compose.extractive import has_role

    assert has_role(ev("a", 0, 0.5, text, role=role), "proposal") is expected


def test_a_list_line_adds_the_sentence_naming_what_the_paper_proposes_first():
    evidence = [
        ev("a", 1, 0.9, "We study causal discovery from observations.", role="contribution"),
        ev("a", 2, 0.6, "We prove that the parents are identified.", role="contribution"),
        ev("a", 3, 0.3, "For finite data, we propose ZorbRM, a local estimator.", role="contribution"),
    ]
    assert [e.row for e in plan_list(evidence, POLICY, with_contribution=True).sentences] == [1, 3]


def test_a_list_line_also_quotes_the_sentence_naming_what_its_line_describes():
    evidence = [
        ev("a", 1, 0.9, "Most video models cannot tell left from right.", role="result"),
        ev("a", 2, 0.2, "We call this failure FooBlindness.", role="result"),
        ev("a", 3, 0.1, "Training takes an hour.", role="method"),
    ]
    named = plan_list(evidence, AnswerPolicy(naming_follows=True))
    assert [e.row for e in named.sentences] == [1, 2]
    assert [e.row for e in plan_list(evidence, AnswerPolicy(naming_follows=False)).sentences] == [1]


def test_a_why_it_fails_and_how_to_fix_it_question_also_quotes_the_proposal():
    kwargs = dict(kind="general", topic_words=("probe",), shape="how_why", explains_failure=True)
    evidence = [
        ev("a", 1, 0.9, "However, probes overfit the source domain.", role="gap"),
        ev("a", 2, 0.8, "They also ignore label noise.", role="gap"),
        ev("a", 5, 0.1, "We propose ZorbNet, a probe trained on mixed domains.", role="contribution"),
    ]
    policy = AnswerPolicy(
        core_shapes=(), shape_max_sentences={"how_why": 4}, answer_role_sentences=2, proposal_sentences=1
    )
    fix = QuestionProfile(text="Why do probes fail, and how is it fixed?", asks_remedy=True, **kwargs)
    why = QuestionProfile(text="Why do probes fail?", **kwargs)
    assert [e.row for e in plan_single("a", evidence, fix, policy=policy).sentences] == [1, 2, 5]
    assert [e.row for e in plan_single("a", evidence, why, policy=policy).sentences] == [1, 2]


def test_a_general_answer_with_room_names_what_the_work_proposes():
    profile = QuestionProfile(text="Can an assistant pick arms well?", kind="general", topic_words=("arm",))
    evidence = [
        ev("a", 2, 0.9, "The assistant picks two arms each round.", role="method"),
        ev("a", 0, 0.2, "We study bandits with two agents.", role="contribution"),
        ev("a", 3, 0.1, "We call this the ZorbBandit and give an algorithm.", role="contribution"),
    ]
    policy = AnswerPolicy(core_shapes=(), shape_max_sentences={"fact": 3}, proposal_sentences=1)
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [2, 3]
    full = AnswerPolicy(
        core_shapes=(), max_sentences=1, shape_max_sentences={"fact": 1}, proposal_sentences=1, naming_follows=False
    )
    assert [e.row for e in plan_single("a", evidence, profile, policy=full).sentences] == [2]
    # row 3 names what the quoted row 2 describes ("We call this …"): it comes with it, room or not
    naming = full.model_copy(update={"naming_follows": True})
    assert [e.row for e in plan_single("a", evidence, profile, policy=naming).sentences] == [2, 3]


def test_an_answer_about_a_work_quotes_the_sentence_naming_what_it_introduces():
    profile = QuestionProfile(text="How do you pick which stage to retrain?", kind="general", topic_words=("stage",))
    evidence = [
        ev("a", 1, 0.9, "Retraining every stage wastes compute.", role="gap"),
        ev("a", 3, 0.8, "It ranks stages by their blame.", role="method"),
        ev("a", 0, 0.7, "Pipelines have many stages.", role="background"),
        ev("a", 2, 0.5, "Failures trace to one stage, which we term the *choke stage*.", role="gap"),
    ]
    policy = AnswerPolicy(
        max_sentences=3, shape_max_sentences={"fact": 3}, named_margin=0.6, proposal_sentences=0, response_shapes=()
    )
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [1, 2, 3]
    strict = policy.model_copy(update={"named_margin": 0.2})
    assert [e.row for e in plan_single("a", evidence, profile, policy=strict).sentences] == [0, 1, 3]
    off = policy.model_copy(update={"named_sentence_shapes": ()})
    assert [e.row for e in plan_single("a", evidence, profile, policy=off).sentences] == [0, 1, 3]


def test_a_question_on_what_a_work_is_evaluated_on_quotes_the_sentence_naming_the_data():
    from dataclasses import replace

    profile = QuestionProfile(
        text="Which datasets is ZorbNet tested on?", kind="name", topic_words=("zorbnet",), asks_evaluation=True,
        wants_names=True,
    )  # fmt: skip
    evidence = [
        replace(ev("a", 0, 1.2, "We present ZorbNet, a benchmark of probes.", role="contribution"), new_names=1),
        ev("a", 1, 0.9, "Probes are linear maps.", role="background"),
        ev("a", 2, 0.8, "It ranks heads by saliency.", role="method"),
        replace(ev("a", 3, 0.6, "Experiments on QuuxSet and BarQA show gains.", role="result"), new_names=2),
    ]
    policy = AnswerPolicy(max_sentences=3, shape_max_sentences={}, name_answer_margin=0.7, response_shapes=())
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [0, 1, 3]
    strict = policy.model_copy(update={"name_answer_margin": 0.3})
    assert [e.row for e in plan_single("a", evidence, profile, policy=strict).sentences] == [0, 1, 2]


def test_a_yes_no_line_prefers_the_sentence_naming_what_the_paper_introduces():
    evidence = [
        ev("a", 0, 0.9, "We study pricing of shared accelerators.", role="contribution"),
        ev("a", 1, 0.6, "We develop three pricing methods.", role="contribution"),
        ev("a", 4, 0.3, "Our Greedy Menu Pricing (GMP) policy is near-optimal.", role="result"),
    ]
    named = plan_list(evidence, POLICY, with_contribution=True, prefer_named=True)
    assert [e.row for e in named.sentences] == [0, 4]
    plain = plan_list(evidence, POLICY, with_contribution=True)
    assert [e.row for e in plain.sentences] == [0, 1]


def test_with_role_keeps_the_chosen_sentences_of_the_wanted_role_before_adding_others():
    from rag.compose.extractive import with_role

    chosen = [
        ev("a", 0, 0.9, "Retraining every stage wastes compute.", role="gap"),
        ev("a", 1, 0.8, "Later stages inherit the errors.", role="gap"),
        ev("a", 2, 0.7, "We propose ZorbFix.", role="contribution"),
        ev("a", 3, 0.6, "It ranks stages by blame.", role="method"),
    ]
    evidence = [*chosen, ev("a", 4, 0.5, "It then retrains the top stage.", role="method")]
    kept = with_role(chosen, evidence, [("method", 3)], 4)
    assert [e.row for e in kept] == [0, 1, 3, 4]


def test_tell_me_more_quotes_what_the_work_does_and_finds_before_its_background():
    evidence = [
        ev("a", 0, 0.9, "Probes are everywhere.", role="background"),
        ev("a", 1, 0.8, "They need many labels.", role="gap"),
        ev("a", 2, 0.7, "We propose ZorbNet.", role="contribution"),
        ev("a", 3, 0.6, "It ranks heads by saliency.", role="method"),
        ev("a", 4, 0.5, "It prunes the lowest-ranked heads.", role="method"),
        ev("a", 5, 0.2, "ZorbNet needs ten times fewer labels.", role="result"),
    ]
    plan = plan_more(["a"], evidence, {"we propose zorbnet"}, 3, result_sentences=1)
    assert [e.row for e in plan.sentences] == [3, 4, 5]
    assert [e.row for e in plan_more(["a"], evidence, set(), 2).sentences] == [2, 3]


def test_an_availability_line_is_not_the_sentence_naming_the_work():
    evidence = [
        ev("a", 0, 0.9, "We study pricing of shared accelerators.", role="contribution"),
        ev("a", 1, 0.6, "We develop three pricing methods.", role="contribution"),
        ev("a", 5, 0.3, "We release ZorbSet with code for every method.", role="availability"),
    ]
    assert [e.row for e in plan_list(evidence, POLICY, with_contribution=True, prefer_named=True).sentences] == [0, 1]


def test_a_why_it_fails_answer_counts_a_finding_about_the_failure_as_diagnosis():
    profile = QuestionProfile(
        text="Why do probes get speakers wrong?", kind="general", topic_words=("probe",), shape="how_why",
        explains_failure=True,
    )  # fmt: skip
    evidence = [
        ev("a", 0, 1.0, "Probes struggle with many speakers.", role="gap"),
        ev("a", 1, 0.8, "Speakers must be bound to lines.", role="method"),
        ev("a", 2, 0.4, "We reveal that when binding fails, the cause is misaligned audio.", role="result"),
        ev("a", 3, 0.3, "It improves accuracy by 9%.", role="result"),
    ]
    policy = AnswerPolicy(max_sentences=2, shape_max_sentences={"how_why": 2}, answer_role_sentences=2)
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [0, 2]


def test_a_question_the_work_addresses_is_its_problem_not_its_proposal():
    from rag.compose.extractive import has_role

    asked = ev("a", 0, 0.5, "We address the following question: can probes be trained without labels?")
    assert not has_role(asked, "proposal")


# --- list lines name the work ---


def test_a_list_line_that_does_not_name_the_work_quotes_the_sentence_naming_it():
    evidence = [
        ev("p", 0, 0.9, "Sorting socks by colour is a hard perceptual task.", role="background"),
        ev("p", 1, 0.8, "We propose a new approach to sock pairing.", role="contribution"),
        ev("p", 2, 0.6, "Our method, SockNet, pairs socks from one photo.", role="method"),
        ev("p", 3, 0.5, "SockNet is widely cited in the introduction.", role="background"),
    ]
    plan = plan_list(evidence, POLICY, with_contribution=True, own_names={"p": "SockNet"})
    assert [e.row for e in plan.sentences] == [1, 2]  # the line, then the method sentence naming SockNet


def test_a_line_already_naming_the_work_keeps_its_contribution_sentence():
    evidence = [
        ev("p", 0, 0.9, "We propose SockNet, which pairs socks from one photo.", role="contribution"),
        ev("p", 1, 0.8, "We propose a colour loss for sock pairing.", role="contribution"),
        ev("p", 2, 0.6, "Our method, SockNet, uses colour histograms.", role="method"),
    ]
    with_name = plan_list(evidence, POLICY, with_contribution=True, own_names={"p": "SockNet"})
    without = plan_list(evidence, POLICY, with_contribution=True)
    assert [e.row for e in with_name.sentences] == [e.row for e in without.sentences] == [0, 1]


def test_naming_sentence_skips_background_and_is_none_without_a_naming_sentence():
    line = ev("p", 0, 0.9, "We propose a new approach to sock pairing.")
    background = ev("p", 1, 0.8, "SockNet was first described long ago.", role="background")
    assert naming_sentence(line, [background], "SockNet") is None
    assert naming_sentence(ev("p", 0, 0.9, "SockNet pairs socks."), [background], "SockNet") is None


def test_membership_adds_weighted_topic_coverage():
    evidence = [ev("a", 0, 0.8), ev("b", 1, 0.7)]
    scores = membership_scores(evidence, {"a": 0.2, "b": 1.0}, 0.4)
    assert scores == {"a": pytest.approx(0.88), "b": pytest.approx(1.1)}
    assert membership_scores(evidence, {"a": 0.2}, 0.0) == membership_scores(evidence)


def test_a_paper_covering_the_topic_joins_though_its_best_sentence_trails():
    # b's best sentence trails a's by more than the margin, but b uses all the topic's words and a few of them.
    evidence = [ev("a", 0, 1.0), ev("b", 1, 1.0 - LIST_MARGIN - 0.05), ev("c", 2, 0.5)]
    coverage = {"a": 0.5, "b": 1.0, "c": 0.5}
    policy = AnswerPolicy(list_coverage_weight=0.4, list_member_weights={})
    assert set(plan_list(evidence, policy, coverage=coverage).abstract_ids) == {"a", "b"}
    without = AnswerPolicy(list_coverage_weight=0.0, list_member_weights={})
    assert plan_list(evidence, without, coverage=coverage).abstract_ids == ["a"]


def test_a_list_line_quotes_what_the_work_does_not_its_background():
    evidence = [
        ev("p", 0, 0.9, "Socks are often lost in the wash.", role="background"),
        ev("p", 1, 0.6, "We propose SockNet, which pairs socks from one photo.", role="contribution"),
        ev("p", 2, 0.5, "SockNet matches colour histograms.", role="method"),
    ]
    plan = plan_list(evidence, POLICY, with_contribution=True)
    assert [e.row for e in plan.sentences] == [1]
    assert all(e.role != "background" for e in plan.sentences)
    # Without contribution lines the best sentence stays the line when the contribution trails it by too much.
    assert [e.row for e in plan_list(evidence, POLICY).sentences] == [0]


def test_a_list_line_moved_to_the_contribution_keeps_the_sentence_answering_best():
    evidence = [
        ev("p", 0, 0.9, "Simulated shoppers built with LLMs let stores test layouts.", role="method"),
        ev("p", 3, 0.8, "We introduce a web platform for layout practice.", role="contribution"),
        ev("p", 4, 0.2, "Raters scored every shopper.", role="result"),
    ]
    plan = plan_list(evidence, POLICY, with_contribution=True)
    assert [e.row for e in plan.sentences] == [0, 3]  # the answer's sentence and what the work contributes
    # a best sentence that is only the setting is not brought back
    setting = [ev("p", 0, 0.9, "Stores are hard to lay out.", role="background"), *evidence[1:]]
    assert 0 not in [e.row for e in plan_list(setting, POLICY, with_contribution=True).sentences]


def test_a_paper_with_only_background_sentences_keeps_its_best_one():
    evidence = [
        ev("p", 0, 0.9, "Socks are often lost.", role="background"),
        ev("p", 1, 0.5, "Nobody knows why.", role="gap"),
    ]
    assert [e.row for e in plan_list(evidence, POLICY, with_contribution=True).sentences] == [0]


def test_a_background_line_is_not_replaced_by_a_bare_problem_statement():
    evidence = [
        ev("p", 0, 0.9, "Socks are often lost in the wash.", role="gap"),
        ev("p", 1, 0.6, "We study this question in three settings.", role="contribution"),
        ev("p", 2, 0.5, "Lost socks cluster behind the drum.", role="result"),
    ]
    plan = plan_list(evidence, POLICY, with_contribution=True)
    # The line is the finding (row 2), not the gap or the bare "we study"; that one may follow as what it contributes.
    assert [e.row for e in plan.sentences] == [1, 2]


# --- what the work proposes and finds (core_shapes) ---


def test_a_general_answer_also_quotes_what_the_work_proposes_and_finds():
    profile = QuestionProfile(text="Can a kettle boil faster?", kind="general", topic_words=("kettl",), shape="fact")
    evidence = [
        ev("a", 0, 1.0, "Kettles are slow to boil water.", role="background"),
        ev("a", 1, 0.9, "Boiling speed depends on the heating coil.", role="gap"),
        ev("a", 5, 0.2, "SpiralCoil boils water in half the time.", role="result"),
        ev("a", 3, 0.1, "We propose SpiralCoil, a coiled heater.", role="contribution"),
    ]
    policy = AnswerPolicy(max_sentences=2, shape_max_sentences={"fact": 2}, proposal_sentences=0, core_extra=2)
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [0, 1, 3, 5]
    off = AnswerPolicy(max_sentences=2, shape_max_sentences={"fact": 2}, proposal_sentences=0, core_shapes=())
    assert [e.row for e in plan_single("a", evidence, profile, policy=off).sentences] == [0, 1]


def test_the_core_sentences_are_not_added_to_a_number_or_name_answer():
    evidence = [
        ev("a", 0, 1.0, "The survey covers 40 kettles.", role="result"),
        ev("a", 2, 0.1, "We propose SpiralCoil, a coiled heater.", role="contribution"),
        ev("a", 4, 0.1, "SpiralCoil boils water faster.", role="result"),
    ]
    policy = AnswerPolicy(max_sentences=1, shape_max_sentences={}, proposal_sentences=0, named_sentence_shapes=())
    number = QuestionProfile(text="How many kettles?", kind="number", topic_words=("kettl",), shape="number")
    assert [e.row for e in plan_single("a", evidence, number, policy=policy).sentences] == [0]


def test_the_core_sentences_add_at_most_core_extra():
    profile = QuestionProfile(text="What about kettles?", kind="general", topic_words=("kettl",), shape="fact")
    evidence = [
        ev("a", 0, 1.0, "Kettles are slow to boil water.", role="background"),
        ev("a", 3, 0.1, "We propose SpiralCoil, a coiled heater.", role="contribution"),
        ev("a", 6, 0.05, "SpiralCoil boils water in half the time.", role="result"),
    ]
    policy = AnswerPolicy(max_sentences=1, shape_max_sentences={}, proposal_sentences=0, core_extra=1)
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [0, 3]


def test_with_detail_adds_the_sentence_right_after_the_proposal():
    from rag.compose.extractive import with_detail

    proposal = ev("a", 3, 0.9, "We propose SpiralCoil, a coiled heater.", role="contribution")
    detail = ev("a", 4, 0.1, "It winds the element around the spout.", role="method")
    background = ev("a", 4, 0.1, "Kettles are common in kitchens.", role="background")
    assert [e.row for e in with_detail([proposal], [proposal, detail], "proposal", ("method", "result"))] == [3, 4]
    assert [e.row for e in with_detail([proposal], [proposal, background], "proposal", ("method",))] == [3]
    # no proposal quoted, or the next sentence already quoted: unchanged
    other = ev("a", 1, 0.9, "Kettles are slow.", role="background")
    assert [e.row for e in with_detail([other], [other, detail], "proposal", ("method",))] == [1]
    assert [e.row for e in with_detail([proposal, detail], [proposal, detail], "proposal", ("method",))] == [3, 4]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("We show that every stable filter is a sum of decays.", True),
        ("We further prove that the bound is tight.", True),
        ("The analysis reveals that two regimes exist.", True),
        ("Experiments on three kettles show gains of 12%.", False),
        ("Our method outperforms the baselines.", False),
    ],
)
def test_states_finding_tells_a_shown_claim_from_an_evaluation_report(sentence, expected):
    from rag.roles import states_finding

    assert states_finding(sentence) is expected


def test_the_added_result_sentence_is_the_one_stating_what_the_work_shows():
    profile = QuestionProfile(text="Why is boiling slow?", kind="general", topic_words=("boil",), shape="fact")
    evidence = [
        ev("a", 0, 1.0, "Boiling is slow in most kettles.", role="background"),
        ev("a", 6, 0.5, "Experiments on ten kettles confirm a 12% gain.", role="result"),
        ev("a", 4, 0.1, "We prove that boiling time grows with the coil's gap.", role="result"),
    ]
    policy = AnswerPolicy(max_sentences=1, shape_max_sentences={}, proposal_sentences=0, core_extra=1)
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [0, 4]


# --- with_finding: an overview's line says what each paper finds ---


def test_finding_of_prefers_a_stated_finding_over_a_better_scoring_report():
    report = ev("a", 3, 0.8, "Experiments on two toy sets show gains.", role="result")
    shows = ev("a", 2, 0.5, "We prove that the toy bound is tight.", role="result")
    assert finding_of([report, shows]) == shows


def test_finding_of_takes_the_best_result_when_none_states_a_finding():
    low = ev("a", 2, 0.4, "Accuracy rises on toy data.", role="result")
    high = ev("a", 4, 0.6, "Our toy model wins on both tasks.", role="result")
    assert finding_of([low, high, ev("a", 1, 0.9)]) == high


def test_finding_of_none_without_result_sentences():
    assert finding_of([ev("a", 1, 0.9), ev("a", 2, 0.5, role="method")]) is None


def test_plan_list_with_finding_adds_the_result_sentence_in_reading_order():
    evidence = [
        ev("a", 1, 0.9),
        ev("a", 4, 0.3, "We show that toys help.", role="result"),
        ev("a", 2, 0.2, role="method"),
    ]
    plan = plan_list(evidence, POLICY, with_finding=True)
    assert [e.row for e in plan.sentences] == [1, 4]
    assert [e.row for e in plan_list(evidence, POLICY).sentences] == [1]


def test_plan_list_with_finding_adds_nothing_when_the_line_is_a_result():
    evidence = [ev("a", 3, 0.9, "Toys win.", role="result"), ev("a", 5, 0.3, "Toys also win again.", role="result")]
    assert [e.row for e in plan_list(evidence, POLICY, with_finding=True).sentences] == [3]


def test_plan_list_with_finding_keeps_papers_without_results_to_their_line():
    evidence = [ev("a", 1, 0.9), ev("b", 1, 0.85), ev("b", 6, 0.1, "Toy B is faster.", role="result")]
    plan = plan_list(evidence, POLICY, with_finding=True)
    assert [(e.abstract_id, e.row) for e in plan.sentences] == [("a", 1), ("b", 1), ("b", 6)]


# --- detail_roles: a yes/no line carries what the proposed work is made of ---


def test_plan_list_with_detail_roles_adds_the_sentence_after_the_proposal():
    evidence = [
        ev("a", 1, 0.9, "We propose FooNet, a toy model for ranking."),
        ev("a", 2, 0.2, "FooNet pairs a BarNet encoder with a ZedNet decoder.", role="method"),
        ev("a", 3, 0.1, "Toy accuracy rises.", role="result"),
    ]
    plan = plan_list(evidence, POLICY, detail_roles=("method", "result"))
    assert [e.row for e in plan.sentences] == [1, 2]
    assert [e.row for e in plan_list(evidence, POLICY).sentences] == [1]


def test_plan_list_with_detail_roles_skips_a_next_sentence_of_another_role():
    evidence = [
        ev("a", 1, 0.9, "We propose FooNet, a toy model for ranking."),
        ev("a", 2, 0.2, "Ranking toys is hard.", role="gap"),
    ]
    assert [e.row for e in plan_list(evidence, POLICY, detail_roles=("method",)).sentences] == [1]


def test_plan_list_with_detail_roles_adds_nothing_already_quoted():
    evidence = [
        ev("a", 2, 0.9, "FooNet pairs a BarNet encoder with a ZedNet decoder.", role="method"),
        ev("a", 1, 0.5, "We propose FooNet, a toy model for ranking."),
    ]
    plan = plan_list(evidence, POLICY, with_contribution=True, detail_roles=("method",))
    assert [e.row for e in plan.sentences] == [1, 2]


def test_topic_sentence_is_the_one_most_about_the_question_whatever_its_role():
    line = ev("a", 3, 0.8, "We propose FooNet for compressing speech codecs.", role_bonus=0.15)
    opening = ev("a", 1, 0.5, "Graph attacks rely on poisoned edges.", role="background", role_bonus=-0.3)
    other = ev("a", 2, 0.4, "Existing defences are slow.", role="gap", role_bonus=-0.3)
    assert topic_sentence([line], [opening, other]) == opening  # relevance 0.8 > 0.65


def test_topic_sentence_none_when_the_item_is_already_most_about_it():
    line = ev("a", 3, 0.8, "We propose FooNet.")
    assert topic_sentence([line], [ev("a", 1, 0.3, "Graphs are common.", role="background")]) is None


def test_topic_sentence_is_never_an_availability_line():
    line = ev("a", 3, 0.2, "We propose FooNet.")
    code = ev("a", 5, 0.9, "Code is available at https://example.org.", role="availability")
    assert topic_sentence([line], [code]) is None


def test_plan_list_with_topic_quotes_the_topic_sentence_after_the_line():
    evidence = [
        ev("a", 4, 0.9, "We propose FooNet, a graph defence.", role_bonus=0.15),
        ev("a", 1, 0.6, "Graph poisoning attacks corrupt edges.", role="background", role_bonus=-0.25),
        ev("a", 2, 0.1, "Little is known.", role="gap", role_bonus=-0.25),
    ]
    assert [e.row for e in plan_list(evidence, POLICY).sentences] == [4]
    assert [e.row for e in plan_list(evidence, POLICY, with_topic=True).sentences] == [4, 1]  # the work leads


def test_with_clause_answers_keeps_each_parts_best_sentence():
    chosen = [ev("a", 1, 0.9, "We propose FooNet."), ev("a", 2, 0.8, "FooNet encodes graphs.")]
    part_one = [ev("a", 1, 0.7), ev("a", 4, 0.2)]
    part_two = [ev("a", 4, 0.9, "Flat pricing is far from optimal."), ev("a", 2, 0.3)]
    assert [e.row for e in with_clause_answers(chosen, [part_one, part_two], 0.0)] == [1, 2, 4]


def test_with_clause_answers_adds_nothing_when_a_chosen_sentence_answers_the_part_nearly_as_well():
    chosen = [ev("a", 1, 0.9), ev("a", 2, 0.8)]
    part = [ev("a", 4, 0.5), ev("a", 2, 0.45)]
    assert [e.row for e in with_clause_answers(chosen, [part], 0.1)] == [1, 2]
    assert with_clause_answers(chosen, [], 0.0) == chosen


def test_plan_list_item_quotes_line_and_finding_in_reading_order_then_the_topic_sentence():
    evidence = [
        ev("a", 3, 0.9, "We propose FooNet, a graph defence.", role_bonus=0.15),
        ev("a", 1, 0.7, "Graph poisoning attacks corrupt edges.", role="background", role_bonus=-0.25),
        ev("a", 6, 0.3, "We show that FooNet halves the attack success rate.", role="result"),
    ]
    plan = plan_list(evidence, POLICY, with_finding=True, with_topic=True)
    assert [e.row for e in plan.sentences] == [3, 6, 1]


def test_default_policy_quotes_findings_and_topic_sentences_in_every_list_shaped_answer():
    policy = AnswerPolicy()
    assert {"list", "summary", "yes_no"} <= set(policy.finding_lines) & set(policy.topic_lines)


def test_with_response_adds_what_the_work_does_after_a_quoted_set_up_sentence():
    from rag.compose.extractive import with_response

    gap = ev("a", 1, 0.9, "Which kettle should one buy on a fixed budget?", role="gap")
    response = ev("a", 2, 0.1, "We cast kettle choice as a covering problem.", role="method")
    result = ev("a", 5, 0.5, "Covering saves 12% of the budget.", role="result")
    setup, does = ("background", "gap"), ("contribution", "method")
    assert [e.row for e in with_response([gap, result], [gap, result, response], setup, does, 1)] == [1, 2, 5]
    # nothing added past extra, when the next sentence is set-up too, or when it is quoted already
    assert [e.row for e in with_response([gap], [gap, response], setup, does, 0)] == [1]
    more_gap = ev("a", 2, 0.1, "Budgets are tight.", role="background")
    assert [e.row for e in with_response([gap], [gap, more_gap], setup, does, 1)] == [1]
    assert [e.row for e in with_response([gap, response], [gap, response], setup, does, 1)] == [1, 2]


def test_with_response_follows_the_best_set_up_sentence_first():
    from rag.compose.extractive import with_response

    weak = ev("a", 0, 0.2, "Kettles are common.", role="background")
    weak_next = ev("a", 1, 0.1, "We propose SpiralCoil.", role="contribution")
    strong = ev("a", 4, 0.8, "Yet kettles waste heat.", role="gap")
    strong_next = ev("a", 5, 0.1, "We insulate the spout.", role="method")
    evidence = [strong, weak, weak_next, strong_next]
    chosen = with_response([weak, strong], evidence, ("background", "gap"), ("contribution", "method"), 1)
    assert [e.row for e in chosen] == [0, 4, 5]


def test_a_loosely_read_question_also_quotes_what_the_work_proposes_and_finds():
    profile = QuestionProfile(text="SpiralCoil use which metal?", kind="name", topic_words=("metal",), shape="name")
    evidence = [
        ev("a", 1, 0.9, "Kettles waste metal.", role="background"),
        ev("a", 0, 0.3, "We propose SpiralCoil, a copper heater.", role="contribution"),
        ev("a", 3, 0.2, "SpiralCoil boils water in half the time.", role="result"),
    ]
    policy = AnswerPolicy(max_sentences=1, shape_max_sentences={}, response_shapes=(), named_sentence_shapes=())
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [1]
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy, loose=True).sentences] == [0, 1, 3]
    off = policy.model_copy(update={"loose_core": False})
    assert [e.row for e in plan_single("a", evidence, profile, policy=off, loose=True).sentences] == [1]
    # a number question keeps its shape: "how many" survives a gloss
    number = QuestionProfile(text="SpiralCoil has how many coils?", kind="number", topic_words=("coil",))
    assert [e.row for e in plan_single("a", evidence, number, policy=policy, loose=True).sentences] == [1]


def test_a_loosely_read_number_question_quotes_a_sentence_stating_a_number():
    # the gloss garbled what is counted: the best-matching sentence holds no number
    number = QuestionProfile(text="SpiralCoil has how many copper body?", kind="number", topic_words=("copper",),
                             asks_count=True)  # fmt: skip
    evidence = [
        ev("a", 0, 0.9, "SpiralCoil is a copper heater.", role="contribution"),
        ev("a", 2, 0.4, "It boils water 40% faster.", role="result", has_number=True),
        ev("a", 1, 0.3, "It winds 12 coils round the spout.", role="method", has_number=True),
    ]
    policy = AnswerPolicy(max_sentences=1, shape_max_sentences={}, response_shapes=(), named_sentence_shapes=())
    assert [e.row for e in plan_single("a", evidence, number, policy=policy).sentences] == [0]
    # (the sentence stating a number leads a number question's answer)
    assert [e.row for e in plan_single("a", evidence, number, policy=policy, loose=True).sentences] == [1, 0]


def test_an_answer_to_which_paper_quotes_the_sentence_naming_its_contribution():
    profile = QuestionProfile(
        text="Which paper boils water faster?", kind="general", topic_words=("water",), shape="number", asks_paper=True
    )  # fmt: skip  (shape "number": no other plan adds the naming sentence)
    evidence = [
        ev("a", 2, 0.9, "Water boils in half the time.", role="result"),
        ev("a", 1, 0.2, "We propose SpiralCoil, a coiled heater.", role="contribution"),
    ]
    policy = AnswerPolicy(max_sentences=1, shape_max_sentences={}, response_shapes=())
    assert [e.row for e in plan_single("a", evidence, profile, policy=policy).sentences] == [1, 2]
    strict = policy.model_copy(update={"paper_name_margin": 0.5})
    assert [e.row for e in plan_single("a", evidence, profile, policy=strict).sentences] == [2]
    plain = replace(profile, asks_paper=False)
    assert [e.row for e in plan_single("a", evidence, plain, policy=policy).sentences] == [2]


def test_a_single_paper_answer_quotes_a_code_link_only_when_asked_for_one():
    evidence = [
        ev("a", 5, 0.95, "FooNet is available at https://example.org/foonet.", role="availability"),
        ev("a", 1, 0.9, "We propose FooNet, a sparse router."),
    ]
    what = QuestionProfile(text="What is FooNet?", kind="general", topic_words=("foonet",), shape="fact")
    assert [e.row for e in plan_single("a", evidence, what).sentences] == [1]
    where = replace(what, text="Where is the code of FooNet?")
    assert 5 in [e.row for e in plan_single("a", evidence, where).sentences]


def test_a_request_for_papers_that_release_code_quotes_each_papers_release_line():
    evidence = [
        ev("a", 1, 1.0, "We propose FooNet, a frog-call detector."),
        ev("a", 3, 0.2, "Code is available at https://example.org/foonet.", role="availability"),
        ev("b", 5, 0.95, "We introduce ZedBench for zedberry yields."),
        # a release line glued to a result sentence keeps that sentence's role, but still says where the code is
        ev("b", 8, 0.1, "ZedNet wins by 3%. Code is available at: [https://example.org/zed]", role="result"),
    ]
    plain = plan_list(evidence, POLICY, members=["a", "b"], margin=None)
    released = plan_list(evidence, POLICY, members=["a", "b"], margin=None, with_availability=True)
    assert [e.row for e in plain.sentences] == [1, 5]
    assert sorted(e.row for e in released.sentences) == [1, 3, 5, 8]


def test_a_sentence_naming_what_a_quoted_one_describes_comes_with_it():
    from rag.compose.extractive import names_what_precedes, with_naming

    assert names_what_precedes("We call this failure zorb blindness.")
    assert names_what_precedes("This regime, which we term the quiet phase, is rare.")
    assert not names_what_precedes("We call for more work on probes.")
    assert not names_what_precedes("We propose ZorbNet.")
    evidence = [
        ev("a", 0, 0.9, "Most probes fail to tell left from right.", role="result"),
        ev("a", 1, 0.1, "We call this failure zorb blindness.", role="result"),
        ev("a", 2, 0.5, "We introduce ZorbNet.", role="contribution"),
        ev("a", 3, 0.1, "We call this model the quiet probe.", role="contribution"),
    ]
    # the naming sentence after a quoted one joins it; one after a sentence not quoted does not
    assert [e.row for e in with_naming([evidence[0]], evidence)] == [0, 1]
    assert [e.row for e in with_naming([evidence[2]], evidence)] == [2, 3]
    assert [e.row for e in with_naming([evidence[1]], evidence)] == [1]


# --- with_asked_words: a sentence for each asked word the quoted ones lack ---


def test_with_asked_words_adds_the_best_sentence_holding_a_missing_word():
    chosen = [ev("a", 1, 0.9, "FooBench is a benchmark of detectors.")]
    evidence = [
        chosen[0],
        ev("a", 3, 0.6, "We analyse features with neural collapse metrics."),
        ev("a", 2, 0.5, "Collapse of features is common."),
    ]
    out = with_asked_words(chosen, evidence, ["collaps"], 1)
    assert [e.row for e in out] == [1, 3]


def test_with_asked_words_leaves_an_answer_already_holding_the_word():
    chosen = [ev("a", 1, 0.9, "FooBench measures neural collapse.")]
    evidence = [chosen[0], ev("a", 2, 0.6, "Collapse appears late.")]
    assert with_asked_words(chosen, evidence, ["collaps"], 1) == chosen


def test_with_asked_words_adds_at_most_extra_sentences():
    chosen = [ev("a", 1, 0.9, "FooNet is a model.")]
    evidence = [chosen[0], ev("a", 2, 0.6, "It uses ZedLoss."), ev("a", 3, 0.5, "It runs on QuxChips.")]
    assert [e.row for e in with_asked_words(chosen, evidence, ["zedloss", "quxchip"], 1)] == [1, 2]
    assert [e.row for e in with_asked_words(chosen, evidence, ["zedloss", "quxchip"], 2)] == [1, 2, 3]


def test_with_asked_words_one_sentence_holding_two_words_is_added_once():
    chosen = [ev("a", 1, 0.9, "FooNet is a model.")]
    evidence = [chosen[0], ev("a", 2, 0.6, "It trains ZedLoss on QuxChips.")]
    assert [e.row for e in with_asked_words(chosen, evidence, ["zedloss", "quxchip"], 2)] == [1, 2]


def test_with_asked_words_adds_nothing_when_no_sentence_holds_the_word():
    chosen = [ev("a", 1, 0.9, "FooNet is a model.")]
    assert with_asked_words(chosen, [chosen[0], ev("a", 2, 0.6, "It is fast.")], ["zedloss"], 1) == chosen


def test_a_quoted_first_contribution_brings_the_second_it_lists():
    from rag.compose.extractive import with_enumeration

    first = ev("a", 1, 0.9, "First, we show that FooNet problems are problems of inference.")
    others = [
        ev("a", 0, 0.5, "FooNet is a field."),
        ev("a", 2, 0.4, "Second, we adapt ZedNet sampling to the FooNet setting."),
        ev("a", 3, 0.3, "Third, we release a library."),
    ]
    assert [e.row for e in with_enumeration([first], others)] == [1, 2]
    # nothing listed, or the second already quoted: unchanged
    plain = ev("a", 0, 0.9, "We show that FooNet problems are problems of inference.")
    assert with_enumeration([plain], others) == [plain]
    assert [e.row for e in with_enumeration([first, others[1]], others)] == [1, 2]


def test_a_compound_questions_part_answers_are_not_spelt_out_in_place_of_their_own_sentences():
    from rag.answering import with_part_plans

    lead = ev("a", 0, 0.9, "We introduce FooBench, a toy benchmark.")
    defines = ev("a", 2, 0.1, "We score toy prompts by the foo bar score (FBS).", role="method")
    top = ev("a", 5, 0.9, "The best system reaches an FBS of 0.8.", role="result", has_number=True)
    plan = ExtractivePlan(["a"], [lead])
    policy = AnswerPolicy(part_plan_sentences=1)
    rows = [e.row for e in with_part_plans(plan, ["what is the top score?"], [[top, defines]], policy).sentences]
    assert rows == [0, 5]  # the part's answer, not the sentence spelling out the short form it uses
