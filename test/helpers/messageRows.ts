// A SYSTEM_LOG row as the store's batch writer takes it, for tests that write batches without a hub.
import type { MessageInsert } from '../../src/store/batchWriter.js';

export function logRow(sender: { id: number; name: string }, content: string, localId: string): MessageInsert {
  return {
    type: 'SYSTEM_LOG',
    sender_id: sender.id,
    sender_name: sender.name,
    sender_role: 'AGENT',
    target_id: null,
    target_role: null,
    payload: JSON.stringify({ level: 'INFO', content }),
    level: 'INFO',
    content,
    local_id: localId,
    conversation_id: null,
    stream_id: null,
    created_at: new Date().toISOString(),
  };
}
