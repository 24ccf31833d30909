-- A2A push-notification configs (src/a2a/pushStore.ts): the webhooks a caller registered for one of
-- its tasks, the config as the SDK's JSON and the A2A version it was registered over (a v0.3 webhook
-- gets v0.3 bodies). Scoped like the task: its caller and its agent.
CREATE TABLE a2a_push_configs (
  task_id TEXT NOT NULL,
  id TEXT NOT NULL,
  owner_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  agent_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  config TEXT NOT NULL,
  wire_version TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (task_id, id)
);
