from desktop_rag.core.search.fusion import reciprocal_rank_fusion


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


def test_convex_fusion_keeps_a_chunk_that_bm25_alone_picks_out_on_top():
    from desktop_rag.core.search.fusion import Fusion, fuse

    # A rare word: BM25 finds one chunk (7), far above nothing; the meaning list ranks it last of ten.
    dense = [(i, 0.80 - 0.01 * i) for i in range(1, 7)] + [(7, 0.70)]
    bm25 = [(7, 9.5)]
    fused = fuse(dense, bm25, Fusion("convex", 0.6))
    assert fused[0][0] == 7 and fused[0][1] == 0.6  # all of BM25's share, none of meaning's
    assert fused[1] == (1, 0.4)  # the best in meaning gets at most the meaning share


def test_convex_fusion_of_one_empty_list_is_the_other_list_scaled():
    from desktop_rag.core.search.fusion import convex_combination

    assert convex_combination([], [(3, 4.0), (5, 2.0)], 0.6) == [(3, 0.6), (5, 0.3)]
    assert convex_combination([], [], 0.6) == []
