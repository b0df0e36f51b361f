"""Per-column int8 weights and the word table read outside the graph (pure numpy, no model)."""

import numpy as np
import pytest

from rag.onnx_encoder import WordTable, quantize_columns, word_record


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


# --- the word table outside the graph (pure numpy and a temporary file, no model) ---
def _fake_int8_records() -> np.ndarray:
    records = np.zeros(5, word_record(3, int8=True))
    records["q"] = np.arange(15, dtype=np.int8).reshape(5, 3) - 7
    records["scale"] = np.array([0.5, 0.25, 2.0, 1.0, 0.125], np.float32)
    return records


def test_int8_rows_are_their_values_times_their_scale_in_the_ids_shape():
    table = WordTable(word_record(3, int8=True), records=_fake_int8_records())
    ids = np.array([[2, 0, 2], [4, 4, 1]], np.int64)
    vectors = table.lookup(ids)
    assert vectors.shape == (2, 3, 3) and vectors.dtype == np.float32
    assert np.array_equal(vectors[0, 0], np.array([-1, 0, 1], np.float32) * 2.0)
    assert np.array_equal(vectors[0, 0], vectors[0, 2])  # a repeated id, the same row
    assert np.array_equal(vectors[1, 2], np.array([-4, -3, -2], np.float32) * 0.25)


def test_rows_read_from_the_file_equal_rows_held_in_memory(tmp_path):
    records = _fake_int8_records()
    path = tmp_path / "table.words"
    path.write_bytes(records.tobytes())
    ids = np.array([[3, 1, 0, 0]], np.int64)
    from_file = WordTable.open(path, records.dtype, rows=5)
    assert np.array_equal(from_file.lookup(ids), WordTable(records.dtype, records=records).lookup(ids))
    from_file.close()


def test_float_rows_come_back_unchanged(tmp_path):
    records = np.zeros(4, word_record(2, int8=False))
    records["v"] = np.array([[0.1, -2.0], [3.5, 1e-8], [0.0, 7.0], [-1.25, 4.0]], np.float32)
    path = tmp_path / "float.words"
    path.write_bytes(records.tobytes())
    table = WordTable.open(path, records.dtype, rows=4)
    assert np.array_equal(table.lookup(np.array([[1, 3]])), records["v"][[1, 3]][None])
    table.close()


def test_a_table_file_of_the_wrong_size_is_refused(tmp_path):
    dtype = word_record(3, int8=True)
    path = tmp_path / "cut.words"
    path.write_bytes(_fake_int8_records().tobytes()[:-5])  # not whole rows
    with pytest.raises(ValueError):
        WordTable.open(path, dtype, rows=5)
    path.write_bytes(_fake_int8_records()[:4].tobytes())  # whole rows, too few
    with pytest.raises(ValueError):
        WordTable.open(path, dtype, rows=5)


def test_ids_outside_the_table_are_refused():
    table = WordTable(word_record(3, int8=True), records=_fake_int8_records())
    for ids in ([[5]], [[-1]]):
        with pytest.raises(ValueError):
            table.lookup(np.array(ids, np.int64))
