"""Text analysis shared by keyword search, contexts and their quality score: which script a text is in, its
keyword tokens, its key terms."""
