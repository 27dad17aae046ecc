-- Questions a chunk answers, written by the LLM with its context when `llm_questions` asks for them (doc2query):
-- one per line, keyword-indexed after the context and text (documents.keyword_text); edited in the Review tab.
ALTER TABLE contexts ADD COLUMN questions TEXT NOT NULL DEFAULT '';
-- What a hand edit replaced, as generated_text keeps the context: revert brings both back.
ALTER TABLE contexts ADD COLUMN generated_questions TEXT;
