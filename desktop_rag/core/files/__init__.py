"""Files into documents and chunks: finding them (scan), reading them in a child process (reading), the parsers
of each format, and cutting their text into chunks with its structure (chunking)."""
