-- The answers edits and regenerations replaced: when an exchange is rewritten, the
-- turn's assistant text so far is kept here, tied to the user message it answered, so
-- that earlier versions stay readable. Nothing here goes to the model, counts in
-- `context_tokens` or is searched. A discarded later turn takes its versions along.
CREATE TABLE answer_versions (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    message_id      TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    content         TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL
);

CREATE INDEX answer_versions_by_conversation ON answer_versions (conversation_id, id);
CREATE INDEX answer_versions_by_turn ON answer_versions (turn_id);
CREATE INDEX answer_versions_by_message ON answer_versions (message_id);
