-- Catalog schema, version 1. The catalog is the source of truth; Chroma and BM25 are derived from it.

CREATE TABLE folders (
    path        TEXT PRIMARY KEY,
    added_at    REAL NOT NULL
);

CREATE TABLE documents (
    id            INTEGER PRIMARY KEY,
    path          TEXT NOT NULL UNIQUE,
    size          INTEGER NOT NULL,
    mtime_ns      INTEGER NOT NULL,
    content_hash  TEXT,                -- NULL when the file could not be read
    status        TEXT NOT NULL CHECK (status IN ('indexed', 'failed')),
    error         TEXT,
    parser        TEXT,
    title         TEXT,
    text          TEXT,                -- extracted text; chunk offsets refer to it
    page_count    INTEGER,
    updated_at    REAL NOT NULL
);

CREATE TABLE chunks (
    id            INTEGER PRIMARY KEY,
    document_id   INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    idx           INTEGER NOT NULL,
    text          TEXT NOT NULL,
    text_hash     TEXT NOT NULL,
    start_char    INTEGER NOT NULL,
    end_char      INTEGER NOT NULL,
    page          INTEGER,             -- 1-based; NULL for formats without pages
    heading_path  TEXT NOT NULL DEFAULT '[]',  -- JSON list of headings, outermost first
    token_count   INTEGER NOT NULL,
    embedded      INTEGER NOT NULL DEFAULT 0,  -- 1 once its vector is in the dense index
    UNIQUE (document_id, idx)
);
CREATE INDEX chunks_pending_embed ON chunks(embedded) WHERE embedded = 0;

CREATE TABLE contexts (
    chunk_id          INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    text              TEXT NOT NULL,
    source            TEXT NOT NULL CHECK (source IN ('none', 'rules', 'llm', 'manual')),
    model             TEXT,
    prompt_version    TEXT,
    quality           REAL,
    quality_detail    TEXT,            -- JSON breakdown of the score
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    seconds           REAL NOT NULL DEFAULT 0,
    chunk_text_hash   TEXT NOT NULL,
    document_hash     TEXT NOT NULL,
    created_at        REAL NOT NULL,
    updated_at        REAL NOT NULL
);

CREATE TABLE meta (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);

-- Chunk ids removed from the catalog whose vectors may still be in the dense index. Written in the same
-- transaction as the removal, cleared once Chroma has dropped them: a kill in between leaves no orphan.
CREATE TABLE dense_deletions (
    chunk_id  INTEGER PRIMARY KEY
);
