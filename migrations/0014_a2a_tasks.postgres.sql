-- A2A tasks (src/a2a/taskStore.ts): one row per task a caller sent to an agent (or Butler) over A2A,
-- the task itself as the SDK's JSON, and the columns the hub looks it up by. A task belongs to its
-- caller and its agent: another user's task, or one asked for through another agent's endpoint, is
-- not found. Its conversation thread is where its chat rows are stored.
CREATE TABLE a2a_tasks (
  id TEXT PRIMARY KEY,
  owner_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  agent_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  context_id TEXT NOT NULL,
  conversation_id BIGINT,
  state TEXT NOT NULL,
  status_at TEXT NOT NULL,
  task TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX a2a_tasks_list_idx ON a2a_tasks (owner_id, agent_id, status_at, id);
CREATE INDEX a2a_tasks_context_idx ON a2a_tasks (owner_id, agent_id, context_id);
