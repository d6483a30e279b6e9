-- Full-text index over message content and tool call name/arguments/result.
--
-- search_rows maps every indexed piece of text to its source row; its integer id is the
-- FTS5 rowid, so ids grow with insertion time and "newest first" is ORDER BY rowid DESC,
-- which FTS5 serves without sorting and stops early with LIMIT.
-- Triggers keep the index in step, including cascaded deletes of a conversation.

CREATE TABLE search_rows (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    source_id       TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('user', 'assistant', 'tool_call', 'tool_result')),
    seq             INTEGER NOT NULL,
    created_at      TEXT NOT NULL
);

CREATE INDEX search_rows_by_source ON search_rows (source_id);

CREATE VIRTUAL TABLE search_fts USING fts5 (
    body,
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER search_rows_after_delete AFTER DELETE ON search_rows
BEGIN
    DELETE FROM search_fts WHERE rowid = old.id;
END;

CREATE TRIGGER messages_index_insert AFTER INSERT ON messages
BEGIN
    INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
    VALUES (new.conversation_id, new.id, new.role, new.seq, new.created_at);
    INSERT INTO search_fts (rowid, body) VALUES (last_insert_rowid(), new.content);
END;

CREATE TRIGGER messages_index_delete AFTER DELETE ON messages
BEGIN
    DELETE FROM search_rows WHERE source_id = old.id;
END;

CREATE TRIGGER tool_calls_index_insert AFTER INSERT ON tool_calls
BEGIN
    INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
    VALUES (new.conversation_id, new.id, 'tool_call', new.seq, new.started_at);
    INSERT INTO search_fts (rowid, body)
    VALUES (last_insert_rowid(), new.tool_name || '(' || new.arguments || ')');
END;

CREATE TRIGGER tool_calls_index_result AFTER UPDATE OF result ON tool_calls
WHEN new.result IS NOT old.result
BEGIN
    DELETE FROM search_rows WHERE source_id = new.id AND kind = 'tool_result';
    INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
    SELECT new.conversation_id, new.id, 'tool_result', new.seq,
           COALESCE(new.completed_at, new.started_at)
    WHERE new.result IS NOT NULL;
    INSERT INTO search_fts (rowid, body)
    SELECT last_insert_rowid(), new.result WHERE new.result IS NOT NULL;
END;

CREATE TRIGGER tool_calls_index_delete AFTER DELETE ON tool_calls
BEGIN
    DELETE FROM search_rows WHERE source_id = old.id;
END;

-- Index rows that existed before this migration.
INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
SELECT conversation_id, id, role, seq, created_at FROM messages ORDER BY created_at, seq;
INSERT INTO search_fts (rowid, body)
SELECT r.id, m.content FROM search_rows r JOIN messages m ON m.id = r.source_id
WHERE r.kind IN ('user', 'assistant');

INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
SELECT conversation_id, id, 'tool_call', seq, started_at FROM tool_calls ORDER BY started_at, seq;
INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
SELECT conversation_id, id, 'tool_result', seq, COALESCE(completed_at, started_at)
FROM tool_calls WHERE result IS NOT NULL ORDER BY started_at, seq;
INSERT INTO search_fts (rowid, body)
SELECT r.id, t.tool_name || '(' || t.arguments || ')'
FROM search_rows r JOIN tool_calls t ON t.id = r.source_id WHERE r.kind = 'tool_call';
INSERT INTO search_fts (rowid, body)
SELECT r.id, t.result
FROM search_rows r JOIN tool_calls t ON t.id = r.source_id WHERE r.kind = 'tool_result';
