"""Overview questions that speak of the collection's papers as a group are summaries (rag.question.classify_shape);
questions about one paper are not."""

import pytest

from rag.question import classify_shape


@pytest.mark.parametrize(
    "question",
    [
        "What do the papers here contribute on graph attacks and defences?",
        "What do the papers in this collection find about sparse rewards?",
        "What has been done here on compressing speech models?",
        "What have people done about label noise?",
    ],
)
def test_asking_what_the_papers_do_as_a_group_is_a_summary(question):
    assert classify_shape(question) == "summary"


@pytest.mark.parametrize(
    "question",
    ["What does the paper report about accuracy on the held-out set?", "What has the FooNet paper done to the loss?"],
)
def test_asking_about_one_paper_is_not_a_summary(question):
    assert classify_shape(question) != "summary"


def test_words_pointing_at_the_collection_are_not_matched_lexically():
    from rag.question import lexical_words

    assert "set" not in lexical_words("What are the papers in this set doing on protein folding?")
    assert "set" in lexical_words("Which papers report accuracy on a held-out test set?")
    assert "corpus" not in lexical_words("Summarize the work in the corpus on speech codecs.")


@pytest.mark.parametrize(
    "question",
    [
        "Describe the papers that study graph rewiring.",
        "Explain the main findings of papers on speech codecs.",
        "Tell me about the research on sparse rewards.",
        "What is the state of research on label noise here?",
        "Give an account of the work on protein folding.",
        "What did the papers find about label noise?",
        "What kind of work has been done on graph rewiring?",
        "How do the papers approach sparse rewards?",
        "Compare the approaches of the papers on speech codecs.",
    ],
)
def test_asking_to_describe_the_papers_or_the_work_on_a_topic_is_a_summary(question):
    assert classify_shape(question) == "summary"


@pytest.mark.parametrize(
    "question",
    [
        "Please give the papers which study graph rewiring.",
        "Provide studies on speech codecs.",
        "Can you recommend some articles about sparse rewards?",
        "Could you tell me which papers study graph rewiring?",
        "Among the papers, which ones study label noise?",
        "Which of these papers address speech codecs?",
        "In which papers is protein folding studied?",
        "Are any of the papers about sparse rewards?",
        "Find me all work on label noise.",
    ],
)
def test_a_request_whose_object_is_papers_is_a_list(question):
    assert classify_shape(question) == "list"


@pytest.mark.parametrize(
    "question",
    [
        "Describe the paper that proposes FooNet.",
        "Tell me about FooNet.",
        "Give an example of how it works.",
        "Show the main result of the paper.",
        "FooNet calibration metrics which ones improved",
        "What does the paper say about which studies it builds on?",
    ],
)
def test_describing_one_paper_or_a_thing_is_neither_a_summary_nor_a_list(question):
    assert classify_shape(question) not in ("summary", "list")
