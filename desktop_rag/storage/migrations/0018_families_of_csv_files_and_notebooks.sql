-- Comma- and tab-separated files (.csv, .tsv) are read as sheets from this version on (parser "csv": core/files/
-- parsers/delimited.py) and are in the Spreadsheets family, Jupyter notebooks (parser "notebook": notebook.py) in
-- Code; both were read as text before. The column is made again with them, as 0017 did (computed: no row is
-- rewritten).
-- The CASE is FAMILIES' twin (core/search/filters.py): tests/unit/core/search/test_filter_words.py compares them.
DROP INDEX documents_by_family;
ALTER TABLE documents DROP COLUMN family;
ALTER TABLE documents ADD COLUMN family TEXT GENERATED ALWAYS AS (CASE
    WHEN parser IS NULL THEN NULL
    WHEN parser = 'pdf' THEN 'pdf'
    WHEN parser IN ('docx', 'doc', 'word-xml', 'odt', 'rtf') THEN 'word'
    WHEN parser IN ('pptx', 'ppt', 'odp') THEN 'slides'
    WHEN parser IN ('xlsx', 'xls', 'xlsb', 'excel-xml', 'ods', 'csv') THEN 'spreadsheet'
    WHEN parser IN ('email', 'outlook') THEN 'mail'
    WHEN parser = 'image' THEN 'image'
    WHEN parser IN ('code', 'notebook') THEN 'code'
    WHEN parser = 'epub' THEN 'ebook'
    ELSE 'text' END) VIRTUAL;
CREATE INDEX documents_by_family ON documents(family);
