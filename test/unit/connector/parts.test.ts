// The connector's pure parts: inbound filters as a table, the outbound queue's rate limit under
// fake timers (queued, in order, never dropped), secret masking and change detection, and the
// secret box.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { maskSecret } from '../../../src/protocol/connector.js';
import { filterMessage, messageReceiveEvent, type FilterSettings } from '../../../src/connector/inboundFilter.js';
import { createOutboundQueue } from '../../../src/connector/outboundQueue.js';
import { changedSettings, DEFAULT_SETTINGS } from '../../../src/connector/views.js';
import { createSecretBox } from '../../../src/auth/secrets.js';

const BOT = 'ou_bot';

function event(o: { chat?: string; type?: string; from?: string; sender?: string; text?: string; messageType?: string; mentions?: string[] } = {}) {
  const mentions = (o.mentions ?? []).map((id, i) => ({ key: `@_user_${i + 1}`, id: { open_id: id } }));
  const text = `${mentions.map((m) => m.key).join(' ')} ${o.text ?? 'hello'}`;
  return messageReceiveEvent.parse({
    sender: { sender_id: { open_id: o.from ?? 'ou_a', user_id: 'u_a' }, sender_type: o.sender ?? 'user' },
    message: {
      message_id: 'om_1',
      chat_id: o.chat ?? 'oc_1',
      chat_type: o.type ?? 'p2p',
      message_type: o.messageType ?? 'text',
      content: JSON.stringify({ text }),
      mentions,
    },
  });
}

const settings = (o: Partial<FilterSettings> = {}): FilterSettings => ({ ...DEFAULT_SETTINGS, ...o });

describe('inbound filters', () => {
  it.each([
    ['a direct message', settings(), event(), { accepted: true, text: 'hello' }],
    ['a bot', settings(), event({ sender: 'app' }), 'not a user'],
    ['a bot when bots are let through', settings({ ignore_bot_messages: false }), event({ sender: 'app' }), { accepted: true, text: 'hello' }],
    ['a DM with allow_dm off', settings({ allow_dm: false }), event(), 'allow_dm is off'],
    ['a group mention of the bot', settings(), event({ type: 'group', mentions: [BOT] }), { accepted: true, text: 'hello' }],
    ['a group message without a mention', settings(), event({ type: 'group' }), 'mention_required'],
    ['a group mention of someone else', settings(), event({ type: 'group', mentions: ['ou_other'] }), 'mention_required'],
    ['a group message when mentions are not required', settings({ mention_required: false }), event({ type: 'group' }), { accepted: true, text: 'hello' }],
    [
      'a group message with allow_group_mention off',
      settings({ allow_group_mention: false }),
      event({ type: 'group', mentions: [BOT] }),
      'allow_group_mention is off',
    ],
    ['a chat outside allowed_chat_ids', settings({ allowed_chat_ids: ['oc_2'] }), event(), 'not in allowed_chat_ids'],
    ['a chat inside allowed_chat_ids', settings({ allowed_chat_ids: ['oc_1'] }), event(), { accepted: true, text: 'hello' }],
    ['a sender outside user_whitelist', settings({ user_whitelist: ['ou_z'] }), event(), 'not in user_whitelist'],
    ['a sender whitelisted by user_id', settings({ user_whitelist: ['u_a'] }), event(), { accepted: true, text: 'hello' }],
    ['an image', settings(), event({ messageType: 'image' }), 'text only'],
    ['a command with the prefix', settings({ prefix_command: '/hub' }), event({ text: '/hub status' }), { accepted: true, text: 'status' }],
    ['a message without the prefix', settings({ prefix_command: '/hub' }), event({ text: 'status' }), 'prefix_command'],
    ['only a mention', settings(), event({ type: 'group', mentions: [BOT], text: '' }), 'empty message'],
  ] as const)('%s', (_name, s, e, expected) => {
    const verdict = filterMessage(s, e, BOT);
    if (typeof expected === 'string') {
      expect(verdict.accepted).toBe(false);
      expect((verdict as { reason: string }).reason).toContain(expected);
    } else {
      expect(verdict).toEqual(expected);
    }
  });

  it('counts any mention as the bot’s while the bot’s own id is unknown', () => {
    expect(filterMessage(settings(), event({ type: 'group', mentions: ['ou_other'] }), undefined).accepted).toBe(true);
  });

  it('refuses content that is not the text JSON the platform sends', () => {
    const e = event();
    expect(filterMessage(settings(), { ...e, message: { ...e.message, content: 'not json' } }, BOT)).toEqual({
      accepted: false,
      reason: 'text message without readable text',
    });
  });

  it('rejects malformed events and ids a log or store could not keep', () => {
    expect(messageReceiveEvent.safeParse({ sender: {}, message: {} }).success).toBe(false);
    const e = event();
    expect(messageReceiveEvent.safeParse({ ...e, message: { ...e.message, message_id: 'om bad\n' } }).success).toBe(false);
  });
});

describe('outbound queue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends at most perMinute in any minute; the rest wait, in order, and none is dropped', async () => {
    const sent: Array<{ item: number; at: number }> = [];
    const start = Date.now();
    const queue = createOutboundQueue<number>({
      perMinute: 2,
      send: async (item) => void sent.push({ item, at: Date.now() - start }),
    });
    for (let i = 1; i <= 5; i++) expect(queue.push(i)).toBe(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.map((s) => s.item)).toEqual([1, 2]);
    expect(queue.depth).toBe(3);
    await vi.advanceTimersByTimeAsync(59_999);
    expect(sent).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent.map((s) => s.item)).toEqual([1, 2, 3, 4]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent.map((s) => s.item)).toEqual([1, 2, 3, 4, 5]);
    expect(sent.map((s) => s.at)).toEqual([0, 0, 60_000, 60_000, 120_000]);
    await queue.drained();
  });

  it('keeps going after a failed send, takes a new rate at once, and hands back what is left on stop', async () => {
    const sent: number[] = [];
    const queue = createOutboundQueue<number>({
      perMinute: 1,
      send: async (item) => {
        if (item === 1) throw new Error('platform down');
        sent.push(item);
      },
    });
    queue.push(1);
    queue.push(2);
    queue.push(3);
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual([]);
    queue.setRate(10);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toEqual([2, 3]);
    queue.setRate(1);
    queue.push(4);
    queue.push(5);
    await vi.advanceTimersByTimeAsync(0);
    expect(queue.stop()).toEqual([4, 5]);
    expect(queue.push(6)).toBe(false);
  });

  it('refuses past its bound instead of growing without end', () => {
    const queue = createOutboundQueue<number>({ perMinute: 1, maxQueued: 2, send: () => new Promise(() => undefined) });
    expect([queue.push(1), queue.push(2), queue.push(3), queue.push(4)]).toEqual([true, true, true, false]);
  });
});

describe('secrets', () => {
  it('masks the middle and hides short secrets entirely', () => {
    expect(maskSecret('')).toBe('');
    expect(maskSecret('short')).toBe('****');
    expect(maskSecret('abcdefghij')).toBe('ab****ij');
  });

  it('sees a masked secret sent back as no change, and real changes as changes', () => {
    const current = { ...DEFAULT_SETTINGS, app_secret: 'abcdefghij', allowed_chat_ids: ['oc_1'] };
    expect(changedSettings(current, { app_secret: 'ab****ij', allowed_chat_ids: ['oc_1'], allow_dm: true })).toEqual({});
    expect(changedSettings(current, { app_secret: 'new-secret', allowed_chat_ids: ['oc_2'] })).toEqual({
      app_secret: 'new-secret',
      allowed_chat_ids: ['oc_2'],
    });
    expect(changedSettings(current, { app_secret: '' })).toEqual({ app_secret: '' });
  });

  it('seals with a key per purpose: what one box sealed, another cannot open', () => {
    const a = createSecretBox('hub-secret', 'connector-secret-encryption');
    const b = createSecretBox('hub-secret', 'agent-token-encryption');
    const sealed = a.seal('app-secret');
    expect(sealed).not.toContain('app-secret');
    expect(a.seal('app-secret')).not.toBe(sealed);
    expect(a.open(sealed)).toBe('app-secret');
    expect(() => b.open(sealed)).toThrow();
  });
});
