-- Permission grants: a person's lasting "yes" to calls like one they were asked about.
-- Whose it is, for which conversation (NULL: always, every conversation of the user),
-- the allow rules it added (a JSON array of rule texts), the call that prompted it as
-- it was shown, when it was given and when it was revoked (NULL: it still allows).
-- No foreign key: a grant stays listed when its conversation is deleted.
CREATE TABLE permission_grants (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_name       TEXT NOT NULL,
    conversation_id TEXT NULL,
    rules           TEXT NOT NULL,
    prompted_by     TEXT NOT NULL,
    granted_at      TIMESTAMPTZ NOT NULL,
    revoked_at      TIMESTAMPTZ NULL
);
CREATE INDEX permission_grants_by_user ON permission_grants (user_name, conversation_id);
