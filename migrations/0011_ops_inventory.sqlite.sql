-- The older dashboards' ops inventory: SSH keys (the private key only encrypted, AES-256-GCM text),
-- the nodes that name them, and ops task records. This hub runs no ops executor: nothing here is
-- used to connect anywhere; the older ops panels list, edit and delete it.
CREATE TABLE ssh_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  public_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  private_key_cipher TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- A key in use by a node cannot be deleted (the service answers 409 first; this is the backstop).
CREATE TABLE infra_nodes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  host TEXT NOT NULL,
  port INTEGER NOT NULL,
  ssh_user TEXT NOT NULL,
  ssh_key_id INTEGER NOT NULL REFERENCES ssh_keys (id) ON DELETE RESTRICT,
  description TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX infra_nodes_ssh_key_idx ON infra_nodes (ssh_key_id);

-- Task records for the ops console (only seeded here: POST /api/dev/mock/ops-task).
CREATE TABLE ops_tasks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  task TEXT NOT NULL,
  reasoning TEXT NOT NULL,
  success INTEGER NOT NULL,
  summary TEXT NOT NULL,
  error TEXT NOT NULL,
  worker_mode TEXT NOT NULL,
  duration_ms INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL
);
