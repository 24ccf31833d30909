-- Cluster mode runs on PostgreSQL only; this keeps the two schemas alike (see the postgres script).
CREATE TABLE bus_journal (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  node TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
