-- A new file with the content of a document whose file vanished is that document, moved: found by content hash.
CREATE INDEX documents_by_content ON documents(content_hash);
