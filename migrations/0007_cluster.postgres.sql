-- Cluster mode (several hub nodes on one database).
-- The commit order of message batches: each batch's transaction locks this row before it takes its
-- ids and moves it on just before it commits, so batches commit in id order and a reader that saw
-- id N can trust every lower id to be final (committed, or never to be).
CREATE TABLE cluster_commit_order (
  id smallint PRIMARY KEY CHECK (id = 1),
  last_id bigint NOT NULL
);
INSERT INTO cluster_commit_order (id, last_id) SELECT 1, COALESCE(MAX(id), 0) FROM messages;

-- Leases of the singletons (Butler, authorization expiry, the chat-platform connection): who holds
-- one and its fencing epoch, raised on every takeover so a deposed leader's writes can be refused.
CREATE TABLE cluster_leases (
  name text PRIMARY KEY,
  epoch bigint NOT NULL,
  node_id text NOT NULL,
  acquired_at text NOT NULL
);

-- Presence changes decided on different nodes carry an order from the bus; a change older than the
-- stored one is not applied (an OFFLINE decided before a reconnect elsewhere must not win).
ALTER TABLE users ADD COLUMN presence_seq bigint NOT NULL DEFAULT 0;
