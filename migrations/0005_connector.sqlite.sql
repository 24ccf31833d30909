-- Chat-platform connectors (one is current), their logs, and the hub identities and threads of
-- platform users. Secrets are stored encrypted (AES-256-GCM text), never in the clear.
CREATE TABLE connectors (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  connector_name TEXT NOT NULL,
  app_id TEXT NOT NULL,
  app_secret_cipher TEXT,
  verification_token_cipher TEXT,
  encrypt_key_cipher TEXT,
  allow_dm INTEGER NOT NULL,
  allow_group_mention INTEGER NOT NULL,
  mention_required INTEGER NOT NULL,
  prefix_command TEXT NOT NULL,
  ignore_bot_messages INTEGER NOT NULL,
  rate_limit_per_minute INTEGER NOT NULL,
  allowed_chat_ids TEXT NOT NULL,
  user_whitelist TEXT NOT NULL,
  callback_url TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('draft', 'verified', 'enabled', 'disabled')),
  is_current INTEGER NOT NULL DEFAULT 0,
  -- Optimistic concurrency: every write checks and bumps it, so two admins racing cannot both win.
  version INTEGER NOT NULL DEFAULT 1,
  last_verified_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
-- At most one current connector, whatever two racing creators do.
CREATE UNIQUE INDEX connectors_current_idx ON connectors (is_current) WHERE is_current = 1;

CREATE TABLE connector_logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  connector_id INTEGER NOT NULL REFERENCES connectors (id) ON DELETE CASCADE,
  level TEXT NOT NULL,
  action TEXT NOT NULL,
  detail TEXT NOT NULL,
  trace_id TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX connector_logs_connector_idx ON connector_logs (connector_id, id);

-- A hub user (role MEMBER, no password) standing for one platform user.
CREATE TABLE platform_identities (
  user_id INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  platform_user_id TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);

-- The thread of one platform user in one platform chat; Butler's answers in it go back to that chat.
CREATE TABLE platform_threads (
  thread_id INTEGER PRIMARY KEY REFERENCES conversation_threads (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  chat_id TEXT NOT NULL,
  last_message_at TEXT NOT NULL,
  UNIQUE (user_id, chat_id)
);
