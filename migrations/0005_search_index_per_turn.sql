-- Full-text indexing in batches instead of row by row.
--
-- FTS5 writes a new index segment for every transaction that changes it, and that was
-- most of the cost of storing a row: a turn with three tool calls indexed eleven
-- times. Now the triggers only record each piece of text in search_rows; the rows
-- with an id above search_index_state.indexed_through are not in search_fts yet. The
-- store adds them in one statement when a turn ends and before every search, so a
-- search always sees everything stored. search_rows ids never repeat (AUTOINCREMENT),
-- so "above indexed_through" is exactly the rows not indexed yet.
--
-- Empty messages (the assistant message that opens a step of tool calls) match no
-- query and are no longer recorded.

CREATE TABLE search_index_state (
    id              INTEGER PRIMARY KEY CHECK (id = 1),
    indexed_through INTEGER NOT NULL
);

-- Everything stored so far is indexed.
INSERT INTO search_index_state (id, indexed_through)
SELECT 1, COALESCE(MAX(id), 0) FROM search_rows;

DROP TRIGGER messages_index_insert;
CREATE TRIGGER messages_index_insert AFTER INSERT ON messages
WHEN new.content <> ''
BEGIN
    INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
    VALUES (new.conversation_id, new.id, new.role, new.seq, new.created_at);
END;

DROP TRIGGER tool_calls_index_insert;
CREATE TRIGGER tool_calls_index_insert AFTER INSERT ON tool_calls
BEGIN
    INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
    VALUES (new.conversation_id, new.id, 'tool_call', new.seq, new.started_at);
END;

DROP TRIGGER tool_calls_index_result;
CREATE TRIGGER tool_calls_index_result AFTER UPDATE OF result ON tool_calls
WHEN new.result IS NOT old.result
BEGIN
    DELETE FROM search_rows WHERE source_id = new.id AND kind = 'tool_result';
    INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
    SELECT new.conversation_id, new.id, 'tool_result', new.seq,
           COALESCE(new.completed_at, new.started_at)
    WHERE new.result IS NOT NULL;
END;
