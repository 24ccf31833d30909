// The A2A messageId of a chat to a remote agent: the same on every try, a UUID version 5, and
// different for another chat or another registration of the agent.
import { expect, it } from 'vitest';
import { answerLocalId, remoteMessageId } from '../../../../src/a2a/remote/messageId.js';

const registration = { user_id: 12, created_at: '2026-01-02T03:04:05.678Z' };

it('is a version 5 UUID, the same for the same chat of the same registration', () => {
  const id = remoteMessageId(registration, 41);
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(remoteMessageId({ ...registration }, 41)).toBe(id);
});

it('differs for another chat, another agent, or the agent registered again', () => {
  const id = remoteMessageId(registration, 41);
  expect(remoteMessageId(registration, 42)).not.toBe(id);
  expect(remoteMessageId({ ...registration, user_id: 13 }, 41)).not.toBe(id);
  expect(remoteMessageId({ ...registration, created_at: '2026-01-02T03:04:05.679Z' }, 41)).not.toBe(id);
});

it('names the answer of a chat by its id', () => {
  expect(answerLocalId(41)).toBe('a2a-answer-41');
});
