-- Butler's authorization requests: a command Butler may run on an agent once a human approves it.
-- The row is the truth (it outlives a restart); the AUTH_REQUEST chat rows are how it was shown.
CREATE TABLE authorization_requests (
  action_id TEXT PRIMARY KEY,
  -- Who asked Butler (a human, an agent, or a chat-platform identity) and in which conversation.
  requester_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  conversation_id INTEGER REFERENCES conversation_threads (id) ON DELETE SET NULL,
  -- The human who must answer; NULL means any admin.
  approver_id INTEGER REFERENCES users (id) ON DELETE CASCADE,
  target_agent_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  target_agent_name TEXT NOT NULL,
  command TEXT NOT NULL,
  reason TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED', 'EXPIRED')),
  -- Ids of the AUTH_REQUEST chat rows (JSON array), updated with the decision.
  message_ids TEXT NOT NULL DEFAULT '[]',
  decided_by INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  decided_at TEXT
);
CREATE INDEX authorization_requests_status_idx ON authorization_requests (status, expires_at);
CREATE INDEX authorization_requests_requester_idx ON authorization_requests (requester_id, created_at);
