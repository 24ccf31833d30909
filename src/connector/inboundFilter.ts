// An `im.message.receive_v1` event as the SDK hands it over (header and event flattened), and the
// connector's filters over it: which platform messages become a chat to Butler, and why the others
// do not. Pure: the settings and the bot's own id come in, a verdict goes out.
import { z } from 'zod';

/** Platform ids end up in stored local_ids and logs: printable ASCII only. */
const platformId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII');

export const messageReceiveEvent = z.object({
  event_id: z.string().optional(),
  /** The verification token of the app, in events of schema 2.0. */
  token: z.string().optional(),
  sender: z.object({
    sender_id: z.object({ open_id: platformId, user_id: z.string().optional(), union_id: z.string().optional() }),
    sender_type: z.string(),
  }),
  message: z.object({
    message_id: platformId,
    chat_id: platformId,
    chat_type: z.string(),
    message_type: z.string(),
    content: z.string().max(200_000),
    mentions: z.array(z.object({ key: z.string(), id: z.object({ open_id: z.string().optional() }).optional(), name: z.string().optional() })).optional(),
  }),
});
export type MessageReceiveEvent = z.infer<typeof messageReceiveEvent>;

export interface FilterSettings {
  allow_dm: boolean;
  allow_group_mention: boolean;
  mention_required: boolean;
  prefix_command: string;
  ignore_bot_messages: boolean;
  allowed_chat_ids: readonly string[];
  user_whitelist: readonly string[];
}

export type FilterVerdict = { accepted: true; text: string } | { accepted: false; reason: string };

/** Longest text passed on to Butler (a chat payload the hub stores). */
const MAX_TEXT = 16_000;

function textOf(event: MessageReceiveEvent): string | undefined {
  try {
    const parsed = JSON.parse(event.message.content) as unknown;
    const text = (parsed as { text?: unknown } | null)?.text;
    if (typeof text !== 'string') return undefined;
    // Mentions arrive as placeholders (@_user_1); the words around them are the message.
    let plain = text;
    for (const m of event.message.mentions ?? []) plain = plain.split(m.key).join(' ');
    return plain.replace(/\s+/g, ' ').trim();
  } catch {
    return undefined;
  }
}

/**
 * The filters in the order an admin reads them: who sent it, where, whether the bot was addressed,
 * what it is. `botOpenId` undefined: any mention counts as a mention of the bot.
 */
export function filterMessage(settings: FilterSettings, event: MessageReceiveEvent, botOpenId?: string): FilterVerdict {
  const { sender, message } = event;
  if (settings.ignore_bot_messages && sender.sender_type !== 'user')
    return { accepted: false, reason: `sent by a ${sender.sender_type}, not a user (ignore_bot_messages)` };
  if (settings.allowed_chat_ids.length > 0 && !settings.allowed_chat_ids.includes(message.chat_id)) {
    return { accepted: false, reason: `chat ${message.chat_id} is not in allowed_chat_ids` };
  }
  if (settings.user_whitelist.length > 0) {
    const ids = [sender.sender_id.open_id, sender.sender_id.user_id, sender.sender_id.union_id].filter((v): v is string => !!v);
    if (!ids.some((id) => settings.user_whitelist.includes(id)))
      return { accepted: false, reason: `sender ${sender.sender_id.open_id} is not in user_whitelist` };
  }
  if (message.chat_type === 'p2p') {
    if (!settings.allow_dm) return { accepted: false, reason: 'direct message, and allow_dm is off' };
  } else {
    if (!settings.allow_group_mention) return { accepted: false, reason: 'group message, and allow_group_mention is off' };
    const mentioned = (message.mentions ?? []).some((m) => botOpenId === undefined || m.id?.open_id === botOpenId);
    if (settings.mention_required && !mentioned) return { accepted: false, reason: 'group message without a mention of the bot (mention_required)' };
  }
  if (message.message_type !== 'text') return { accepted: false, reason: `message type ${message.message_type} is not supported (text only)` };
  let text = textOf(event);
  if (text === undefined) return { accepted: false, reason: 'text message without readable text' };
  const prefix = settings.prefix_command;
  if (prefix !== '') {
    if (!text.startsWith(prefix)) return { accepted: false, reason: `does not start with prefix_command "${prefix}"` };
    text = text.slice(prefix.length).trim();
  }
  if (text === '') return { accepted: false, reason: 'empty message' };
  return { accepted: true, text: text.slice(0, MAX_TEXT) };
}
