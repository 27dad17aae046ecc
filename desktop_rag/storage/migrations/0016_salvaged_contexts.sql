-- Contexts read out of a damaged catalog when `doctor --repair` rebuilt it from the folders (issue 50): a person's
-- edits and the model's work, given back to each passage with the same text as its file is read again, then
-- dropped. Keyed by the document's path (a member's path for a document inside a file).
CREATE TABLE salvaged_contexts (
    path            TEXT NOT NULL,
    chunk_text_hash TEXT NOT NULL,
    text            TEXT NOT NULL,
    source          TEXT NOT NULL CHECK (source IN ('llm', 'manual')),
    model           TEXT,
    prompt_version  TEXT,
    quality         REAL,
    quality_detail  TEXT,
    questions       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (path, chunk_text_hash)
);
