-- What a scan could not look at: a folder that cannot be listed, a file that cannot be stat'ed, a name that is not
-- valid UTF-8 (kept printable, with \xff escapes). Not documents, so not in `documents`; kept so that `stats` and
-- the app list them with the failed files. A scan of a folder replaces what the last scan of it found.
CREATE TABLE scan_problems (
    path        TEXT PRIMARY KEY,
    reason      TEXT NOT NULL,
    seen_at     REAL NOT NULL
);
