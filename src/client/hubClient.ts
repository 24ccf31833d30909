// The typed hub client, for agents and for humans' dashboards (wire.md §5). It keeps one socket open
// (reconnecting with backoff and resuming with `since`, so nothing is missed or seen twice), gives
// every frame it sends a local_id and sends it again until the hub confirms it, validates every
// frame it receives with the protocol's zod schemas, and answers Butler's directives. This class puts
// the parts together: connection.ts (the socket), outbound.ts (sending), inbound.ts (receiving),
// listeners.ts (typed events), chatDispatch.ts (chat and directive handlers), incomingStreams.ts
// (streams cut by a dropped connection).
// Browser-safe: no Node imports; the WebSocket is the platform's (Node 22+ and browsers have one).
import type { SnapshotFrom } from 'xstate';
import type { LogLevel } from '../protocol/messages.js';
import type { ReportType } from '../protocol/messages.js';
import type { ReportPayloads } from '../protocol/reports.js';
import type { ChatFrameIn } from '../protocol/serverFrames.js';
import { ChatDispatch, type Directive } from './chatDispatch.js';
import { Connection } from './connection.js';
import type { clientConnectionMachine, ConnectionState, ReconnectOptions } from './connectionMachine.js';
import { describeCredential, type CredentialInfo } from './credential.js';
import { ResumeCursor } from './cursor.js';
import { Inbound } from './inbound.js';
import { IncomingStreams } from './incomingStreams.js';
import { Listeners, type ClientEvents } from './listeners.js';
import { Outbound, type OutgoingFrame } from './outbound.js';
import { Outbox, type Receipt } from './outbox.js';
import { probeHub } from './probe.js';
import { createRestClient, type RestClient } from './rest.js';
import { StreamWriter } from './stream.js';
import { httpBase, type SocketConstructor } from './transport.js';

export interface HubClientOptions {
  /** The hub's address: `http://host:8080` (or its `ws://` form). */
  url: string;
  /** A human's JWT or an agent's api_token; a function is asked again on every (re)connect. */
  token: string | (() => string | Promise<string>);
  /** Resume after this message id on the first connect (a cursor the application kept). */
  since?: number;
  /**
   * `batched`: the hub sends PRESENCE changes as one PRESENCE_BATCH frame every 250 ms (the latest per
   * agent), and this client hands its PRESENCE frames to listeners one by one as before. For a
   * dashboard watching many agents; unset, one PRESENCE frame per change.
   */
  presence?: 'batched';
  /**
   * Reconnect after the hub closes or drops the connection (default on; waits of 0.5 s doubling up to
   * 5 s, each a random part of that, so a restarted hub's agents come back within seconds and not all
   * at once); `false` stops instead.
   */
  reconnect?: Partial<ReconnectOptions> | false;
  /** An opening handshake that takes longer is given up and retried (default 10 s). */
  openTimeoutMs?: number;
  /** Send an unconfirmed frame again after this long (default 10 s); the hub stores it once. */
  ackTimeoutMs?: number;
  /** Frames that may wait for the connection or for their answer (default 10 000). */
  maxQueued?: number;
  /** Largest frame this client sends (default 1 MiB, the hub's default WS_MAX_FRAME_BYTES). */
  maxFrameBytes?: number;
  WebSocket?: SocketConstructor;
  fetch?: typeof fetch;
  random?: () => number;
}

export const DEFAULT_RECONNECT: ReconnectOptions = { initialDelayMs: 500, maxDelayMs: 5_000, stableAfterMs: 10_000 };
const DEFAULT_MAX_FRAME = 1 << 20;

export class HubClient {
  readonly rest: RestClient;
  /** Who this client is, as far as its credential tells (a JWT names the user; a token does not). */
  private who: CredentialInfo;
  private readonly outbox: Outbox;
  private readonly cursor: ResumeCursor;
  private readonly listeners = new Listeners();
  private readonly chat: ChatDispatch;
  private readonly outbound: Outbound;
  private readonly connection: Connection;

  constructor(options: HubClientOptions) {
    const base = httpBase(options.url);
    // A token function is read at connect time; until then, assume a human session (the usual reason for one).
    this.who = typeof options.token === 'string' ? describeCredential(options.token) : { kind: 'human' };
    this.rest = createRestClient({ url: base, token: options.token, fetch: options.fetch });
    this.outbox = new Outbox(options.maxQueued ?? 10_000);
    this.cursor = new ResumeCursor(options.since);
    const identity = () => this.who;
    this.chat = new ChatDispatch({ listeners: this.listeners, self: () => this.who.userId, reply: (to, text) => this.reply(to, text) });
    this.outbound = new Outbound({
      outbox: this.outbox,
      maxFrameBytes: options.maxFrameBytes ?? DEFAULT_MAX_FRAME,
      identity,
      closed: () => this.state === 'stopped' || this.state === 'closing',
      flush: () => this.connection.flush(),
    });
    const streams = new IncomingStreams(this.listeners);
    const inbound = new Inbound({ outbox: this.outbox, cursor: this.cursor, listeners: this.listeners, chat: this.chat, streams, identity });
    this.connection = new Connection({
      base,
      token: options.token,
      reconnect: options.reconnect === false ? false : { ...DEFAULT_RECONNECT, ...options.reconnect },
      openTimeoutMs: options.openTimeoutMs,
      ackTimeoutMs: options.ackTimeoutMs ?? 10_000,
      WebSocket: options.WebSocket,
      random: options.random,
      outbox: this.outbox,
      listeners: this.listeners,
      probe: (upgrade) => probeHub(this.rest, base, upgrade),
      credential: (token) => (this.who = describeCredential(token)),
      resumeFrom: () => this.cursor.connecting(),
      presenceBatched: options.presence === 'batched',
      received: (data) => inbound.receive(data),
      dropped: () => streams.dropped(),
    });
  }

  get identity(): CredentialInfo {
    return this.who;
  }

  get state(): ConnectionState {
    return this.connection.state;
  }

  /** The connection machine's snapshot (for inspection). */
  get snapshot(): SnapshotFrom<typeof clientConnectionMachine> {
    return this.connection.snapshot;
  }

  /** The newest message id this client received: keep it to resume from there (`since`) next time. */
  get lastId(): number | undefined {
    return this.cursor.lastId;
  }

  /** Frames waiting for the connection or for the hub's answer. */
  get pending(): number {
    return this.outbox.size;
  }

  /** Connects; resolves once the socket is open, rejects when the client stops before that (a refused token). */
  connect(): Promise<void> {
    return this.connection.connect();
  }

  /** Closes for good; frames not yet confirmed fail with ClientStoppedError. */
  close(): Promise<void> {
    return this.connection.close();
  }

  /** Resolves when the client has stopped (closed by you, or for a reason of the hub's). */
  stopped(): Promise<void> {
    return this.connection.stopped();
  }

  /** A handler's failure is reported as a `warning`, never thrown into the socket's callback or the other handlers. */
  on<K extends keyof ClientEvents>(type: K, handler: (event: ClientEvents[K]) => unknown): () => void {
    return this.listeners.on(type, handler);
  }

  /** CHAT frames addressed to this client (not its own echoes; not directives when a directive handler is set). */
  onChat(handler: (frame: ChatFrameIn) => unknown): () => void {
    return this.chat.onChat(handler);
  }

  /** Answers Butler's `[DIRECTIVE] <command>` CHATs: the handler's text goes back to Butler with the directive's stream_id. */
  onDirective(handler: (directive: Directive) => string | Promise<string>): () => void {
    return this.chat.onDirective(handler);
  }

  /**
   * Sends a frame; resolves when the hub confirms it (stored types) or once it is written (stream
   * chunks, AUTH_RESPONSE). Rejects with FrameRefusedError when the hub or the client refuses it.
   */
  send(frame: OutgoingFrame): Promise<Receipt> {
    return this.outbound.send(frame);
  }

  /** Answers a CHAT: to its sender, in its conversation; to Butler with Butler's stream_id. */
  reply(to: ChatFrameIn, text: string): Promise<Receipt> {
    const frame: OutgoingFrame = { type: 'CHAT', payload: text, target_id: to.sender_id };
    if (to.conversation_id !== undefined) frame.conversation_id = to.conversation_id;
    if (to.sender_role === 'BUTLER' && to.stream_id !== undefined) frame.stream_id = to.stream_id;
    return this.send(frame);
  }

  /** Starts a streamed reply to a user (or in answer to their CHAT). */
  stream(to: number | ChatFrameIn, options: { stream_id?: string } = {}): StreamWriter {
    const target = typeof to === 'number' ? { target_id: to } : { target_id: to.sender_id, conversation_id: to.conversation_id };
    return new StreamWriter(this, { ...target, stream_id: options.stream_id ?? `stream-${this.outbound.nextLocalId()}` });
  }

  /** A SYSTEM_LOG line for the dashboards. */
  log(level: LogLevel, content: string): Promise<Receipt> {
    return this.send({ type: 'SYSTEM_LOG', payload: { level, content } });
  }

  /** A WEATHER_UPDATE, CODE_REVIEW or SECURITY_ALERT, to the dashboards or to one user. */
  report<T extends ReportType>(type: T, payload: ReportPayloads[T] | string, options: { target_id?: number } = {}): Promise<Receipt> {
    return this.send({ type, payload, ...options } as OutgoingFrame);
  }

  /** A human's answer to Butler's AUTH_REQUEST; `note` (why, at most 2000 characters) is stored with it. */
  answerAuthorization(actionId: string, approved: boolean, note?: string): Promise<Receipt> {
    return this.send({ type: 'AUTH_RESPONSE', payload: note === undefined ? { action_id: actionId, approved } : { action_id: actionId, approved, note } });
  }
}

export function createHubClient(options: HubClientOptions): HubClient {
  return new HubClient(options);
}
