-- Documents inside files: an archive's members, a mailbox's messages, a message's attachments. Each is a document
-- of its own whose path is the file's path and the names on the way ("a.zip › 2023/receipt.pdf"), with the file's
-- document as its container (the file on disk, however deep the member sits) and the names as a JSON list.
ALTER TABLE documents ADD COLUMN container_id INTEGER REFERENCES documents(id) ON DELETE CASCADE;
ALTER TABLE documents ADD COLUMN member TEXT;
CREATE INDEX documents_by_container ON documents(container_id) WHERE container_id IS NOT NULL;
-- What a file says of itself, as JSON: author, created, modified; for e-mail from, to, cc, date; for an attachment
-- attached_to (its mail's subject) and its mail's from/date. Dates are ISO 8601. For filters, and shown on hits.
ALTER TABLE documents ADD COLUMN metadata TEXT;
