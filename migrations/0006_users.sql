-- Users of the web app when it listens beyond loopback: a name and the SHA-256 of the
-- token `smallebot users add NAME` printed once. The token itself is never stored.

CREATE TABLE users (
    name         TEXT PRIMARY KEY NOT NULL,
    token_sha256 TEXT NOT NULL UNIQUE,
    created_at   TEXT NOT NULL
);
