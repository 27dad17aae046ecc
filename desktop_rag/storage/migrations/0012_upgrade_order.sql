-- What a person uses, so the background LLM upgrade writes contexts for it first (storage/catalog_upgrade_order.py):
-- when a document was last among a search's hits (and how often), and last opened from a result. Dropped with the
-- document; kept across re-indexing and moves (the row's id stays).
CREATE TABLE document_use (
    document_id  INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    hit_at       REAL,
    hits         INTEGER NOT NULL DEFAULT 0,
    opened_at    REAL
);
-- Folders a person marked "upgrade first" (the folders panel's menu, `desktop-rag upgrade-first`).
CREATE TABLE upgrade_first_folders (
    path      TEXT PRIMARY KEY,
    added_at  REAL NOT NULL
);
