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
