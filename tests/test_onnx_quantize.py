"""Per-column int8 weights (pure numpy, no model)."""

import numpy as np

from rag.onnx_encoder import quantize_columns


def test_each_column_gets_its_own_scale_and_round_trips_within_half_a_step():
    weight = np.array([[1.0, -0.02], [-0.5, 0.01], [0.25, 0.005]], np.float32)
    q, scale = quantize_columns(weight)
    assert q.dtype == np.int8 and scale.dtype == np.float32
    assert np.allclose(scale, [1.0 / 127, 0.02 / 127])
    assert np.abs(q * scale - weight).max() <= scale.max() / 2 + 1e-7
    assert q[0, 0] == 127 and q[0, 1] == -127  # each column's largest magnitude uses the full range


def test_a_zero_column_keeps_a_usable_scale():
    q, scale = quantize_columns(np.zeros((4, 2), np.float32))
    assert np.all(q == 0) and np.all(scale == 1.0)
