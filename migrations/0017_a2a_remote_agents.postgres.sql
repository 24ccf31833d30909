-- Remote A2A agents registered by their card URL (src/a2a/remote/): the agent is an ordinary user row
-- (role AGENT, runtime_kind 'a2a'); this row says where its card is, the bearer credential the hub
-- sends it (sealed with the hub's secret box, never returned), and the card as last fetched.
CREATE TABLE a2a_remote_agents (
  user_id BIGINT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  card_url TEXT NOT NULL,
  credential TEXT,
  card TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
