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
