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
