-- A person approved the context as it is (or wrote it). Cleared when automatic work replaces the text.
ALTER TABLE contexts ADD COLUMN reviewed_at REAL;
