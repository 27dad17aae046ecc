"""The dense side: the embedding model (in a child process in the app), its word pieces, and the windows a chunk
is embedded in."""
