-- Cluster mode: the bus messages that must reach every node (a revocation, a decision forwarded to the
-- leader, a changed connector) are written here as well as said on Redis. Every node reads what is new
-- once a second, so one that was cut off from Redis when a message was said still hears it, within a
-- second, even while Redis is away. Rows older than an hour are pruned.
CREATE TABLE bus_journal (
  id bigserial PRIMARY KEY,
  node text NOT NULL,
  kind text NOT NULL,
  body text NOT NULL,
  created_at bigint NOT NULL
);
