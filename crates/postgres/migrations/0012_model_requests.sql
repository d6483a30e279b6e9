-- One row per model request (a turn's steps, titles, summaries): whom it is billed to,
-- the model, the tokens the provider reported (all NULL when it reported none), the
-- cost at the model's prices in picos (10^-12 of the currency; NULL without prices),
-- timings, retries and outcome. No foreign keys: usage stays when a conversation is
-- deleted. A sub-agent's request is billed to its parent's conversation and turn.
CREATE TABLE model_requests (
    id                   BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_name            TEXT NOT NULL,
    conversation_id      TEXT NOT NULL,
    turn_id              TEXT NULL,
    sub_conversation_id  TEXT NULL,
    step                 BIGINT NOT NULL,
    purpose              TEXT NOT NULL CHECK (purpose IN ('chat', 'title', 'summary')),
    model                TEXT NOT NULL,
    prompt_tokens        BIGINT NULL,
    cached_prompt_tokens BIGINT NULL,
    completion_tokens    BIGINT NULL,
    reasoning_tokens     BIGINT NULL,
    cost_picos           BIGINT NULL,
    currency             TEXT NULL,
    first_token_ms       BIGINT NULL,
    duration_ms          BIGINT NOT NULL,
    retries              BIGINT NOT NULL,
    outcome              TEXT NOT NULL
        CHECK (outcome IN ('ok', 'failed', 'cancelled', 'over_budget')),
    ended_at             TIMESTAMPTZ NOT NULL
);
CREATE INDEX model_requests_by_user ON model_requests (user_name, ended_at);
CREATE INDEX model_requests_by_conversation ON model_requests (conversation_id);
CREATE INDEX model_requests_by_turn ON model_requests (turn_id) WHERE turn_id IS NOT NULL;
