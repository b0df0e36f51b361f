"""eval/typo_variants.py: seeded misspellings of questions (made-up questions)."""

from __future__ import annotations

import random

from rapidfuzz.distance import OSA

from eval.typo_variants import misspell, perturb, variants


def test_each_edit_changes_one_thing_and_keeps_the_first_letter():
    rng = random.Random(0)
    for edit in ("swap", "drop", "double", "neighbour"):
        for word in ("graphs", "Transformer", "FooBench"):
            typo = misspell(word, rng, edit)
            assert typo[0] == word[0] and typo != word
            assert OSA.distance(typo, word) == 1


def test_perturb_misspells_at_least_one_long_word_and_leaves_short_ones():
    text = perturb("How do we rank the FooNet models?", random.Random(1), rate=0.0)
    assert text != "How do we rank the FooNet models?"
    assert text.split()[:2] == ["How", "do"] and "we" in text.split()


def test_variants_are_seeded_keep_the_gold_and_alternate_lower_case():
    rows = [{"id": "x1", "question": "Which benchmark does FooNet use?", "gold": ["a"], "key_facts": [], "split": "dev"}]
    first, second = variants(rows, per=2, rate=0.3, seed=5), variants(rows, per=2, rate=0.3, seed=5)
    assert first == second
    assert [v["id"] for v in first] == ["x1~t0", "x1~t1"] and all(v["gold"] == ["a"] for v in first)
    assert first[1]["question"] == first[1]["question"].lower() and first[0]["question"][0] == "W"
