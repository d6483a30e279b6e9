-- Checkpoints (as SQLite's migration 0015): the changes each turn made to the files of
-- its workspace, in the order they were stored (`id`). A change's contents before and
-- after are named by their SHA-256 and kept once per digest in checkpoint_contents, in
-- the database so that every serve process (on any machine) can restore them;
-- `not_captured` says why a change's contents are not kept, NULL when they are.
CREATE TABLE checkpoint_contents (
    sha256  TEXT PRIMARY KEY,
    content BYTEA NOT NULL
);

CREATE TABLE turn_file_changes (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    path            TEXT NOT NULL,
    from_path       TEXT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('created', 'modified', 'deleted', 'renamed')),
    sha256_before   TEXT NULL,
    size_before     BIGINT NULL,
    sha256_after    TEXT NULL,
    size_after      BIGINT NULL,
    not_captured    TEXT NULL,
    -- Set on the changes a rewind made (stored on the conversation's last turn then):
    -- the rewind's id, so that it can be undone; NULL for a turn's own changes.
    rewind_id       TEXT NULL,
    created_at      TIMESTAMPTZ NOT NULL
);

CREATE INDEX turn_file_changes_by_turn ON turn_file_changes (turn_id, id);
CREATE INDEX turn_file_changes_by_conversation ON turn_file_changes (conversation_id);
