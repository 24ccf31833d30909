// The delivery core's vocabulary: who sends (Principal), what they send (MessageInput), who hears
// back (Origin), who receives (Audience, Endpoint) and what travels to them (Delivery). Everything
// that delivers or is delivered to (ws, the router, Butler, the connector) speaks these types; this
// module imports only protocol and store.
import type { HubError } from '../errors.js';
import type { MessageFrame } from '../protocol/frames.js';
import type { Role } from '../protocol/roles.js';
import type { MessageInsert, StoredMessage } from '../store/batchWriter.js';

/** A user as routing knows them: id, name and role (cached by the directory). */
export interface Principal {
  readonly id: number;
  readonly username: string;
  readonly role: Role;
}

/** A message as it enters the pipeline, from a socket, an HTTP call or the hub itself. */
export interface MessageInput {
  type: string;
  payload: unknown;
  target_id?: number;
  conversation_id?: number;
  local_id?: string;
  stream_id?: string;
  /** A record only (dev mock inserts): delivered to sockets, but Butler does not act on it. */
  recordOnly?: boolean;
  /**
   * Posted by someone else in the sender's name (an admin's `POST /api/messages` with `agent_id`):
   * the report still becomes the agent's last_report, but the agent was not seen, so its
   * last_seen_at (the last time it was connected) stays as it was.
   */
  onBehalf?: boolean;
}

/**
 * A message as the pipeline carries it: the stored columns (target, conversation, the searchable
 * `level` and `content`) with the payload as sent; `id` once it is stored.
 */
export interface Message extends Omit<MessageInsert, 'payload'> {
  id?: number;
  payload: unknown;
}

/** What an accepted message became. */
export interface Accepted {
  frame: MessageFrame;
  /** The frame as sent to recipients (serialised once). */
  text: string;
  /** The message as resolved and stored (its row's columns), for callers that answer with a view of it. */
  message: Message;
  /** Set when the message is stored; `duplicate` when its local_id was seen before. */
  stored?: StoredMessage;
}

/** Who hears back about a message: the sending socket (ACK/echo/ERROR) or an HTTP caller. */
export interface Origin {
  accepted(result: Accepted): void;
  rejected(error: HubError, input: MessageInput): void;
}

/** The fields of a message that decide who receives it. */
export interface Routable {
  type: string;
  sender_id: number;
  sender_role: string;
  target_id: number | null;
  target_role: string | null;
}

/** Who receives a message: the routing rules of wire.md §5 as data. */
export interface Audience {
  /** Every socket of this user. */
  target?: number;
  /** The sender's own sockets too: a human's chat comes back with its id (the dashboards' echo). */
  echo: boolean;
  /** Untargeted: chat to every socket, telemetry to human sockets only. */
  broadcast?: 'everyone' | 'humans';
  /** Broadcast chat never returns to a machine sender. */
  exceptSender: boolean;
  /** A BUTLER_AGENT_MESSAGE copy goes to admins (CHAT between Butler and an agent). */
  monitor: boolean;
}

/** One frame of a committed batch on its way to the address table. */
export interface Delivery {
  /** The frame's type (what the metrics count it as). */
  type: string;
  /** The serialised frame. */
  text: string;
  /** The message frame `text` serialises (absent for PRESENCE): what an in-hub endpoint reads. */
  frame?: MessageFrame;
  audience: Audience;
  senderId: number;
  /** Stored id, when the frame has one. */
  id?: number;
  /** The BUTLER_AGENT_MESSAGE copy for admins, when `audience.monitor`. */
  monitorText?: string;
  /** Only sockets receive it: an in-hub endpoint (Butler) does not act on records. */
  socketsOnly?: boolean;
}

/** Something the router can deliver to: one socket of a user, or an agent inside the hub. */
export interface Endpoint {
  /** Unique per endpoint for the life of the hub. */
  readonly key: number;
  readonly user: Principal;
  /**
   * An agent inside the hub (Butler): it receives only frames addressed to its user, never
   * broadcasts or dev-mock records, and is not counted as a socket.
   */
  readonly inHub?: boolean;
  /** When its credential was checked (epoch ms); a revocation after that must still reach it. */
  readonly authenticatedAt?: number;
  /**
   * Sends one serialised frame; `id` is the stored id when the frame has one (resume uses it).
   * `frame` is the message frame `text` serialises (never given for PRESENCE or monitor copies):
   * an endpoint inside the hub reads it and never parses `text`; a socket sends `text`.
   */
  deliver(text: string, id?: number, frame?: MessageFrame): void;
  /**
   * Present on a socket that takes PRESENCE in batches: the router hands it each PRESENCE (with the
   * agent's id) here instead of to `deliver`.
   */
  deliverPresence?(agentId: number, text: string): void;
  /** Asks the endpoint to close (revocation, role change, shutdown). */
  close(code: number, reason: string): void;
}

/** The socket side that resume writes to, at the reader's pace. */
export interface ReplayOutlet {
  /** Sends now, bypassing the hold of a replay; false when the socket is gone or was cut off. */
  send(text: string): boolean;
  /** True while the outbound buffer is too full to add more without waiting. */
  readonly congested: boolean;
  /** Resolves when the socket's outbound buffer has room again (or it closed). */
  whenWritable(): Promise<void>;
  readonly closed: boolean;
}

/** What the router and the resume replay report for frames they hand to sockets. */
export interface DeliveryMeter {
  /** `frames` copies of `text`, a frame of `type`, went to sockets. */
  sent(type: string, frames: number, text: string): void;
}

/** Presence as the router sees it: a user's first endpoint opened, or its last one closed. */
export interface PresencePort {
  /** `key` is the endpoint that opened (cluster mode matches it to the socket's admission). */
  online(user: Principal, key: number): void;
  offline(user: Principal): void;
}
