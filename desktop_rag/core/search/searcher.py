"""Hybrid search: dense top-N and BM25 top-N, fused by reciprocal rank, optionally reranked by a cross-encoder;
narrowed by filters inside both retrievers (core/search/filters.py); and "more like this" from a chunk's vector."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any
from dataclasses import asdict, dataclass, field, fields

from desktop_rag.core.search.filtered_dense import nearest_allowed
from desktop_rag.core.search.meaning_wait import OPENING, meaning_in_time
from desktop_rag.core.search.filters import SearchFilters, make_filters
from desktop_rag.core.search.fusion import Fusion, fuse
from desktop_rag.core.search.identifiers import identifiers_in, lift_exact_identifiers
from desktop_rag.core.search.copies import with_copies
from desktop_rag.core.search.match_strength import (UNRELATED_PASSAGES, keyword_coverage, match_strength,
                                             likeness_strengths, meaning_strengths, needs_unrelated_scores)
from desktop_rag.core.search.highlight import QueryMatch
from desktop_rag.core.search.tuning import GOOD_MATCH
from desktop_rag.core.search.query import contains_phrases, parse_query
from desktop_rag.core.search.modes import MODES, SORTS
from desktop_rag.core.dense.rerank import RerankerUnavailable
from desktop_rag.core.text.lexical import lexical_tokens, lone_characters, prefix_stem
from desktop_rag.documents import index_text, keyword_text
from desktop_rag.errors import BadInput, NoIndexError
from desktop_rag import remedies


@dataclass
class Scores:
    dense: float | None = None
    bm25: float | None = None
    fused: float | None = None
    rerank: float | None = None
    keywords: float = 0.0  # share of the query's words the chunk holds (core/search/match_strength.py)
    meaning: float | None = None  # how far the chunk's similarity stands out from the candidates'
    strength: float = 0.0  # what a person is shown: 0 (no match) … 1 (every word, and close in meaning)

    @property
    def ranked(self) -> bool:
        """False for a hit listed, not searched for (filters alone list documents by date): no strength to show."""
        return any(score is not None for score in (self.dense, self.bm25, self.fused, self.rerank))


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
    family: str | None = None  # core/search/filters.py FAMILIES
    dated: float | None = None  # epoch seconds: a mail's sent date, else the file's modification time
    questions: str = ""  # the questions the chunk answers, one per line (llm_questions, or a person's)
    # Found by its name alone (documents.NAME_ONLY): "" when the file has no text, else why it could not be read.
    unread: str | None = None
    # Where the query's words are in "text", "context" and "questions": (start, end) spans, found as the search
    # ran (highlight.QueryMatch), for the window to mark and agents to quote.
    matches: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    # Other files with the same content, stored as its copies (core/indexing/copies.py): "also at" on the hit, as a
    # search for their words finds the original alone (issue 51).
    copies: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """For JSON (the endpoint, the CLI): shallow, its lists and dicts shared with the hit (asdict copied every
        one of them deeply: ~2 ms of a 20-hit search)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["scores"] = asdict(self.scores)
        return values

    @classmethod
    def from_dict(cls, values: dict) -> Hit:
        """A hit as to_dict gave it (through the local endpoint)."""
        matches = {name: [(start, end) for start, end in spans] for name, spans in values.get("matches", {}).items()}
        return cls(**{**values, "scores": Scores(**values["scores"]), "matches": matches})


@dataclass
class SearchResult:
    query: str
    mode: str
    hits: list[Hit]
    reranked: bool = False
    notices: list[str] = field(default_factory=list)
    weak: bool = False  # hits, but none a good match: shown as "no good match", with the weak ones apart
    filters: SearchFilters = field(default_factory=SearchFilters)  # as applied: the given ones and the query's own
    facets: dict[str, int] | None = None  # documents per family among the candidates, type filters left out
    nothing_left: bool = False  # the filters leave no document at all (then notices say which filters)
    meaning_covers: tuple[int, int] | None = None  # (embedded, all) chunks while embedding is under way
    meaning_pending: bool = False  # matched by words alone, the meaning index still opening: ask again soon
    # The query's words as parsed once by the search: what marks a preview or a context written meanwhile
    # (None: no words to mark, as in "more like this"); carried through the endpoint, never parsed again.
    match: QueryMatch | None = field(default=None, compare=False, repr=False)
    # The query's own filter words (`type:pdf`) as the search parsed them: the window's chips for them.
    filter_words: list[tuple[str, str]] = field(default_factory=list)
    served_by: str | None = None  # the process that answered, for a result that came through the endpoint

    @classmethod
    def from_dict(cls, values: Mapping[str, Any]) -> SearchResult:
        """A result as the local endpoint sends it (service/tools.py search)."""
        return cls(query=values["query"], mode=values["mode"], hits=[Hit.from_dict(h) for h in values["results"]],
                   reranked=values["reranked"], notices=values["notices"], weak=values["weak"],
                   filters=SearchFilters.from_dict(values.get("filters")), facets=values.get("facets"),
                   nothing_left=values.get("nothing_left", False), served_by=values.get("served_by"),
                   meaning_pending=values.get("meaning_pending", False),
                   match=QueryMatch.from_dict(values["match"]) if values.get("match") else None,
                   filter_words=[(key, value) for key, value in values.get("filter_words", [])])


class Searcher:
    def __init__(self, catalog, vectors, keywords, embedder, settings, reranker: Any = None):  # Reranker or in a child
        self.catalog, self.vectors, self.keywords, self.embedder = catalog, vectors, keywords, embedder
        self.settings, self.reranker = settings, reranker
        self._unrelated_vectors = None  # embedded UNRELATED_PASSAGES (core/search/match_strength.py), on first need

    def search(self, query: str, k: int = 10, mode: str = "hybrid", rerank: bool | None = None,
               filters: SearchFilters | None = None, sort: str = "relevance", facets: bool = False,
               words_first: bool = False) -> SearchResult:
        """`filters` and the query's own filter words (`type:pdf`) both apply; `sort` orders the hits found by
        relevance, or by date; `facets` counts the candidates' documents per type (SearchResult.facets);
        `words_first`: by words alone while the meaning parts open (core/search/meaning_wait.py)."""
        if mode not in MODES:
            raise BadInput(f"unknown search mode {mode!r}; pick one of {', '.join(MODES)}")
        if sort not in SORTS:
            raise BadInput(f"unknown sort {sort!r}; pick one of {', '.join(SORTS)}")
        if k < 1:
            raise BadInput(f"the number of results must be 1 or more, not {k}")
        started = time.monotonic()
        chunk_count = self.catalog.chunk_count()
        if chunk_count == 0:
            raise NoIndexError(f"nothing is indexed yet: {remedies.INDEX_FIRST}")
        # Bytes that are not UTF-8 (a terminal in another encoding) reach Python as lone surrogates, which the
        # embedder's tokenizer refuses: they become U+FFFD, and the rest of the query still counts.
        query = query.encode("utf-8", "surrogatepass").decode("utf-8", "replace").strip()
        parsed = parse_query(query)
        typed = make_filters(**_filter_arguments(parsed.filters))
        result = SearchResult(query=query, mode=mode, hits=[], filters=(filters or SearchFilters()).merged(typed),
                              filter_words=parsed.filters)
        if not parsed.text and result.filters.empty:
            return result
        allowed = None if result.filters.empty else self.catalog.filters.filtered_chunk_ids(result.filters)
        if allowed is not None and not len(allowed):
            result.nothing_left = True
            result.notices.append("no indexed document is " + ", ".join(result.filters.describe()))
            return result
        if not parsed.text:  # filters alone: their documents, newest first
            records = self.catalog.chunks_by_id(self.catalog.filters.newest_chunks(result.filters, k))
            listed = _by_date([_hit(i, r, Scores()) for i, r in records.items()], sort != "oldest")
            result.hits = with_copies(self.catalog.files, listed)
            return result
        want_rerank = self.settings.rerank if rerank is None else rerank
        n = max(self.settings.candidates, k)

        pending = words_first and mode == "hybrid" and not meaning_in_time(started, self.embedder, self.vectors)
        result.meaning_pending, result.notices = pending, result.notices + [OPENING] * pending
        by_meaning = mode == "dense" or (mode == "hybrid" and not pending)
        query_vector = self.embedder.embed_query(parsed.text) if by_meaning else None
        if query_vector is not None:
            self._say_meaning_coverage(result, chunk_count)
        dense, bm25 = self._retrieve(parsed, query_vector, mode, n, result.filters, allowed, chunk_count)
        if (query_vector is not None and not dense and self.vectors.count() == 0
                and self.catalog.run_work.count_embedded()):
            result.notices.append(f"the meaning index is empty although passages were made searchable by meaning: "
                                  f"{remedies.REPAIR_INDEXES} to rebuild it; meanwhile only keywords match")
        if mode != "dense" and not self.keywords.exists:  # lost, or being rebuilt: never a silent "No results"
            result.notices.append(f"the keyword index is missing: the background service rebuilds it (or "
                                  f"{remedies.REPAIR_INDEXES}); meanwhile only meaning matches")
        ranked = self._fused(parsed, dense, bm25) if mode == "hybrid" else (dense or bm25)
        if facets:
            result.facets = self._facets(parsed, query_vector, mode, n, result.filters, ranked, chunk_count)

        pool = max(k, self.settings.rerank_candidates) if want_rerank else k
        hits = self._hits(parsed, ranked, dense, bm25, query_vector, mode, pool)
        if want_rerank:
            result.reranked = self._rerank(query, hits, result.notices)
        ranked_hits = hits[:k] if sort == "relevance" else _by_date(hits[:k], sort == "newest")
        result.hits = with_copies(self.catalog.files, ranked_hits)
        result.match = QueryMatch.of(parsed)
        for hit in result.hits:
            hit.matches = result.match.matches_in(text=hit.text, context=hit.context, questions=hit.questions)
        result.weak = bool(result.hits) and not any(h.scores.strength >= GOOD_MATCH for h in result.hits)
        if not result.hits and allowed is not None:
            result.notices.append(f"nothing matches among the {len(allowed):,} passages the filters leave ("
                                  + ", ".join(result.filters.describe()) + ")")
        return result

    def _say_meaning_coverage(self, result: SearchResult, chunk_count: int) -> None:
        """During a first indexing the keyword index covers every file long before the embedding ends (core/
        indexing/): the person is told how much meaning search covers so far. A few chunks waiting (an edit, an
        upgraded document) are not worth a word."""
        # (the two counts are read apart while a run adds passages: "covers -4 of 1 passages" once, issue 60, 2)
        embedded = min(max(chunk_count - self.catalog.count_pending_embeddings(), 0), chunk_count)
        if embedded < 0.99 * chunk_count:
            result.meaning_covers = (embedded, chunk_count)
            result.notices.append(f"meaning search covers {embedded:,} of {chunk_count:,} passages so far (the rest "
                                  "are being made searchable by meaning); keyword search covers them all")

    def similar(self, chunk_id: int, k: int = 10, filters: SearchFilters | None = None) -> SearchResult:
        """The chunks nearest in meaning to a stored chunk, its own vector as the query ("more like this")."""
        stored = self.catalog.filters.chunk_vectors([chunk_id], self.embedder.dimension).get(chunk_id)
        if stored is None:
            stored = self.vectors.windows([chunk_id]).get(chunk_id)
        records = self.catalog.chunks_by_id([chunk_id])
        if chunk_id not in records:
            raise BadInput(f"there is no passage {chunk_id} (ids come from search results)")
        if stored is None:
            raise BadInput("that passage is not embedded yet: it can be searched for by meaning once indexing "
                           "has embedded it")
        source = records[chunk_id]
        filters = filters or SearchFilters()
        result = SearchResult(query=f"similar to: {source.title or source.path}", mode="dense", hits=[],
                              filters=filters)
        allowed = None if filters.empty else self.catalog.filters.filtered_chunk_ids(filters)
        vector = stored[0]  # its first window: its context and the start of its text
        n = max(self.settings.candidates, k + 1)
        dense = self._nearest(vector, n, filters, allowed, self.catalog.chunk_count())
        dense = [(i, score) for i, score in dense if i != chunk_id]
        meaning = likeness_strengths(dense, self._unrelated_scores(vector))
        records = self.catalog.chunks_by_id([i for i, _ in dense[:k]])
        for chunk, score in dense[:k]:
            if chunk in records:
                scores = Scores(dense=score, meaning=meaning.get(chunk))
                scores.strength = match_strength(scores)
                result.hits.append(_hit(chunk, records[chunk], scores))
        return result

    def _nearest(self, vector, n: int, filters: SearchFilters, allowed, total: int) -> list[tuple[int, float]]:
        if allowed is None:
            return self.vectors.query(vector, n)
        return nearest_allowed(vector, n, filters, allowed, self.catalog, self.vectors, total)

    def _retrieve(self, parsed, query_vector, mode: str, n: int, filters: SearchFilters, allowed, total: int):
        dense = [] if query_vector is None else self._nearest(query_vector, n, filters, allowed, total)
        bm25 = keyword_candidates(self.keywords, parsed, n, allowed) if mode in ("hybrid", "bm25") else []
        return dense, bm25

    def _fused(self, parsed, dense, bm25) -> list[tuple[int, float]]:
        """The two lists fused, then passages holding the query's identifiers verbatim lifted (identifiers.py)."""
        ranked = fuse(dense, bm25, self.fusion)
        identifiers = identifiers_in(parsed.keywords_text)
        if not identifiers:
            return ranked
        scale = 1.0 if self.fusion.method == "convex" else 1.0 / (self.fusion.k + 1)  # RRF's best single rank
        return lift_exact_identifiers(ranked, identifiers, self._index_texts, scale)

    def _index_texts(self, chunk_ids: list[int]) -> dict[int, str]:
        return {i: index_text(r.context, r.text) for i, r in self.catalog.chunks_by_id(chunk_ids).items()}

    def _facets(self, parsed, query_vector, mode, n, filters: SearchFilters, ranked, total: int) -> dict[str, int]:
        if filters.types:  # the chips show what each type would give: its own filter left out
            wider = filters.without_types()
            allowed = None if wider.empty else self.catalog.filters.filtered_chunk_ids(wider)
            dense, bm25 = self._retrieve(parsed, query_vector, mode, n, wider, allowed, total)
            ranked = fuse(dense, bm25, self.fusion) if mode == "hybrid" else (dense or bm25)
        return self.catalog.filters.family_counts([i for i, _ in ranked])

    def _hits(self, parsed, ranked, dense, bm25, query_vector, mode: str, pool: int) -> list[Hit]:
        dense_scores, bm25_scores = dict(dense), dict(bm25)
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
            keywords = keyword_coverage(parsed, keyword_text(record.context, record.text, record.questions))
            scores = Scores(dense=dense_scores.get(chunk_id), bm25=bm25_scores.get(chunk_id),
                            fused=score if mode == "hybrid" else None, keywords=keywords,
                            meaning=meaning.get(chunk_id))
            scores.strength = match_strength(scores)
            hits.append(_hit(chunk_id, record, scores))
            if len(hits) == pool:
                break
        return hits

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
                f"rerank was asked for, but no reranker model is configured: {remedies.SET_RERANK_MODEL}; results are "
                "shown without reranking"
            )
            return False
        try:
            scores = self.reranker.score(query, [index_text(h.context, h.text) for h in hits])
        except RerankerUnavailable as exc:
            notices.append(f"rerank skipped: {exc}")
            return False
        for hit, score in zip(hits, scores):
            hit.scores.rerank = score
        hits.sort(key=lambda h: -(h.scores.rerank or 0.0))  # each was given its score just above
        return True


def _hit(chunk_id: int, record, scores: Scores) -> Hit:
    return Hit(chunk_id=chunk_id, path=record.path, title=record.title, page=record.page, chunk_index=record.idx,
               start_char=record.start_char, end_char=record.end_char, heading_path=record.heading_path,
               context=record.context, context_source=record.context_source, quality=record.quality,
               text=record.text, scores=scores, ocr_confidence=record.ocr_confidence, metadata=record.metadata,
               family=record.family, dated=record.dated, questions=record.questions, unread=record.unread)


def _by_date(hits: list[Hit], newest_first: bool) -> list[Hit]:
    return sorted(hits, key=lambda h: h.dated or 0.0, reverse=newest_first)


def _filter_arguments(words: list[tuple[str, str]]) -> dict:
    """make_filters' arguments from the query's filter words (`in:` and `type:` may come more than once)."""
    arguments: dict = {"folders": [], "types": []}
    for key, value in words:
        if key == "in":
            arguments["folders"].append(value)
        elif key == "type":
            arguments["types"] += value.split(",")
        else:
            arguments[{"from": "sender"}.get(key, key)] = value
    return arguments


def keyword_candidates(keywords, parsed, n: int, allowed=None) -> list[tuple[int, float]]:
    """The keyword index's best n for a parsed query: its words, its `word*` prefixes and its lone kanji."""
    return keywords.search(parsed.keywords_text, n, [prefix_stem(p) for p in parsed.prefixes], allowed,
                           parts=lone_characters(lexical_tokens(parsed.keywords_text)))
