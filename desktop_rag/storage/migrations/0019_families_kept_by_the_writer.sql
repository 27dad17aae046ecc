-- A document's family (the `type:` filter) is no longer a CASE written here beside the table of formats it had to
-- agree with (issue 62: adding CSV took a migration). `parser_families` holds the table's word (parser name ->
-- family; the row of parser '' is the family of any other parser), kept by the writer before its first write
-- (CatalogFilters.follow_families, from core/files/parsers/formats.py); a trigger gives each document its parser's
-- family as it is written, and a change of the table is applied to the documents stored. The families stored so far
-- are kept as the generated column computed them.
CREATE TABLE parser_families(parser TEXT PRIMARY KEY, family TEXT NOT NULL);
ALTER TABLE documents ADD COLUMN family_kept TEXT;
UPDATE documents SET family_kept = family;
DROP INDEX documents_by_family;
ALTER TABLE documents DROP COLUMN family;
ALTER TABLE documents RENAME COLUMN family_kept TO family;
CREATE INDEX documents_by_family ON documents(family);
CREATE TRIGGER family_of_a_new_document AFTER INSERT ON documents WHEN NEW.parser IS NOT NULL BEGIN
    UPDATE documents SET family = COALESCE((SELECT family FROM parser_families WHERE parser = NEW.parser),
                                           (SELECT family FROM parser_families WHERE parser = ''))
    WHERE id = NEW.id;
END;
CREATE TRIGGER family_of_a_document_read_again AFTER UPDATE OF parser ON documents BEGIN
    UPDATE documents SET family = CASE WHEN NEW.parser IS NULL THEN NULL ELSE COALESCE(
        (SELECT family FROM parser_families WHERE parser = NEW.parser),
        (SELECT family FROM parser_families WHERE parser = '')) END
    WHERE id = NEW.id;
END;
