// Zod schemas of what the HTTP API answers (wire.md §2–3): the one declaration of each shape, shown in
// the OpenAPI document. The views the code builds (objects.ts) are inferred from them.
import * as z from 'zod';
import { ChannelKinds } from './threads.js';
import { ActorTypes, Roles } from './roles.js';

const timestamp = z.string().meta({ description: 'ISO 8601 UTC', example: '2026-11-21T10:00:00.123Z' });
const id = z.number().int().min(1);

export const errorBody = z.object({ error: z.string() }).meta({ id: 'Error', description: 'Every error: one readable message' });
export const okBody = z.object({ ok: z.literal(true) }).meta({ id: 'Ok' });

export const userView = z
  .object({
    id,
    username: z.string(),
    role: z.enum(Roles),
    actor_type: z.enum(ActorTypes),
    agent_kind: z.string().nullable(),
    runtime_kind: z.string().nullable(),
    description: z.string().nullable(),
    created_at: timestamp,
    status: z.string().meta({ description: 'ONLINE or OFFLINE' }),
    online: z.boolean(),
    last_seen_at: timestamp.nullable(),
    last_report: z.string().nullable(),
    token_hint: z.string().optional().meta({ description: 'machines only: first 4 and last 4 characters of the api_token' }),
    token_updated_at: timestamp.optional(),
  })
  .meta({ id: 'User' });

export const agentWithToken = userView
  .extend({
    api_token: z
      .string()
      .optional()
      .meta({ description: 'shown once, at registration; none for a remote A2A agent (runtime_kind "a2a"), which the hub calls' }),
    card_url: z.string().optional().meta({ description: 'a remote A2A agent: the card URL it was registered by' }),
  })
  .meta({ id: 'AgentWithToken' });

export const presenceView = z
  .object({
    id,
    username: z.string(),
    role: z.enum(Roles),
    status: z.string(),
    online: z.boolean(),
    last_seen_at: timestamp.nullable(),
    last_report: z.string().nullable(),
  })
  .meta({ id: 'Presence' });

export const sessionBody = z.object({ token: z.string().meta({ description: 'JWT (HS256)' }), user: userView }).meta({ id: 'Session' });

export const messageView = z
  .object({
    id,
    sender_id: id,
    sender_name: z.string(),
    sender_role: z.string(),
    target_id: id.optional(),
    type: z.string(),
    payload: z.unknown().meta({ description: '{level, content} for SYSTEM_LOG; an object or text for the other telemetry types' }),
    timestamp,
    agent_id: z.string().meta({ description: "the sender's username (older dashboards)" }),
    level: z.string().nullable(),
    content: z.string(),
  })
  .meta({ id: 'Message' });

export const chatMessageView = z
  .object({
    id,
    local_id: z.string().nullable(),
    conversation_id: id.optional(),
    sender_id: id,
    sender_name: z.string(),
    sender_role: z.string(),
    receiver_id: id.nullable(),
    target_id: id.nullable(),
    type: z.string(),
    payload: z.string().meta({ description: 'the text; for AUTH_REQUEST the JSON text of the request with its status' }),
    stream_id: z.string().optional(),
    timestamp,
  })
  .meta({ id: 'ChatMessage' });

export const threadView = z
  .object({
    id,
    owner_user_id: id,
    peer_user_id: id,
    channel_kind: z.enum(ChannelKinds),
    title: z.string(),
    summary: z.string(),
    is_pinned: z.boolean(),
    is_default: z.boolean(),
    archived_at: timestamp.nullable(),
    last_message_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'ConversationThread' });

export const testConnectionResult = z
  .union([
    z.object({ ok: z.literal(true), message: z.string(), agent_id: id, agent_name: z.string() }),
    z.object({ ok: z.literal(false), message: z.string() }),
  ])
  .meta({ id: 'TestConnectionResult' });

export const rotatedToken = z
  .object({ ok: z.literal(true), message: z.string(), agent_id: id, api_token: z.string(), token_hint: z.string() })
  .meta({ id: 'RotatedToken' });

export const rawAgentToken = z.object({ username: z.string(), role: z.string(), api_token: z.string() }).meta({ id: 'RawAgentToken' });

export const authOptionsBody = z
  .object({
    self_registration: z.boolean(),
    agent_reply_timeout_seconds: z
      .number()
      .int()
      .positive()
      .meta({ description: "how long Butler waits for an agent's answer to a command (BUTLER_AGENT_REPLY_TIMEOUT); a dashboard shows it while it waits" }),
  })
  .meta({ id: 'AuthOptions' });
export const healthBody = z.object({ status: z.literal('ok'), uptime_seconds: z.number() }).meta({ id: 'Health' });
export const readyBody = z
  .object({ status: z.enum(['ready', 'degraded']), reason: z.string().optional().meta({ description: 'why the node is degraded' }) })
  .meta({ id: 'Ready' });

const actorState = z.string().meta({ description: 'the state value, nested states joined with dots: open.live' });
export const actorSnapshot = z
  .object({
    id: z.string(),
    kind: z.string().meta({ description: 'router, connection, and the kinds Butler and the connector add' }),
    state: actorState,
    status: z.enum(['active', 'done', 'error', 'stopped']),
    context: z.record(z.string(), z.unknown()).meta({ description: 'what the actor holds, without secrets' }),
  })
  .meta({ id: 'ActorSnapshot' });

const counts = z.record(z.string(), z.number().int());
export const actorsSummary = z
  .object({
    router: z.object({
      id: z.literal('router'),
      state: actorState,
      status: z.string(),
      endpoints: z.number().int(),
      users: z.number().int(),
      by_role: counts,
      multi_socket_users: counts.meta({ description: 'user id → open sockets, for users with more than one' }),
      delivered: z.number().int(),
    }),
    connections: z.object({
      total: z.number().int(),
      by_state: counts,
      by_role: counts,
      by_state_and_role: z.record(z.string(), counts),
      items: z.array(z.object({ id: z.string(), state: actorState, user_id: id.nullable(), username: z.string().nullable(), role: z.string() })),
    }),
  })
  .catchall(z.record(z.string(), z.unknown()))
  .meta({ id: 'ActorsSummary', description: 'one section per part of the actor system; Butler and the connector add theirs' });
