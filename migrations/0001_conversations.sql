-- Conversations and their timeline: turns, messages, tool calls, think blocks.
-- Every child row carries a per-conversation `seq` drawn from conversations.last_seq,
-- so a conversation is ordered exactly even when timestamps tie.

CREATE TABLE conversations (
    id                     TEXT PRIMARY KEY NOT NULL,
    user_name              TEXT NOT NULL,
    title                  TEXT NOT NULL,
    created_at             TEXT NOT NULL,
    updated_at             TEXT NOT NULL,
    compressed_context     TEXT NULL,
    compressed_at          TEXT NULL,
    compressed_through_seq INTEGER NULL,
    last_seq               INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX conversations_by_user ON conversations (user_name, updated_at DESC);

CREATE TABLE turns (
    id              TEXT PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    thinking_mode   INTEGER NOT NULL DEFAULT 0,
    status          TEXT NOT NULL
        CHECK (status IN ('running', 'completed', 'cancelled', 'failed', 'interrupted')),
    error           TEXT NULL,
    created_at      TEXT NOT NULL,
    completed_at    TEXT NULL,
    UNIQUE (conversation_id, seq)
);

CREATE INDEX turns_running ON turns (status) WHERE status = 'running';

CREATE TABLE messages (
    id              TEXT PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content         TEXT NOT NULL,
    token_count     INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    replaced_by     TEXT NULL,
    is_edited       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (conversation_id, seq)
);

CREATE INDEX messages_by_turn ON messages (turn_id);

CREATE TABLE tool_calls (
    id              TEXT PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    call_id         TEXT NOT NULL,
    tool_name       TEXT NOT NULL,
    arguments       TEXT NOT NULL,
    result          TEXT NULL,
    status          TEXT NOT NULL
        CHECK (status IN ('running', 'ok', 'error', 'denied', 'cancelled')),
    token_count     INTEGER NOT NULL DEFAULT 0,
    started_at      TEXT NOT NULL,
    completed_at    TEXT NULL,
    UNIQUE (conversation_id, seq),
    UNIQUE (turn_id, call_id)
);

CREATE TABLE think_blocks (
    id              TEXT PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    seq             INTEGER NOT NULL,
    content         TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    UNIQUE (conversation_id, seq)
);

CREATE INDEX think_blocks_by_turn ON think_blocks (turn_id);
