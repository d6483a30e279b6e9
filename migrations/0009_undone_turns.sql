-- `/undo`: a turn taken out of the context. Its rows stay stored and searchable, marked
-- `undone`; they no longer go to the model and no longer count in `context_tokens`.

ALTER TABLE turns ADD COLUMN undone_at TEXT NULL;
ALTER TABLE messages ADD COLUMN undone INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tool_calls ADD COLUMN undone INTEGER NOT NULL DEFAULT 0;
ALTER TABLE think_blocks ADD COLUMN undone INTEGER NOT NULL DEFAULT 0;

-- The running total counts only rows in the context: every trigger that adds or takes
-- away a row's tokens now skips undone rows.
DROP TRIGGER context_tokens_message_delete;
CREATE TRIGGER context_tokens_message_delete AFTER DELETE ON messages
WHEN old.replaced_by IS NULL AND old.undone = 0
BEGIN
    UPDATE conversations SET context_tokens = context_tokens - old.token_count
    WHERE id = old.conversation_id AND old.seq > COALESCE(compressed_through_seq, 0);
END;

DROP TRIGGER context_tokens_message_replaced;
CREATE TRIGGER context_tokens_message_replaced AFTER UPDATE OF replaced_by ON messages
WHEN old.replaced_by IS NULL AND new.replaced_by IS NOT NULL AND old.undone = 0
BEGIN
    UPDATE conversations SET context_tokens = context_tokens - old.token_count
    WHERE id = old.conversation_id AND old.seq > COALESCE(compressed_through_seq, 0);
END;

DROP TRIGGER context_tokens_message_recount;
CREATE TRIGGER context_tokens_message_recount AFTER UPDATE OF token_count ON messages
WHEN new.replaced_by IS NULL AND old.replaced_by IS NULL AND new.undone = 0 AND old.undone = 0
BEGIN
    UPDATE conversations SET context_tokens = context_tokens + new.token_count - old.token_count
    WHERE id = new.conversation_id AND new.seq > COALESCE(compressed_through_seq, 0);
END;

DROP TRIGGER context_tokens_tool_update;
CREATE TRIGGER context_tokens_tool_update AFTER UPDATE OF token_count ON tool_calls
WHEN new.undone = 0 AND old.undone = 0
BEGIN
    UPDATE conversations SET context_tokens = context_tokens + new.token_count - old.token_count
    WHERE id = new.conversation_id AND new.seq > COALESCE(compressed_through_seq, 0);
END;

DROP TRIGGER context_tokens_tool_delete;
CREATE TRIGGER context_tokens_tool_delete AFTER DELETE ON tool_calls
WHEN old.undone = 0
BEGIN
    UPDATE conversations SET context_tokens = context_tokens - old.token_count
    WHERE id = old.conversation_id AND old.seq > COALESCE(compressed_through_seq, 0);
END;

DROP TRIGGER context_tokens_boundary_moved;
CREATE TRIGGER context_tokens_boundary_moved AFTER UPDATE OF compressed_through_seq ON conversations
BEGIN
    UPDATE conversations SET context_tokens =
          (SELECT COALESCE(SUM(m.token_count), 0) FROM messages m
            WHERE m.conversation_id = new.id
              AND m.seq > COALESCE(new.compressed_through_seq, 0)
              AND m.replaced_by IS NULL AND m.undone = 0)
        + (SELECT COALESCE(SUM(t.token_count), 0) FROM tool_calls t
            WHERE t.conversation_id = new.id
              AND t.seq > COALESCE(new.compressed_through_seq, 0)
              AND t.undone = 0)
    WHERE id = new.id;
END;

-- Undoing (and restoring, when an undone turn is answered again) moves a row's tokens
-- out of (into) the total.
CREATE TRIGGER context_tokens_message_undone AFTER UPDATE OF undone ON messages
WHEN new.replaced_by IS NULL AND old.undone <> new.undone
BEGIN
    UPDATE conversations
    SET context_tokens = context_tokens
        + CASE WHEN new.undone = 0 THEN new.token_count ELSE -old.token_count END
    WHERE id = new.conversation_id AND new.seq > COALESCE(compressed_through_seq, 0);
END;

CREATE TRIGGER context_tokens_tool_undone AFTER UPDATE OF undone ON tool_calls
WHEN old.undone <> new.undone
BEGIN
    UPDATE conversations
    SET context_tokens = context_tokens
        + CASE WHEN new.undone = 0 THEN new.token_count ELSE -old.token_count END
    WHERE id = new.conversation_id AND new.seq > COALESCE(compressed_through_seq, 0);
END;
