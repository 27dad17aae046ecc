-- Files seen in a watched folder that are not indexed: not text, or a format nothing reads (an image, an
-- archive). Counted in stats; remembered by size and mtime, so an unchanged one is not opened again.
CREATE TABLE skipped_files (
    path        TEXT PRIMARY KEY,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    reason      TEXT NOT NULL,
    updated_at  REAL NOT NULL
);
