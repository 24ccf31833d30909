-- The dashboard's charts count rows by time window (GET /api/stats/...): messages of some types since
-- a moment, and one connector's log since a moment. These indexes keep those range reads cheap.
CREATE INDEX messages_type_created_idx ON messages (type, created_at);
CREATE INDEX connector_logs_created_idx ON connector_logs (connector_id, created_at);
