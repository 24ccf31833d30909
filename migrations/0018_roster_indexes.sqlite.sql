-- The agent roster at 100k agents (issue 35): counts by presence status and by kind, and the
-- Agents page's status and kind filters, read these indexes instead of every row. A substring
-- search of usernames still scans (SQLite has no trigram index outside FTS); measured ~20 ms at 100k.
CREATE INDEX users_role_status_idx ON users (role, status, online, id);
CREATE INDEX users_role_kind_idx ON users (role, agent_kind, id);
