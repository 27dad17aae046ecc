-- Mailboxes read as streams (core/files/mailbox_stream.py). A message's place in its mailbox: where its "From "
-- line begins and where it ends, so that opening a hit reads those bytes alone (its attachments carry their
-- message's place).
ALTER TABLE documents ADD COLUMN member_start INTEGER;
ALTER TABLE documents ADD COLUMN member_end INTEGER;
-- A mailbox's row: how far it was read (the start of its last message, read again next time since a client may
-- still have been writing it), and the check (mailbox_stream.check_of) that says it was only appended to since.
ALTER TABLE documents ADD COLUMN read_to INTEGER;
ALTER TABLE documents ADD COLUMN read_check TEXT;
-- Mailboxes indexed before this version were read whole (and skipped over max_file_mb): read again as streams,
-- skipping the messages already stored with this content.
UPDATE documents SET content_hash = NULL, mtime_ns = -1 WHERE parser = 'mbox' AND container_id IS NULL;
