-- Messages between server processes too large for one NOTIFY payload (8000 bytes):
-- stored here, and the notification carries the id. Rows older than a few minutes are
-- removed by the next large message.
CREATE TABLE relayed_messages (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    body       JSONB NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
