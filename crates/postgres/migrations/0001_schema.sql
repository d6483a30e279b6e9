-- The whole schema of SmallEBot on PostgreSQL, equal in meaning to the SQLite schema
-- after its migrations 0001-0009. Ids are UUIDv7 text (as on SQLite), times are
-- timestamptz truncated to milliseconds.

-- The words search finds in a text: runs of letters and digits (punctuation splits
-- words, as SQLite's FTS5 tokenizer does), lower-cased, without positions. Only the
-- first 100 000 characters are indexed: a tsvector holds at most 1 MiB, and a stored
-- tool result may be that long on its own.
CREATE FUNCTION search_words(body TEXT) RETURNS TSVECTOR
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT strip(to_tsvector('simple',
        regexp_replace(left(body, 100000), '[[:punct:]]+', ' ', 'g')))
$$;

-- The query for a person's search text, split into words as search_words splits them;
-- every word must occur. websearch_to_tsquery never fails on its input; each word is
-- quoted (punctuation, quotes included, is gone by then) so `or` is a word to find,
-- never an operator.
CREATE FUNCTION search_query(text TEXT) RETURNS TSQUERY
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT websearch_to_tsquery('simple',
        regexp_replace(regexp_replace(text, '[[:punct:]]+', ' ', 'g'), '(\S+)', '"\1"', 'g'))
$$;

CREATE TABLE conversations (
    id                          TEXT PRIMARY KEY,
    user_name                   TEXT NOT NULL,
    title                       TEXT NOT NULL,
    created_at                  TIMESTAMPTZ NOT NULL,
    updated_at                  TIMESTAMPTZ NOT NULL,
    compressed_context          TEXT NULL,
    compressed_at               TIMESTAMPTZ NULL,
    compressed_through_seq      BIGINT NULL,
    -- The last seq handed out; updating it takes the row lock that serializes writers.
    last_seq                    BIGINT NOT NULL DEFAULT 0,
    -- Tokens of the rows after the boundary that go to the model (kept by triggers).
    context_tokens              BIGINT NOT NULL DEFAULT 0,
    model_id                    TEXT NULL,
    provisional_counts_from_seq BIGINT NULL
);

CREATE INDEX conversations_by_user ON conversations (user_name, updated_at DESC);

CREATE TABLE turns (
    id               TEXT PRIMARY KEY,
    conversation_id  TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq              BIGINT NOT NULL,
    thinking_mode    BOOLEAN NOT NULL DEFAULT FALSE,
    status           TEXT NOT NULL
        CHECK (status IN ('running', 'completed', 'cancelled', 'failed', 'interrupted')),
    error            TEXT NULL,
    created_at       TIMESTAMPTZ NOT NULL,
    completed_at     TIMESTAMPTZ NULL,
    owner_pid        BIGINT NULL,
    owner_host       TEXT NULL,
    owner_started_at TIMESTAMPTZ NULL,
    heartbeat_at     TIMESTAMPTZ NULL,
    undone_at        TIMESTAMPTZ NULL,
    UNIQUE (conversation_id, seq)
);

-- At most one running turn per conversation, whichever process starts it.
CREATE UNIQUE INDEX turns_one_running ON turns (conversation_id) WHERE status = 'running';

CREATE TABLE messages (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    seq             BIGINT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content         TEXT NOT NULL,
    token_count     BIGINT NOT NULL DEFAULT 0,
    created_at      TIMESTAMPTZ NOT NULL,
    replaced_by     TEXT NULL,
    is_edited       BOOLEAN NOT NULL DEFAULT FALSE,
    undone          BOOLEAN NOT NULL DEFAULT FALSE,
    search          TSVECTOR GENERATED ALWAYS AS (search_words(content)) STORED,
    UNIQUE (conversation_id, seq)
);

CREATE INDEX messages_by_turn ON messages (turn_id);
CREATE INDEX messages_search ON messages USING GIN (search);
-- Newest first: search walks these while the words are frequent (see search.rs).
CREATE INDEX messages_newest ON messages (created_at DESC, seq DESC);

CREATE TABLE tool_calls (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    seq             BIGINT NOT NULL,
    call_id         TEXT NOT NULL,
    tool_name       TEXT NOT NULL,
    arguments       TEXT NOT NULL,
    result          TEXT NULL,
    status          TEXT NOT NULL
        CHECK (status IN ('running', 'ok', 'error', 'denied', 'cancelled')),
    token_count     BIGINT NOT NULL DEFAULT 0,
    started_at      TIMESTAMPTZ NOT NULL,
    completed_at    TIMESTAMPTZ NULL,
    undone          BOOLEAN NOT NULL DEFAULT FALSE,
    call_search     TSVECTOR GENERATED ALWAYS AS
        (search_words(tool_name || '(' || arguments || ')')) STORED,
    result_search   TSVECTOR GENERATED ALWAYS AS (search_words(COALESCE(result, ''))) STORED,
    UNIQUE (conversation_id, seq),
    UNIQUE (turn_id, call_id)
);

CREATE INDEX tool_calls_call_search ON tool_calls USING GIN (call_search);
CREATE INDEX tool_calls_result_search ON tool_calls USING GIN (result_search);
CREATE INDEX tool_calls_newest ON tool_calls (started_at DESC, seq DESC);
CREATE INDEX tool_results_newest ON tool_calls
    ((COALESCE(completed_at, started_at)) DESC, seq DESC) WHERE result IS NOT NULL;

CREATE TABLE think_blocks (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    seq             BIGINT NOT NULL,
    content         TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    undone          BOOLEAN NOT NULL DEFAULT FALSE,
    UNIQUE (conversation_id, seq)
);

CREATE INDEX think_blocks_by_turn ON think_blocks (turn_id);

CREATE TABLE users (
    name         TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL UNIQUE,
    created_at   TIMESTAMPTZ NOT NULL
);

-- One task list per conversation, as the JSON the file store writes; `version` grows by
-- one with every change (optimistic concurrency between server processes).
CREATE TABLE task_lists (
    conversation_id TEXT PRIMARY KEY,
    body            JSONB NOT NULL,
    version         BIGINT NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL
);

-- Running context totals. A message counts while it is not replaced and not undone; a
-- tool call while it is not undone; either only after the compression boundary.
CREATE FUNCTION message_context_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    delta BIGINT := 0;
    conv TEXT;
    row_seq BIGINT;
BEGIN
    IF TG_OP <> 'INSERT' AND OLD.replaced_by IS NULL AND NOT OLD.undone THEN
        delta := delta - OLD.token_count;
    END IF;
    IF TG_OP <> 'DELETE' AND NEW.replaced_by IS NULL AND NOT NEW.undone THEN
        delta := delta + NEW.token_count;
    END IF;
    IF TG_OP = 'DELETE' THEN
        conv := OLD.conversation_id; row_seq := OLD.seq;
    ELSE
        conv := NEW.conversation_id; row_seq := NEW.seq;
    END IF;
    IF delta <> 0 THEN
        UPDATE conversations SET context_tokens = context_tokens + delta
        WHERE id = conv AND row_seq > COALESCE(compressed_through_seq, 0);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER messages_context_tokens
AFTER INSERT OR DELETE OR UPDATE OF token_count, replaced_by, undone ON messages
FOR EACH ROW EXECUTE FUNCTION message_context_tokens();

CREATE FUNCTION tool_call_context_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    delta BIGINT := 0;
    conv TEXT;
    row_seq BIGINT;
BEGIN
    IF TG_OP <> 'INSERT' AND NOT OLD.undone THEN
        delta := delta - OLD.token_count;
    END IF;
    IF TG_OP <> 'DELETE' AND NOT NEW.undone THEN
        delta := delta + NEW.token_count;
    END IF;
    IF TG_OP = 'DELETE' THEN
        conv := OLD.conversation_id; row_seq := OLD.seq;
    ELSE
        conv := NEW.conversation_id; row_seq := NEW.seq;
    END IF;
    IF delta <> 0 THEN
        UPDATE conversations SET context_tokens = context_tokens + delta
        WHERE id = conv AND row_seq > COALESCE(compressed_through_seq, 0);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER tool_calls_context_tokens
AFTER INSERT OR DELETE OR UPDATE OF token_count, undone ON tool_calls
FOR EACH ROW EXECUTE FUNCTION tool_call_context_tokens();

-- Moving the boundary recounts the rows after it.
CREATE FUNCTION boundary_context_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.context_tokens :=
          (SELECT COALESCE(SUM(m.token_count), 0) FROM messages m
            WHERE m.conversation_id = NEW.id
              AND m.seq > COALESCE(NEW.compressed_through_seq, 0)
              AND m.replaced_by IS NULL AND NOT m.undone)
        + (SELECT COALESCE(SUM(t.token_count), 0) FROM tool_calls t
            WHERE t.conversation_id = NEW.id
              AND t.seq > COALESCE(NEW.compressed_through_seq, 0)
              AND NOT t.undone);
    RETURN NEW;
END;
$$;

CREATE TRIGGER conversations_boundary_moved
BEFORE UPDATE OF compressed_through_seq ON conversations
FOR EACH ROW
WHEN (OLD.compressed_through_seq IS DISTINCT FROM NEW.compressed_through_seq)
EXECUTE FUNCTION boundary_context_tokens();
