-- Sign-ins to remote MCP servers (OAuth): one per user and server (mcp.json's name).
-- `sealed` is the client id and tokens as JSON, encrypted and authenticated by the MCP
-- client (AES-256-GCM under the operator's SMALLEBOT_MCP_TOKEN_KEY, bound to the user
-- and server), base64; the store never holds a token in the clear.
CREATE TABLE mcp_credentials (
    user_name  TEXT NOT NULL,
    server     TEXT NOT NULL,
    sealed     TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_name, server)
);
