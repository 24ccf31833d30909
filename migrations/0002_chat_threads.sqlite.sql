-- Conversation threads between a human and a machine peer (Butler or an agent), and the columns
-- the WebSocket router needs to route and resume stored frames.
CREATE TABLE conversation_threads (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  owner_user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  peer_user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  channel_kind TEXT NOT NULL CHECK (channel_kind IN ('butler_direct', 'agent_direct')),
  title TEXT NOT NULL,
  summary TEXT NOT NULL DEFAULT '',
  is_pinned INTEGER NOT NULL DEFAULT 0,
  is_default INTEGER NOT NULL DEFAULT 0,
  archived_at TEXT,
  last_message_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
-- One default thread per (human, peer, kind): racing first messages cannot create two.
CREATE UNIQUE INDEX conversation_threads_default_idx ON conversation_threads (owner_user_id, peer_user_id, channel_kind) WHERE is_default = 1;
CREATE INDEX conversation_threads_owner_idx ON conversation_threads (owner_user_id, peer_user_id, id);

-- The receiver's role at the time of sending: resume and the Butler↔agent monitor route by it.
ALTER TABLE messages ADD COLUMN target_role TEXT;
CREATE INDEX messages_conversation_idx ON messages (conversation_id, id);
