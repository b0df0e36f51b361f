"""rag.verify_tokens.Token as a cache key: equal tokens are equal and hash alike, so the checks' caches keyed by
tuples of tokens hit for a text tokenized twice."""

from __future__ import annotations

from rag.verify_tokens import make_token, tokenize


def test_equal_tokens_are_one_key():
    a = make_token("Models", "models", "model", 4, 10)
    b = make_token("Models", "models", "model", 4, 10)
    assert a == b and hash(a) == hash(b)
    assert {(a, b): 1}[(b, a)] == 1


def test_tokens_differing_in_any_field_are_different_keys():
    a = make_token("Models", "models", "model", 4, 10)
    assert a != make_token("models", "models", "model", 4, 10)
    assert a != make_token("Models", "models", "model", 5, 11)


def test_fields_read_by_name():
    first, comma = tokenize("Small, fast")[:2]
    assert (first.text, first.lower, first.start, first.end) == ("Small", "small", 0, 5)
    assert first.content and not first.is_punct
    assert comma.is_punct and not comma.content
