-- Attachments: files and images a person gives with a user message. A file is uploaded
-- into a conversation first (message_id NULL) and linked to the user message that
-- carries it in the transaction that stores that message. Its content is not in the
-- database: it is a file under `<home>/attachments/<first two hex>/<sha256>`, stored
-- once per digest whatever the number of attachments sharing it. `search_text` is what
-- the full-text index holds for it: its name and, for a text file, the start of its
-- text.
CREATE TABLE attachments (
    id              TEXT PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    message_id      TEXT NULL REFERENCES messages (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    media_type      TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('image', 'text', 'file')),
    size            INTEGER NOT NULL,
    sha256          TEXT NOT NULL,
    image_width     INTEGER NULL,
    image_height    INTEGER NULL,
    search_text     TEXT NOT NULL,
    created_at      TEXT NOT NULL
);

CREATE INDEX attachments_by_conversation ON attachments (conversation_id, message_id);
CREATE INDEX attachments_by_message ON attachments (message_id);
CREATE INDEX attachments_by_sha256 ON attachments (sha256);

-- search_rows learns the kind 'attachment': SQLite cannot change a CHECK constraint,
-- so the table is rebuilt with its ids (the full-text rowids) kept. The legacy rename
-- leaves the triggers of other tables that name search_rows as they are.
PRAGMA legacy_alter_table = ON;

CREATE TABLE search_rows_new (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    source_id       TEXT NOT NULL,
    kind            TEXT NOT NULL
        CHECK (kind IN ('user', 'assistant', 'tool_call', 'tool_result', 'attachment')),
    seq             INTEGER NOT NULL,
    created_at      TEXT NOT NULL
);

INSERT INTO search_rows_new (id, conversation_id, source_id, kind, seq, created_at)
SELECT id, conversation_id, source_id, kind, seq, created_at FROM search_rows;

DROP TABLE search_rows;
ALTER TABLE search_rows_new RENAME TO search_rows;

PRAGMA legacy_alter_table = OFF;

CREATE INDEX search_rows_by_source ON search_rows (source_id);

CREATE TRIGGER search_rows_after_delete AFTER DELETE ON search_rows
BEGIN
    DELETE FROM search_fts WHERE rowid = old.id;
END;

-- An attachment is searchable once a message carries it, at that message's place.
CREATE TRIGGER attachments_index_link AFTER UPDATE OF message_id ON attachments
WHEN new.message_id IS NOT old.message_id
BEGIN
    DELETE FROM search_rows WHERE source_id = new.id;
    INSERT INTO search_rows (conversation_id, source_id, kind, seq, created_at)
    SELECT new.conversation_id, new.id, 'attachment', m.seq, m.created_at
    FROM messages m WHERE m.id = new.message_id;
END;

CREATE TRIGGER attachments_index_delete AFTER DELETE ON attachments
BEGIN
    DELETE FROM search_rows WHERE source_id = old.id;
END;
