-- Hand-edited contexts: the generated context a person replaced is kept, so the edit can be reverted.
ALTER TABLE contexts ADD COLUMN generated_text TEXT;
ALTER TABLE contexts ADD COLUMN generated_source TEXT;
