"""The indexing run (run.py `Indexer`), cut along its seams; what it reports is in report.py."""
