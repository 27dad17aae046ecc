"""The GUI-free core: scan, parse, chunk, contextualize, embed, index, search. Never imports Qt."""
