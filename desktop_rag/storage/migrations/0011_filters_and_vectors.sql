-- What search filters on (core/search/filters.py), computed by SQLite from the row itself, so never out of step
-- with it: the document's family (from its parser: the CASE is FAMILIES' twin, tests/test_filters.py compares
-- them) and the date a person remembers it by (a mail's, and its attachments', sent date; else the file's mtime).
ALTER TABLE documents ADD COLUMN family TEXT GENERATED ALWAYS AS (CASE
    WHEN parser IS NULL THEN NULL
    WHEN parser = 'pdf' THEN 'pdf'
    WHEN parser IN ('docx', 'odt', 'rtf') THEN 'word'
    WHEN parser IN ('pptx', 'odp') THEN 'slides'
    WHEN parser IN ('xlsx', 'xls', 'ods') THEN 'spreadsheet'
    WHEN parser IN ('email', 'outlook') THEN 'mail'
    WHEN parser = 'image' THEN 'image'
    WHEN parser = 'code' THEN 'code'
    WHEN parser = 'epub' THEN 'ebook'
    ELSE 'text' END) VIRTUAL;
ALTER TABLE documents ADD COLUMN dated REAL GENERATED ALWAYS AS (
    COALESCE(CAST(strftime('%s', json_extract(metadata, '$.date')) AS REAL), mtime_ns / 1e9)) VIRTUAL;
-- A mail's sender (and its attachments'): indexed, so that a search for part of a name reads the index alone, not
-- every document's row (the metadata sits after the document's whole text in it).
ALTER TABLE documents ADD COLUMN sender TEXT GENERATED ALWAYS AS (json_extract(metadata, '$.from')) VIRTUAL;
CREATE INDEX documents_by_family ON documents(family);
CREATE INDEX documents_by_date ON documents(dated);
CREATE INDEX documents_by_sender ON documents(sender) WHERE sender IS NOT NULL;
-- Each embedded chunk's vectors (one per embedder window, float16, one after another), as written to the dense
-- index: a filtered search scores the few chunks a filter leaves exactly, from here, where Chroma's own `where`
-- measured 7-15x slower than an unfiltered query at 100k chunks. Written with `chunks.embedded = 1`; a chunk
-- embedded before this version gets its row from Chroma on the next run (Indexer.embed_pending), which looks for
-- them while this flag is set, not on every run.
CREATE TABLE chunk_vectors (
    chunk_id  INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    vectors   BLOB NOT NULL
);
INSERT INTO meta(key, value) SELECT 'vectors_to_copy', '1' WHERE EXISTS (SELECT 1 FROM chunks WHERE embedded = 1);
-- Kept only while the chunk is in the dense index: a filtered search then reads the vectors without the chunk
-- rows (and their text). Whatever takes a chunk out (a new context, a model change, the doctor) drops them here.
CREATE TRIGGER chunk_vectors_leave_with_embedding AFTER UPDATE OF embedded ON chunks
    WHEN OLD.embedded = 1 AND NEW.embedded = 0
BEGIN
    DELETE FROM chunk_vectors WHERE chunk_id = NEW.id;
END;
