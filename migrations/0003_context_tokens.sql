-- A running total of the tokens that go to the model after the compression boundary,
-- so the per-turn context estimate is O(1) instead of a SUM over the history.
-- Kept in step by triggers; recomputed whenever the boundary moves.

ALTER TABLE conversations ADD COLUMN context_tokens INTEGER NOT NULL DEFAULT 0;

UPDATE conversations SET context_tokens =
      (SELECT COALESCE(SUM(m.token_count), 0) FROM messages m
        WHERE m.conversation_id = conversations.id
          AND m.seq > COALESCE(conversations.compressed_through_seq, 0)
          AND m.replaced_by IS NULL)
    + (SELECT COALESCE(SUM(t.token_count), 0) FROM tool_calls t
        WHERE t.conversation_id = conversations.id
          AND t.seq > COALESCE(conversations.compressed_through_seq, 0));

CREATE TRIGGER context_tokens_message_insert AFTER INSERT ON messages
WHEN new.replaced_by IS NULL
BEGIN
    UPDATE conversations SET context_tokens = context_tokens + new.token_count
    WHERE id = new.conversation_id AND new.seq > COALESCE(compressed_through_seq, 0);
END;

CREATE TRIGGER context_tokens_message_delete AFTER DELETE ON messages
WHEN old.replaced_by IS NULL
BEGIN
    UPDATE conversations SET context_tokens = context_tokens - old.token_count
    WHERE id = old.conversation_id AND old.seq > COALESCE(compressed_through_seq, 0);
END;

CREATE TRIGGER context_tokens_message_replaced AFTER UPDATE OF replaced_by ON messages
WHEN old.replaced_by IS NULL AND new.replaced_by IS NOT NULL
BEGIN
    UPDATE conversations SET context_tokens = context_tokens - old.token_count
    WHERE id = old.conversation_id AND old.seq > COALESCE(compressed_through_seq, 0);
END;

CREATE TRIGGER context_tokens_tool_insert AFTER INSERT ON tool_calls
BEGIN
    UPDATE conversations SET context_tokens = context_tokens + new.token_count
    WHERE id = new.conversation_id AND new.seq > COALESCE(compressed_through_seq, 0);
END;

CREATE TRIGGER context_tokens_tool_update AFTER UPDATE OF token_count ON tool_calls
BEGIN
    UPDATE conversations SET context_tokens = context_tokens + new.token_count - old.token_count
    WHERE id = new.conversation_id AND new.seq > COALESCE(compressed_through_seq, 0);
END;

CREATE TRIGGER context_tokens_tool_delete AFTER DELETE ON tool_calls
BEGIN
    UPDATE conversations SET context_tokens = context_tokens - old.token_count
    WHERE id = old.conversation_id AND old.seq > COALESCE(compressed_through_seq, 0);
END;

CREATE TRIGGER context_tokens_boundary_moved AFTER UPDATE OF compressed_through_seq ON conversations
BEGIN
    UPDATE conversations SET context_tokens =
          (SELECT COALESCE(SUM(m.token_count), 0) FROM messages m
            WHERE m.conversation_id = new.id
              AND m.seq > COALESCE(new.compressed_through_seq, 0)
              AND m.replaced_by IS NULL)
        + (SELECT COALESCE(SUM(t.token_count), 0) FROM tool_calls t
            WHERE t.conversation_id = new.id
              AND t.seq > COALESCE(new.compressed_through_seq, 0))
    WHERE id = new.id;
END;
