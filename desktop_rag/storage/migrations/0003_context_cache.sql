-- Generated contexts are looked up by content (document hash, chunk text hash) with the model and prompt that
-- wrote them, so a copied or re-indexed file with the same content never calls the model again.
CREATE INDEX contexts_by_content ON contexts(document_hash, chunk_text_hash);
