"""eval.calibrate's scoring of per-kind tables (pure; small hand-made tables)."""

import math

from eval.calibrate import score


def test_score_reads_faithful_unsupported_and_the_worst_unsupported_kind():
    table = {"faithful": (9, 10), "unsupported": (6, 8), "overclaim": (3, 4), "wrong_scope": (3, 4),
             "paraphrase": (9, 10)}
    assert score(table) == (0.9, 0.75, 0.75)


def test_score_of_a_file_without_unsupported_kinds_has_no_worst_kind():
    faithful, rejected, worst = score({"faithful": (2, 2), "paraphrase": (2, 2)})
    assert (faithful, rejected) == (1.0, 0.0)
    assert math.isnan(worst)
