"""eval.fusion_study: the pure parts (grid parsing, objective, leave-one-set-out choice, per-shape tally)."""

import numpy as np
import pytest

from eval.fusion_study import Read, grid_points, leave_one_set_out, objective, parse_grid, per_shape


def test_parse_grid_reads_names_and_numbers():
    assert parse_grid(["alpha=0.4,0.5", "depth=2,3"]) == {"alpha": [0.4, 0.5], "depth": [2, 3]}


def test_parse_grid_keeps_a_written_decimal_as_float():
    assert parse_grid(["alpha=1.0"])["alpha"] == [1.0] and isinstance(parse_grid(["alpha=1.0"])["alpha"][0], float)


@pytest.mark.parametrize("item", ["alpha", "=1,2", "alpha="])
def test_parse_grid_refuses_malformed_items(item):
    with pytest.raises(ValueError):
        parse_grid([item])


def test_grid_points_is_the_product():
    points = grid_points({"a": [1, 2], "b": [0.1]})
    assert points == [{"a": 1, "b": 0.1}, {"a": 2, "b": 0.1}]


def test_objective_counts_top_hit_and_half_the_recall():
    assert objective(["x", "y"], ["x"]) == 1.5
    assert objective(["y", "z", "x"], ["x", "w"]) == 0.25
    assert objective(["y"], ["x"]) == 0.0


def test_leave_one_set_out_scores_the_point_chosen_without_the_held_set():
    # point 1 wins only on set "a"; held out "a", the others prefer the base, so the gain there is 0
    scores = {0: {"a": 10.0, "b": 10.0, "c": 10.0}, 1: {"a": 14.0, "b": 9.0, "c": 9.0}}
    out = leave_one_set_out(scores, 0, ["a", "b"])
    assert out[0] == ("a", 0, 0.0)
    assert out[1] == ("b", 1, -1.0)  # chosen on a and c (23 > 20), it loses one on b


def test_leave_one_set_out_prefers_the_base_on_ties():
    scores = {0: {"a": 5.0, "b": 5.0}, 1: {"a": 5.0, "b": 5.0}}
    assert leave_one_set_out(scores, 0, ["a"]) == [("a", 0, 0.0)]


def test_per_shape_tallies_each_mode_overall_and_by_shape():
    vec = np.zeros(2, np.float32)
    reads = [Read("x1", "fact", ("p",), "q1", {}, vec), Read("y1", "list", ("p", "q"), "q2", {}, vec)]
    rankings = {"hybrid": {"x1": ["p"], "y1": ["q", "r"]}, "dense": {"x1": ["r"], "y1": ["r"]}}
    table = per_shape(rankings, reads)
    assert table["overall"]["hybrid"] == (2, 1.0, 0.75)
    assert table["list"]["hybrid"] == (1, 1.0, 0.5)
    assert table["fact"]["dense"] == (1, 0.0, 0.0)
    assert reads[1].blind_set == "y"
