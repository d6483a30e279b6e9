-- A tool call can end `interrupted`: the turn ended (cancelled by a shutdown, failed,
-- or marked interrupted because its process stopped) before the call finished. SQLite
-- cannot change a CHECK constraint in place, so `tool_calls` is rebuilt with the same
-- columns, rows and triggers (those of migrations 0002, 0003, 0005 and 0009).

CREATE TABLE tool_calls_new (
    id              TEXT PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    call_id         TEXT NOT NULL,
    tool_name       TEXT NOT NULL,
    arguments       TEXT NOT NULL,
    result          TEXT NULL,
    status          TEXT NOT NULL
        CHECK (status IN ('running', 'ok', 'error', 'denied', 'cancelled', 'interrupted')),
    token_count     INTEGER NOT NULL DEFAULT 0,
    started_at      TEXT NOT NULL,
    completed_at    TEXT NULL,
    undone          INTEGER NOT NULL DEFAULT 0,
    UNIQUE (conversation_id, seq),
    UNIQUE (turn_id, call_id)
);

INSERT INTO tool_calls_new (id, conversation_id, turn_id, seq, call_id, tool_name, arguments,
                            result, status, token_count, started_at, completed_at, undone)
SELECT id, conversation_id, turn_id, seq, call_id, tool_name, arguments,
       result, status, token_count, started_at, completed_at, undone
FROM tool_calls;

-- Dropping the table drops its triggers and fires none. The trigger of `conversations`
-- that reads `tool_calls` goes first (a rename checks every trigger) and comes back as
-- migration 0009 made it.
DROP TRIGGER context_tokens_boundary_moved;
DROP TABLE tool_calls;
ALTER TABLE tool_calls_new RENAME TO tool_calls;

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

CREATE TRIGGER tool_calls_index_insert AFTER INSERT ON tool_calls
BEGIN
    INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
    VALUES (new.conversation_id, new.id, 'tool_call', new.seq, new.started_at);
END;

CREATE TRIGGER tool_calls_index_result AFTER UPDATE OF result ON tool_calls
WHEN new.result IS NOT old.result
BEGIN
    DELETE FROM search_rows WHERE source_id = new.id AND kind = 'tool_result';
    INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
    SELECT new.conversation_id, new.id, 'tool_result', new.seq,
           COALESCE(new.completed_at, new.started_at)
    WHERE new.result IS NOT NULL;
END;

CREATE TRIGGER tool_calls_index_delete AFTER DELETE ON tool_calls
BEGIN
    DELETE FROM search_rows WHERE source_id = old.id;
END;

CREATE TRIGGER context_tokens_tool_insert AFTER INSERT ON tool_calls
BEGIN
    UPDATE conversations SET context_tokens = context_tokens + new.token_count
    WHERE id = new.conversation_id AND new.seq > COALESCE(compressed_through_seq, 0);
END;

CREATE TRIGGER context_tokens_tool_update AFTER UPDATE OF token_count ON tool_calls
WHEN new.undone = 0 AND old.undone = 0
BEGIN
    UPDATE conversations SET context_tokens = context_tokens + new.token_count - old.token_count
    WHERE id = new.conversation_id AND new.seq > COALESCE(compressed_through_seq, 0);
END;

CREATE TRIGGER context_tokens_tool_delete AFTER DELETE ON tool_calls
WHEN old.undone = 0
BEGIN
    UPDATE conversations SET context_tokens = context_tokens - old.token_count
    WHERE id = old.conversation_id AND old.seq > COALESCE(compressed_through_seq, 0);
END;

CREATE TRIGGER context_tokens_tool_undone AFTER UPDATE OF undone ON tool_calls
WHEN old.undone <> new.undone
BEGIN
    UPDATE conversations
    SET context_tokens = context_tokens
        + CASE WHEN new.undone = 0 THEN new.token_count ELSE -old.token_count END
    WHERE id = new.conversation_id AND new.seq > COALESCE(compressed_through_seq, 0);
END;

-- A turn that ends while some of its tool calls still run (every end: completed,
-- cancelled, failed, interrupted; by this process or by the recovery of another) ends
-- them `interrupted`, in the same statement: no call stays `running` for good. Their
-- result stays NULL (nothing came back).
CREATE TRIGGER tool_calls_end_with_turn AFTER UPDATE OF status ON turns
WHEN old.status = 'running' AND new.status <> 'running'
BEGIN
    UPDATE tool_calls
    SET status = 'interrupted',
        completed_at = COALESCE(new.completed_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    WHERE turn_id = new.id AND status = 'running';
END;
