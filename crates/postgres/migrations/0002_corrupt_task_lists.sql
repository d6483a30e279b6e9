-- Task lists that did not parse when a change came: kept here for a person to look at,
-- while the conversation starts a new list (the file store renames such files to
-- `.corrupt-<time>` the same way).
CREATE TABLE task_lists_corrupt (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    body            JSONB NOT NULL,
    reason          TEXT NOT NULL,
    moved_at        TIMESTAMPTZ NOT NULL
);
