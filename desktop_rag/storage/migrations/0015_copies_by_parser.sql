-- Files stored as copies of another (core/indexing/copies.py) are looked over at the end of every run, to read
-- those whose original went: a partial index holds just them, not a scan of every document.
CREATE INDEX documents_copies ON documents(parser) WHERE parser = 'copy';
