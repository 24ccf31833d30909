-- Cluster mode runs on PostgreSQL only; these keep the two schemas alike (see the postgres script).
CREATE TABLE cluster_commit_order (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last_id INTEGER NOT NULL
);
INSERT INTO cluster_commit_order (id, last_id) SELECT 1, COALESCE(MAX(id), 0) FROM messages;

CREATE TABLE cluster_leases (
  name TEXT PRIMARY KEY,
  epoch INTEGER NOT NULL,
  node_id TEXT NOT NULL,
  acquired_at TEXT NOT NULL
);

ALTER TABLE users ADD COLUMN presence_seq INTEGER NOT NULL DEFAULT 0;
