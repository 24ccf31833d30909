-- The agent roster at 100k agents (issue 35): counts by presence status and by kind, and the
-- Agents page's status and kind filters, read these indexes instead of every row.
CREATE INDEX users_role_status_idx ON users (role, status, online, id);
CREATE INDEX users_role_kind_idx ON users (role, agent_kind, id);
-- The username search (`lower(username) LIKE '%…%'`) uses a trigram index where the server has
-- pg_trgm (a trusted contrib extension since PostgreSQL 13); where it has not, the search scans and
-- the migration still succeeds.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE INDEX users_username_trgm_idx ON users USING gin (lower(username) gin_trgm_ops);
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm not available: the username search will scan (%)', SQLERRM;
END
$$;
