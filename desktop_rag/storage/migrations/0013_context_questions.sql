-- Questions a chunk answers, written by the LLM with its context when `llm_questions` asks for them (doc2query):
-- one per line, keyword-indexed after the context and text (documents.keyword_text); edited in the Review tab.
ALTER TABLE contexts ADD COLUMN questions TEXT NOT NULL DEFAULT '';
