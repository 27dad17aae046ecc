"""Search: the query's syntax, the keyword and meaning lists fused, an optional cross-encoder, the match strength a
person is shown, and the highlighting of what matched."""
