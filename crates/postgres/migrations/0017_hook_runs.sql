-- Hooks (hooks.json): one row per run of a hook, on its conversation and, when there
-- was one, its turn (a UserPromptSubmit hook runs before its turn exists, a session's
-- hooks outside turns). Deleted with the conversation.
CREATE TABLE hook_runs (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NULL REFERENCES turns (id) ON DELETE CASCADE,
    event           TEXT NOT NULL,
    tool_name       TEXT NULL,
    -- The model's id of the call a PreToolUse / PostToolUse hook ran for.
    call_id         TEXT NULL,
    command         TEXT NOT NULL,
    -- NULL: killed (timeout, cancel, a signal).
    exit_code       BIGINT NULL,
    duration_ms     BIGINT NOT NULL,
    -- allow, ask, block, warning, or empty.
    decision        TEXT NOT NULL,
    ended_at        TIMESTAMPTZ NOT NULL
);
CREATE INDEX hook_runs_by_conversation ON hook_runs (conversation_id, id);
CREATE INDEX hook_runs_by_turn ON hook_runs (turn_id) WHERE turn_id IS NOT NULL;
