-- A failure whose cause was outside the file (permission denied, a reader that timed out on a loaded machine or
-- did not start) is tried again by the next run even though the file did not change. 0: the file's own failure
-- (tried again only once it changes); n > 0: the number of such failures in a row (retried while n <= 3).
ALTER TABLE documents ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
