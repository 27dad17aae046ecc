-- Documents inside files: an archive's members, a mailbox's messages, a message's attachments. Each is a document
-- of its own whose path is the file's path and the names on the way ("a.zip › 2023/receipt.pdf"), with the file's
-- document as its container (the file on disk, however deep the member sits) and the names as a JSON list.
ALTER TABLE documents ADD COLUMN container_id INTEGER REFERENCES documents(id) ON DELETE CASCADE;
ALTER TABLE documents ADD COLUMN member TEXT;
CREATE INDEX documents_by_container ON documents(container_id) WHERE container_id IS NOT NULL;
-- What a file says of itself, as JSON: author, created, modified; for e-mail from, to, cc, date; for an attachment
-- attached_to (its mail's subject) and its mail's from/date. Dates are ISO 8601. For filters, and shown on hits.
ALTER TABLE documents ADD COLUMN metadata TEXT;
-- E-mail indexed before this version was read as plain text (headers and base64 as words). Such documents are
-- read again: no content hash and a stat no file has, so neither "unchanged" nor "same content, touched" holds.
UPDATE documents SET content_hash = NULL, mtime_ns = -1
 WHERE status = 'indexed' AND (lower(path) LIKE '%.eml' OR lower(path) LIKE '%.mbox' OR lower(path) LIKE '%.mbx'
                               OR (parser = 'text' AND substr(text, 1, 5) = 'From '));
