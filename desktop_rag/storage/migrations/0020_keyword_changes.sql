-- The keyword index in segments (issue 64): a large one made at the last merge, and one of what changed since.
-- Every chunk whose keyword text (its text, its context's text and questions) is written, changed or removed is
-- noted here by triggers, so no path that writes the catalog can forget it; `seq` orders the notes, so that a merge
-- forgets only those its segments hold (a note written again gets a new one). The index holds the changes up to
-- the meta key keyword_changes_indexed.
CREATE TABLE keyword_changes (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    chunk_id INTEGER NOT NULL UNIQUE
);
CREATE TRIGGER keyword_change_of_a_new_chunk AFTER INSERT ON chunks BEGIN
    INSERT OR REPLACE INTO keyword_changes(chunk_id) VALUES (NEW.id);
END;
CREATE TRIGGER keyword_change_of_a_chunk_text AFTER UPDATE OF text ON chunks BEGIN
    INSERT OR REPLACE INTO keyword_changes(chunk_id) VALUES (NEW.id);
END;
CREATE TRIGGER keyword_change_of_a_removed_chunk AFTER DELETE ON chunks BEGIN
    INSERT OR REPLACE INTO keyword_changes(chunk_id) VALUES (OLD.id);
END;
CREATE TRIGGER keyword_change_of_a_new_context AFTER INSERT ON contexts BEGIN
    INSERT OR REPLACE INTO keyword_changes(chunk_id) VALUES (NEW.chunk_id);
END;
CREATE TRIGGER keyword_change_of_a_context AFTER UPDATE OF text, questions ON contexts
WHEN NEW.text IS NOT OLD.text OR NEW.questions IS NOT OLD.questions BEGIN
    INSERT OR REPLACE INTO keyword_changes(chunk_id) VALUES (NEW.chunk_id);
END;
CREATE TRIGGER keyword_change_of_a_removed_context AFTER DELETE ON contexts BEGIN
    INSERT OR REPLACE INTO keyword_changes(chunk_id) VALUES (OLD.chunk_id);
END;
