"""The single-paper 'missing name' signal's pure helpers (rag.answering): a name typed as an English word."""

from __future__ import annotations

from rag.answering import _typed_as_word


def test_a_common_word_typed_in_lower_case_is_not_a_name_the_answer_must_mention():
    assert _typed_as_word("MAX", "max throughput of the solver", 3.5)


def test_a_name_typed_as_the_corpus_writes_it_is_a_name():
    assert not _typed_as_word("MAX", "what does MAX improve", 3.5)


def test_a_rare_word_typed_in_lower_case_is_still_a_name():
    assert not _typed_as_word("FooNet", "how fast is foonet", 3.5)


def test_nothing_typed_keeps_the_name():
    assert not _typed_as_word("MAX", "", 3.5)


def test_a_kind_described_rather_than_named_answers_which_of_that_kind():
    from rag.answering import described_answer

    said = ["FooNet beats calibration-based baselines.", "We test on both simulated and real-world data."]
    assert described_answer("which baselines does FooNet beat?", said)
    assert described_answer("what real-world data is FooNet evaluated on?", said)  # "simulated": a word of its own
    # how good or how many they are says not which ones
    assert not described_answer("which baselines does FooNet beat?", ["FooNet beats state-of-the-art baselines."])
    assert not described_answer("which datasets does FooNet use?", ["FooNet is evaluated on six datasets."])
    assert not described_answer("which models does FooNet use?", said)  # a kind of thing that is named


def test_a_question_asking_what_something_is_called_is_answered_by_a_coined_term():
    from rag.answering import coined_answer

    coined = ["We study frogs that sing in pairs.", "We call this setting the duetting zed problem."]
    assert coined_answer("What is the name of the setting where frogs sing in pairs?", coined)
    assert coined_answer("what do the authors call this setting?", coined)
    assert coined_answer("What is this setting called?", coined)
    assert coined_answer("what is the name of the method?", ["We propose a sampler termed lazy walk."])
    # no term coined, or no name asked
    assert not coined_answer("What is the name of the setting?", ["We study frogs that sing in pairs."])
    assert not coined_answer("Which datasets does FooNet use?", coined)
    assert not coined_answer("What is the learning rate?", coined)
