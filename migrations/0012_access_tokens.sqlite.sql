-- Personal access tokens: long-lived bearer credentials a human mints for MCP clients (JWTs expire;
-- a client's configuration should not). Only an HMAC of the token is kept (to find it) and a hint
-- to recognise it by; the token itself is shown once, when it is made. A user's tokens go with them.
CREATE TABLE access_tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  token_lookup TEXT NOT NULL UNIQUE,
  token_hint TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX access_tokens_user_idx ON access_tokens (user_id, id);
