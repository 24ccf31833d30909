-- The id of the last chat carried to each remote A2A agent (src/a2a/remote/carry.ts): when its proxy
-- binds (the card answers again, or the leader starts), chats addressed to it above this mark are
-- carried to it, as a socket's `since` does for an agent that connects. Agents registered before
-- this migration start at the newest stored message: their past is not carried again.
ALTER TABLE a2a_remote_agents ADD COLUMN carried_id INTEGER NOT NULL DEFAULT 0;
UPDATE a2a_remote_agents SET carried_id = (SELECT COALESCE(MAX(id), 0) FROM messages);
