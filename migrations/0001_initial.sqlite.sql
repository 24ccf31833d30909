-- Users (humans and machines), their credentials kept apart, and one message log for
-- dashboard telemetry and chat (one id sequence, so `since=<id>` resumes across both).
CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('ADMIN', 'MEMBER', 'AGENT', 'BUTLER')),
  actor_type TEXT NOT NULL CHECK (actor_type IN ('HUMAN', 'SYSTEM')),
  agent_kind TEXT,
  runtime_kind TEXT,
  description TEXT,
  status TEXT NOT NULL DEFAULT 'OFFLINE',
  online INTEGER NOT NULL DEFAULT 0,
  last_seen_at TEXT,
  last_report TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX users_role_idx ON users (role, id);

CREATE TABLE human_credentials (
  user_id INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  password_hash TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE machine_credentials (
  user_id INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  token_lookup TEXT NOT NULL UNIQUE,
  token_cipher TEXT NOT NULL,
  token_hint TEXT NOT NULL,
  token_updated_at TEXT NOT NULL
);

CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  sender_id INTEGER NOT NULL,
  sender_name TEXT NOT NULL,
  sender_role TEXT NOT NULL,
  target_id INTEGER,
  payload TEXT NOT NULL,
  level TEXT,
  content TEXT NOT NULL,
  local_id TEXT,
  conversation_id INTEGER,
  stream_id TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX messages_type_idx ON messages (type, id);
CREATE INDEX messages_sender_name_idx ON messages (sender_name, id);
CREATE INDEX messages_pair_idx ON messages (sender_id, target_id, id);
CREATE INDEX messages_target_idx ON messages (target_id, id);
CREATE UNIQUE INDEX messages_local_id_idx ON messages (sender_id, local_id) WHERE local_id IS NOT NULL;
