"""rag.themes: grouping papers by meaning and naming each group by its distinctive words (own small examples)."""

from __future__ import annotations

import numpy as np

from rag.themes import distinctive_words, find_themes, group_papers, words_and_forms


def unit(*rows: list[float]) -> np.ndarray:
    m = np.asarray(rows, dtype=np.float64)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


VECTORS = unit([1, 0.1, 0], [1, 0, 0.1], [0.9, 0.1, 0.1], [0, 1, 0.1], [0.1, 1, 0], [0, 0.1, 1])


def test_papers_close_in_meaning_share_a_group():
    groups = group_papers(VECTORS, 3)
    assert groups[0] == groups[1] == groups[2]
    assert groups[3] == groups[4] != groups[0]
    assert len(set(groups)) == 3


def test_one_group_when_one_is_asked_or_there_are_too_few_papers():
    assert group_papers(VECTORS, 1) == [0] * 6
    assert group_papers(VECTORS[:2], 3) == [0, 0]


def test_a_groups_words_are_those_most_of_it_uses_and_few_others_do():
    words_of = {
        "a": ["frog", "call", "model"], "b": ["frog", "pond", "model"], "c": ["frog", "call", "model"],
        "d": ["zedberry", "yield", "model"], "e": ["zedberry", "soil", "model"],
    }  # fmt: skip
    names = distinctive_words([["a", "b", "c"], ["d", "e"]], words_of, most=2)
    assert "frog" in names[0] and "model" not in names[0]  # every paper says "model": it names nothing
    assert names[1] == ["zedberry"]  # "yield" and "soil": one paper each


def test_a_word_common_in_english_weighs_less_than_a_rare_one():
    words_of = {"a": ["simple", "frog"], "b": ["simple", "frog"], "c": ["zed"], "d": ["zed"]}
    commonness = {"simple": 5.5, "frog": 3.0}
    assert distinctive_words([["a", "b"], ["c", "d"]], words_of, most=1, commonness=commonness)[0] == ["frog"]


def test_themes_list_the_largest_first_and_each_papers_nearest_its_centre_first():
    ids = ["a", "b", "c", "d", "e", "f"]
    words_of = {aid: ["frog"] if aid in "abc" else ["zed"] for aid in ids}
    themes = find_themes(ids, VECTORS, words_of, 3)
    assert [len(t.abstract_ids) for t in themes] == [3, 2, 1]
    assert set(themes[0].abstract_ids) == {"a", "b", "c"} and themes[0].words == ("frog",)
    assert themes[0].abstract_ids[0] == "c"  # the one between the other two


def test_words_are_stems_with_their_most_frequent_written_form():
    words_of, forms = words_and_forms({"a": "Frogs call. The frogs and \\mathcal{F} LLMs call."})
    assert "mathcal" not in " ".join(words_of["a"])  # a LaTeX command is no word
    assert forms[words_of["a"][0]] == "frogs"
    assert "LLMs" in forms.values()
