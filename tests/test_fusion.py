from desktop_rag.core.fusion import reciprocal_rank_fusion


def test_rrf_rewards_agreement_and_respects_weights():
    fused = reciprocal_rank_fusion([[1, 2, 3], [3, 2, 4]], [1.0, 1.0], k=60)
    ids = [i for i, _ in fused]
    assert ids == [3, 2, 1, 4]  # 3 is 3rd and 1st, 2 is 2nd twice; both beat items found by one list only
    assert dict(fused)[2] == 1 / 62 + 1 / 62
    assert dict(fused)[3] == 1 / 63 + 1 / 61
    heavy_dense = reciprocal_rank_fusion([[1, 2], [2, 1]], [3.0, 1.0], k=60)
    assert heavy_dense[0][0] == 1


def test_rrf_of_nothing_is_empty():
    assert reciprocal_rank_fusion([[], []], [1, 1]) == []
