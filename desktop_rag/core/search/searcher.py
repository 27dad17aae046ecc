"""Hybrid search: dense top-N and BM25 top-N, fused by reciprocal rank, optionally reranked by a cross-encoder."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from desktop_rag.core.search.fusion import Fusion, fuse
from desktop_rag.core.search.match_strength import (GOOD_MATCH, UNRELATED_PASSAGES, keyword_coverage, match_strength,
                                             meaning_strengths, needs_unrelated_scores)
from desktop_rag.core.search.query import contains_phrases, parse_query
from desktop_rag.core.search.rerank import Reranker, RerankerUnavailable
from desktop_rag.core.text.lexical import prefix_stem
from desktop_rag.documents import index_text
from desktop_rag.errors import BadInput, NoIndexError  # noqa: F401 (NoIndexError: callers import it from here)

MODES = ("hybrid", "dense", "bm25")


@dataclass
class Scores:
    dense: float | None = None
    bm25: float | None = None
    fused: float | None = None
    rerank: float | None = None
    keywords: float = 0.0  # share of the query's words the chunk holds (core/search/match_strength.py)
    meaning: float | None = None  # how far the chunk's similarity stands out from the candidates'
    strength: float = 0.0  # what a person is shown: 0 (no match) … 1 (every word, and close in meaning)


@dataclass
class Hit:
    chunk_id: int
    path: str
    title: str | None
    page: int | None
    chunk_index: int
    start_char: int
    end_char: int
    heading_path: list[str]
    context: str
    context_source: str
    quality: float | None
    text: str
    scores: Scores = field(default_factory=Scores)
    ocr_confidence: float | None = None  # the hit's page is a scan, read by OCR with this mean confidence (0–1)
    # The document's author and dates; a mail's from, to, cc, date (ParsedDocument.metadata).
    metadata: dict[str, str] | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> "Hit":
        """A hit as to_dict gave it (through the local endpoint)."""
        return cls(**{**values, "scores": Scores(**values["scores"])})


@dataclass
class SearchResult:
    query: str
    mode: str
    hits: list[Hit]
    reranked: bool = False
    notices: list[str] = field(default_factory=list)
    weak: bool = False  # hits, but none a good match: shown as "no good match", with the weak ones apart

    @classmethod
    def from_dict(cls, values: dict) -> "SearchResult":
        """A result as the local endpoint sends it (service/tools.py search)."""
        return cls(query=values["query"], mode=values["mode"], hits=[Hit.from_dict(h) for h in values["results"]],
                   reranked=values["reranked"], notices=values["notices"], weak=values["weak"])


class Searcher:
    def __init__(self, catalog, vectors, keywords, embedder, settings, reranker: Reranker | None = None):
        self.catalog = catalog
        self.vectors = vectors
        self.keywords = keywords
        self.embedder = embedder
        self.settings = settings
        self.reranker = reranker
        self._unrelated_vectors = None  # embedded UNRELATED_PASSAGES (core/search/match_strength.py), on first need

    def search(self, query: str, k: int = 10, mode: str = "hybrid", rerank: bool | None = None) -> SearchResult:
        if mode not in MODES:
            raise BadInput(f"unknown search mode {mode!r}; pick one of {', '.join(MODES)}")
        if k < 1:
            raise BadInput(f"the number of results must be 1 or more, not {k}")
        if self.catalog.chunk_count() == 0:
            raise NoIndexError("nothing is indexed yet: run `desktop-rag index PATH...` first")
        # Bytes that are not UTF-8 (a terminal in another encoding) reach Python as lone surrogates, which the
        # embedder's tokenizer refuses: they become U+FFFD, and the rest of the query still counts.
        query = query.encode("utf-8", "surrogatepass").decode("utf-8", "replace").strip()
        result = SearchResult(query=query, mode=mode, hits=[])
        parsed = parse_query(query)
        if not parsed.text:
            return result
        want_rerank = self.settings.rerank if rerank is None else rerank
        n = max(self.settings.candidates, k)

        query_vector = self.embedder.embed_query(parsed.text) if mode in ("hybrid", "dense") else None
        dense = self.vectors.query(query_vector, n) if query_vector is not None else []
        bm25 = (self.keywords.search(parsed.keywords_text, n, [prefix_stem(p) for p in parsed.prefixes])
                if mode in ("hybrid", "bm25") else [])
        if query_vector is not None and not dense and self.vectors.count() == 0 and self.catalog.count_embedded():
            result.notices.append("the dense index is empty although chunks were embedded: run `desktop-rag doctor "
                                  "--repair` (or any index run) to rebuild it; meanwhile only keywords match")
        ranked = fuse(dense, bm25, self.fusion) if mode == "hybrid" else (dense or bm25)
        dense_scores, bm25_scores = dict(dense), dict(bm25)

        pool = max(k, self.settings.rerank_candidates) if want_rerank else k
        # Quoted phrases are required verbatim: look through every candidate, not only the first k.
        look_at = ranked if parsed.phrases else ranked[:pool]
        records = self.catalog.chunks_by_id([i for i, _ in look_at])  # ids the catalog dropped are skipped
        meaning = meaning_strengths(dense, self._unrelated_scores(query_vector) if needs_unrelated_scores(dense)
                                    else ())
        hits = []
        for chunk_id, score in look_at:
            record = records.get(chunk_id)
            indexed = index_text(record.context, record.text) if record else ""
            if record is None or not contains_phrases(indexed, parsed.phrases):
                continue
            scores = Scores(dense=dense_scores.get(chunk_id), bm25=bm25_scores.get(chunk_id),
                            fused=score if mode == "hybrid" else None, keywords=keyword_coverage(parsed, indexed),
                            meaning=meaning.get(chunk_id))
            scores.strength = match_strength(scores)
            hits.append(_hit(chunk_id, record, scores))
            if len(hits) == pool:
                break

        if want_rerank:
            result.reranked = self._rerank(query, hits, result.notices)
        result.hits = hits[:k]
        result.weak = bool(result.hits) and not any(h.scores.strength >= GOOD_MATCH for h in result.hits)
        return result

    def _unrelated_scores(self, query_vector) -> list[float]:
        if self._unrelated_vectors is None:  # once per searcher: ten short passages
            self._unrelated_vectors = self.embedder.embed(list(UNRELATED_PASSAGES))
        return [float(score) for score in self._unrelated_vectors @ query_vector]

    @property
    def fusion(self) -> Fusion:
        s = self.settings
        return Fusion(s.fusion, s.fusion_bm25_weight, s.rrf_k)

    def _rerank(self, query: str, hits: list[Hit], notices: list[str]) -> bool:
        if self.reranker is None:
            notices.append(
                "rerank was asked for, but no reranker model is configured: set `rerank_model` to a cross-encoder "
                "folder (desktop-rag settings rerank_model PATH); results are shown without reranking"
            )
            return False
        try:
            scores = self.reranker.score(query, [index_text(h.context, h.text) for h in hits])
        except RerankerUnavailable as exc:
            notices.append(f"rerank skipped: {exc}")
            return False
        for hit, score in zip(hits, scores):
            hit.scores.rerank = score
        hits.sort(key=lambda h: -h.scores.rerank)
        return True


def _hit(chunk_id: int, record, scores: Scores) -> Hit:
    return Hit(chunk_id=chunk_id, path=record.path, title=record.title, page=record.page, chunk_index=record.idx,
               start_char=record.start_char, end_char=record.end_char, heading_path=record.heading_path,
               context=record.context, context_source=record.context_source, quality=record.quality,
               text=record.text, scores=scores, ocr_confidence=record.ocr_confidence, metadata=record.metadata)
