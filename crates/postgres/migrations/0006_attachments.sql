-- Attachments: files and images a person gives with a user message (as SQLite's
-- migration 0012). A file is uploaded into a conversation first (message_id NULL) and
-- linked to the user message that carries it in the transaction that stores that
-- message. Content is stored once per SHA-256 in attachment_contents, in the database
-- so that every serve process sees it; a content row goes in the transaction that
-- deletes the last attachment naming it (the statement trigger below).
CREATE TABLE attachment_contents (
    sha256  TEXT PRIMARY KEY,
    content BYTEA NOT NULL
);

CREATE TABLE attachments (
    id              TEXT PRIMARY KEY,
    upload_order    BIGINT GENERATED ALWAYS AS IDENTITY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    message_id      TEXT NULL REFERENCES messages (id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    media_type      TEXT NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('image', 'text', 'file')),
    size            BIGINT NOT NULL,
    sha256          TEXT NOT NULL REFERENCES attachment_contents (sha256),
    image_width     BIGINT NULL,
    image_height    BIGINT NULL,
    -- Its name and, for a text file, the start of its text (what search finds).
    search_text     TEXT NOT NULL,
    search          TSVECTOR GENERATED ALWAYS AS (search_words(search_text)) STORED,
    created_at      TIMESTAMPTZ NOT NULL
);

CREATE INDEX attachments_by_conversation ON attachments (conversation_id, upload_order);
CREATE INDEX attachments_by_message ON attachments (message_id);
CREATE INDEX attachments_by_sha256 ON attachments (sha256);
CREATE INDEX attachments_search ON attachments USING GIN (search);

-- Content no attachment names any more goes with the statement that deleted the last
-- one (a conversation's delete, an edit's discarded turns).
CREATE FUNCTION attachments_drop_unused_content() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM attachment_contents c
    WHERE c.sha256 IN (SELECT DISTINCT sha256 FROM gone)
      AND NOT EXISTS (SELECT 1 FROM attachments a WHERE a.sha256 = c.sha256);
    RETURN NULL;
END
$$;

CREATE TRIGGER attachments_drop_unused_content AFTER DELETE ON attachments
REFERENCING OLD TABLE AS gone
FOR EACH STATEMENT EXECUTE FUNCTION attachments_drop_unused_content();
