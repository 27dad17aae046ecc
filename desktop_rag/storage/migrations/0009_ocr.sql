-- Text recognised on scanned pages and images, kept by the file's content: the same scan is never read by OCR
-- twice (a copy, a file touched, a run killed halfway through a long scan: its finished pages are kept).
-- `recipe`: the engine's version, languages and resolution; a different recipe reads the page again.
CREATE TABLE ocr_pages (
    content_hash  TEXT NOT NULL,
    page          INTEGER NOT NULL,   -- 1-based
    recipe        TEXT NOT NULL,
    text          TEXT NOT NULL,
    confidence    REAL,               -- the words' mean confidence, 0-1; NULL when no word was found
    seconds       REAL NOT NULL,
    created_at    REAL NOT NULL,
    PRIMARY KEY (content_hash, page, recipe)
);

-- Per document: which pages' text came from OCR, as JSON {"page": confidence}; and how many scanned pages were not
-- read (OCR turned off, skipped for its folder, or unavailable), so turning OCR on reads those files again.
ALTER TABLE documents ADD COLUMN ocr_pages TEXT;
ALTER TABLE documents ADD COLUMN unread_scans INTEGER NOT NULL DEFAULT 0;
