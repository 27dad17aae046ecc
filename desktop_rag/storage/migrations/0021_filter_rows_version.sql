-- What a filtered search reads of the catalog is kept while none of it changes (storage/catalog_filters.py): the
-- map of every chunk to its document, and the chunks a filter allows. They were kept while the catalog did not
-- change at all (PRAGMA data_version): at a million passages the use notes a search leaves, written by the service
-- between two searches, made each filtered search read the million rows again (issue 64). These triggers count
-- the changes a filter sees (a chunk added, removed or moved; a document's path, type, or what its date and
-- sender are made of: generated columns), and nothing else.
CREATE TABLE filter_rows_version (version INTEGER NOT NULL);
INSERT INTO filter_rows_version VALUES (0);
CREATE TRIGGER filter_rows_version_of_a_new_chunk AFTER INSERT ON chunks BEGIN
    UPDATE filter_rows_version SET version = version + 1;
END;
CREATE TRIGGER filter_rows_version_of_a_removed_chunk AFTER DELETE ON chunks BEGIN
    UPDATE filter_rows_version SET version = version + 1;
END;
CREATE TRIGGER filter_rows_version_of_a_moved_chunk AFTER UPDATE OF document_id ON chunks BEGIN
    UPDATE filter_rows_version SET version = version + 1;
END;
CREATE TRIGGER filter_rows_version_of_a_new_document AFTER INSERT ON documents BEGIN
    UPDATE filter_rows_version SET version = version + 1;
END;
CREATE TRIGGER filter_rows_version_of_a_removed_document AFTER DELETE ON documents BEGIN
    UPDATE filter_rows_version SET version = version + 1;
END;
CREATE TRIGGER filter_rows_version_of_a_document_filtered_otherwise AFTER UPDATE OF path, family, metadata,
mtime_ns ON documents BEGIN
    UPDATE filter_rows_version SET version = version + 1;
END;
