"""Unit tests for rag/roles.py: sentence roles from general cues of scientific abstracts (made-up sentences)."""

from __future__ import annotations

import pytest

from rag.roles import abstract_roles, asks_for_availability, names_contribution, sentence_role, states_evaluation


@pytest.mark.parametrize(
    ("sentence", "position", "expected"),
    [
        ("Graph learning has become central to chemistry.", 0, "background"),
        ("Existing methods typically rely on labelled data.", 1, "background"),
        ("However, these methods fail when labels are scarce.", 2, "gap"),
        ("We propose FooNet, a self-supervised graph learner.", 3, "contribution"),
        ("In this paper, we introduce a benchmark of 500 molecules.", 3, "contribution"),
        ("FooNet encodes each atom via a message-passing network.", 4, "method"),
        ("Experiments show that FooNet outperforms baselines by 12%.", 5, "result"),
        ("Code is available at https://example.org/foonet.", 6, "availability"),
        ("Our benchmark and code are publicly available.", 6, "availability"),
    ],
)
def test_sentence_role(sentence, position, expected):
    assert sentence_role(sentence, position, 7) == expected


def test_abstract_roles_one_per_sentence():
    roles = abstract_roles(["Images are everywhere.", "We present BarSet, a dataset.", "It improves accuracy by 3%."])
    assert roles == ["background", "contribution", "result"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [("Where is the code for FooNet?", True), ("Is the dataset released?", True), ("What does FooNet do?", False),
     ("Where can I get FooNet?", True), ("Are the FooNet checkpoints out?", True), ("Where does FooNet fail?", False)],
)
def test_asks_for_availability(question, expected):
    assert asks_for_availability(question) is expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Experiments on ZedSet and QuuxBench show gains.", True),
        ("Evaluated on BarQA, our method is the most accurate.", True),
        ("We confirm the finding across FooBench and BazSet.", True),
        ("We propose FooNet, a sparse graph learner.", False),
        ("FooNet encodes each atom with a message-passing network.", False),
    ],
)
def test_states_evaluation(sentence, expected):
    assert states_evaluation(sentence) is expected


@pytest.mark.parametrize(
    "sentence",
    [
        "Specifically, FooNet scores each atom and drops those whose evidence is insufficient.",
        "BarNet leverages a frozen encoder to rank candidate crops.",
        "The resulting scores are aggregated into a posterior, whose spread yields an uncertainty estimate.",
        "To do so, FooNet samples anchors that remain feasible under the budget.",
    ],
)
def test_sentences_saying_how_are_method_even_with_gap_or_result_words(sentence):
    assert sentence_role(sentence, 3, 7) == "method"


def test_openers_that_state_a_finding_or_gap_stay_what_they_are():
    assert sentence_role("In particular, its use for small molecules remains underexplored.", 2, 7) == "gap"


@pytest.mark.parametrize(
    "sentence",
    [
        "Finally, a ranking module picks the most promising candidate.",
        "Then, the decoder refines each patch.",
        "Specifically, the encoder maps each frame to a token.",
    ],
)
def test_a_discourse_opener_before_a_comma_is_not_a_work_name(sentence):
    assert sentence_role(sentence, 4, 8) != "contribution"


def test_a_work_named_before_a_comma_is_still_a_contribution():
    assert sentence_role("QuuxNet, a sparse graph learner, scales to large molecules.", 3, 8) == "contribution"


def test_reducing_a_problem_to_another_is_method_not_a_result():
    assert sentence_role("We reduce the problem of layout design to that of writing a program.", 3, 8) == "method"
    assert sentence_role("FooNet reduces memory use by 40%.", 6, 8) == "result"


def test_we_employing_a_step_is_method_even_if_it_reduces_something():
    assert sentence_role("We further employ a cache, which reduces the calls to the solver.", 5, 8) == "method"
    assert sentence_role("We then train a small adapter on the pruned heads.", 4, 8) == "method"
    assert sentence_role("We use FooNet and it outperforms the baselines by 12%.", 6, 8) == "result"


def test_a_sentence_saying_what_makes_something_brittle_is_a_gap():
    sentence = "Under noise, one observation fits several goals, making such single guesses prone to brittle plans."
    assert sentence_role(sentence, 3, 8) == "gap"


def test_a_purpose_clause_then_we_do_something_is_method():
    assert sentence_role("To speed up decoding, we reuse the cached keys across requests.", 4, 8) == "method"


def test_a_background_word_late_in_a_sentence_about_the_method_does_not_make_it_background():
    sentence = (
        "A shared rule pool keeps useful rules across tasks, while online updates adapt them to the current task."
    )
    assert sentence_role(sentence, 4, 8) != "background"
    assert sentence_role("Existing probes typically need many labels.", 1, 8) == "background"


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("We propose ZorbNet, a sparse probe for speech models.", True),
        ("We also introduce the Quux-Set and Quux-Real benchmarks.", True),
        ("Some failures trace to one stage, which we term the *choke stage*.", True),
        ("Our \\emph{Greedy Menu Pricing} (GMP) policy posts prices at random.", True),
        ("Our method, BLIX-7, pairs a frozen encoder with a small adapter.", True),
        ("We show that a Mixing Stress Index predicts these failures.", True),
        ("A tool called Frobber rewrites the queries.", True),
        ("We propose a sparse probe that prunes heads greedily.", False),
        ("We study pricing under a finite capacity.", False),
        ("Our findings suggest that refusals are gated by a few units.", False),
        ("This so-called attention sink is well known.", False),
        ("We use GPT-4 as a judge.", False),
    ],
)
def test_names_contribution(sentence, expected):
    assert names_contribution(sentence) is expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The main finding is drift: rankings hold within a model but not across models.", "result"),
        ("The analysis reveals that both regimes are set by a single ratio.", "result"),
        ("On larger grids, the estimates are orders of magnitude more accurate than before.", "result"),
        ("Across several MoE models, ZorbQ consistently beats uniform bit-widths.", "result"),
        ("Specifically, ZorbQ leverages spectral statistics to rank experts.", "method"),
    ],
)
def test_findings_are_results_and_a_name_before_a_plural_noun_is_not_a_method_subject(sentence, expected):
    assert sentence_role(sentence, 5, 9) == expected


def test_closing_the_gap_with_a_named_work_states_the_contribution():
    assert sentence_role("We close this gap with ZorbSet, a benchmark of probe tasks.", 2, 9) == "contribution"


def test_a_sentence_naming_the_challenge_is_a_gap_whatever_result_words_it_uses():
    sentence = "One such challenge is drift in effect sizes, which increases error for rare groups."
    assert sentence_role(sentence, 2, 9) == "gap"


def test_states_shortcoming():
    from rag.roles import states_shortcoming

    assert states_shortcoming("We reveal that when binding fails, the error stems from misaligned inputs.")
    assert not states_shortcoming("We reveal that the probe is accurate on every set.")


def test_an_early_claim_of_what_a_technique_can_do_is_background():
    assert sentence_role("Pruning can substantially reduce the memory of large probes.", 1, 9) == "background"
    assert sentence_role("We show that pruning can reduce memory by 40%.", 1, 9) != "background"


def test_concludes_marks_the_sentence_drawing_the_conclusion():
    from rag.roles import concludes

    assert concludes("Together, these results establish that depth matters.")
    assert concludes("Overall, FooNet is a strong baseline.")
    assert concludes("Our findings suggest that pruning helps.")
    assert not concludes("We propose FooNet, a graph learner.")


def test_a_setting_where_existing_tools_fall_short_is_a_gap_not_a_method():
    sentence = "Streaming inference, the usual deployment, is where current schedulers fall short: they assume fixed batches."
    assert sentence_role(sentence, 2, 7) == "gap"
    assert sentence_role("Static pruning falls short on long inputs.", 3, 8) == "gap"


def test_only_a_capitalised_name_before_a_comma_and_article_names_the_work():
    assert sentence_role("ZorbNet, a sparse router, assigns tokens to experts.", 2, 7) == "contribution"
    assert sentence_role("Sparse routing, a common choice, assigns tokens to experts.", 2, 7) != "contribution"


def test_a_code_line_glued_to_a_longer_sentence_takes_that_sentences_role():
    glued = "Across three benchmarks FooNet outperforms every baseline by up to 12%. Code is available at https://x.org."
    assert sentence_role(glued, 6, 7) == "result"
    assert sentence_role("Code is available at https://x.org.", 6, 7) == "availability"
    assert sentence_role("It wins by 3%. Code is available at https://x.org.", 6, 7) == "availability"
