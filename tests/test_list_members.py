"""Which papers a list answer names: pure parts (no index, no encoder)."""

from rag.answering import always_capitalised, unnamed_alternative
from rag.text import content_words


def test_a_name_the_corpus_always_capitalises_is_a_name_in_lower_case():
    assert always_capitalised("Zorblax", ["We fine-tune Zorblax-7B.", "Zorblax models are used."])


def test_a_name_the_corpus_also_writes_in_lower_case_is_a_term():
    assert not always_capitalised("Zorblax", ["We fine-tune Zorblax.", "a zorblax layer"])


def test_english_words_are_terms_whatever_their_capitals():
    assert not always_capitalised("Mixture-of-Experts", ["A Mixture-of-Experts model."])
    assert not always_capitalised("Gaussian", ["Gaussian noise is added."])


def test_a_lower_case_surface_is_not_a_name():
    assert not always_capitalised("zorblax", ["zorblax everywhere"])


def _topic(question: str) -> list[str]:
    return [w for w in content_words(question) if w not in {"paper", "which"}]


def test_a_name_or_a_described_topic_leaves_the_list_open():
    question = "Which papers use ZorbNet or graph matching?"
    assert unnamed_alternative(question, _topic(question), ["ZorbNet"])


def test_a_name_alone_or_every_part_named_keeps_the_named_papers_only():
    question = "Which papers use ZorbNet for graph matching?"
    assert not unnamed_alternative(question, _topic(question), ["ZorbNet"])
    both = "Which papers use ZorbNet or QuuxBench?"
    assert not unnamed_alternative(both, _topic(both), ["ZorbNet", "QuuxBench"])
