// The ids that make carrying a chat to a remote A2A agent safe to repeat. A hub that dies between
// delivering a chat and storing its carried mark carries it again after the restart; these ids are
// what tell the two apart. The A2A `messageId` is the same on every try (A2A §3.3.1: an agent may use
// it to detect a duplicate message), the agent's answer is stored under a local_id of its chat, so the
// store keeps one answer per chat whatever the number of tries, and streams under a stream id of the
// chat, so an answer cut by the crash and the one sent after it are one stream to every reader (the
// final CHAT ends the one a reader saw start, whichever try it came from).
import { createHash } from 'node:crypto';

/** The namespace of the hub's name-based message ids (a fixed random UUID). */
const NAMESPACE = Buffer.from('6c1f2d0e8a4b4f8e9d3c5b7a1e2f4d6c', 'hex');

/**
 * The A2A messageId of chat `chatId` to a remote agent: a UUID version 5 (RFC 9562, SHA-1 name-based)
 * of the agent's registration (its user id and when it was registered, so two hubs, or an agent
 * registered again, never send one id for different chats) and the chat's stored id.
 */
export function remoteMessageId(registration: { user_id: number; created_at: string }, chatId: number): string {
  const hash = createHash('sha1').update(NAMESPACE).update(`${registration.user_id}@${registration.created_at}/${chatId}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The local_id of the agent's answer to chat `chatId` (unique per sender in the store: one answer per chat). */
export const answerLocalId = (chatId: number): string => `a2a-answer-${chatId}`;

/**
 * The stream_id of the agent's answer to a chat (not Butler's: those carry Butler's own), from its A2A
 * messageId: the same on every try, so a try that completes ends the stream a cut one began.
 */
export const answerStreamId = (messageId: string): string => `a2a-${messageId}`;
