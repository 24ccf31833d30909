// The typed hub client, for agents and for humans' dashboards (wire.md §5). It keeps one socket open
// (reconnecting with backoff and resuming with `since`, so nothing is missed or seen twice), gives
// every frame it sends a local_id and sends it again until the hub confirms it, validates every
// frame it receives with the protocol's zod schemas, and answers Butler's directives.
// Browser-safe: no Node imports; the WebSocket is the platform's (or `ws` on Node 20).
import { createActor, fromPromise, type SnapshotFrom } from 'xstate';
import { clientFrame, isChatType, isTelemetryType, type ClientFrame } from '../protocol/frames.js';
import type { LogLevel } from '../protocol/messages.js';
import type { ReportPayloads, ReportType } from '../protocol/reports.js';
import { serverFrame, ServerFrameTypes, type ChatFrameIn, type FrameOf, type ServerFrame, type ServerFrameType } from '../protocol/serverFrames.js';
import { formatZodError } from '../protocol/validation.js';
import { clientConnectionMachine, type ConnectionState, type ProbeResult, type ReconnectOptions } from './connectionMachine.js';
import { describeCredential, type CredentialInfo } from './credential.js';
import { Outbox, type Receipt } from './outbox.js';
import { createRestClient, HubRequestError, type RestClient } from './rest.js';
import { StreamWriter } from './stream.js';
import { defaultWebSocket, frameText, httpBase, OPEN, socketUrl, type SocketConstructor, type SocketLike } from './transport.js';

export const DIRECTIVE_PREFIX = '[DIRECTIVE]';

export interface HubClientOptions {
  /** The hub's address: `http://host:8080` (or its `ws://` form). */
  url: string;
  /** A human's JWT or an agent's api_token; a function is asked again on every (re)connect. */
  token: string | (() => string | Promise<string>);
  /** Resume after this message id on the first connect (a cursor the application kept). */
  since?: number;
  /** Reconnect after the hub closes or drops the connection (default on); `false` stops instead. */
  reconnect?: Partial<ReconnectOptions> | false;
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

/** What the client reports about its connection: the state and one readable line. */
export interface StatusEvent {
  state: ConnectionState;
  message: string;
  /** Failed attempts since the last healthy connection. */
  attempt: number;
}

export interface Directive {
  /** The text after `[DIRECTIVE]`. */
  command: string;
  frame: ChatFrameIn;
}

export type ClientEvents = { [K in ServerFrameType]: FrameOf<K> } & {
  /** Every valid frame, whatever its type. */
  frame: ServerFrame;
  status: StatusEvent;
  /** Something the client ignored or could not do, in one readable line (unknown frames, failed handlers). */
  warning: string;
};

/** What `send` takes: a client frame without its local_id (one is assigned) — or with one of your own. */
export type OutgoingFrame = ClientFrame extends infer F ? (F extends ClientFrame ? Omit<F, 'local_id'> & { local_id?: string } : never) : never;

/** The hub refused a frame (ERROR naming its local_id), or the client refused to send it. */
export class FrameRefusedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'FrameRefusedError';
  }
}

/** The client stopped before the frame was confirmed; the line says why. */
export class ClientStoppedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientStoppedError';
  }
}

const DEFAULT_RECONNECT: ReconnectOptions = { initialDelayMs: 500, maxDelayMs: 30_000, stableAfterMs: 10_000 };
const DEFAULT_MAX_FRAME = 1 << 20;

export function isDirective(frame: ServerFrame): frame is ChatFrameIn {
  return frame.type === 'CHAT' && frame.sender_role === 'BUTLER' && frame.payload.startsWith(DIRECTIVE_PREFIX);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return errorText(err);
}

type Actor = ReturnType<typeof createActor<typeof clientConnectionMachine>>;

export class HubClient {
  readonly rest: RestClient;
  /** Who this client is, as far as its credential tells (a JWT names the user; a token does not). */
  private who: CredentialInfo;
  private readonly base: string;
  private readonly actor: Actor;
  private readonly outbox: Outbox;
  private readonly handlers = new Map<keyof ClientEvents, Set<(event: never) => void>>();
  private readonly ackTimeoutMs: number;
  private readonly maxFrameBytes: number;
  private readonly localPrefix = `${globalThis.crypto.randomUUID().slice(0, 13)}-`;
  private localCounter = 0;
  private socket: SocketLike | undefined;
  private generation = 0;
  private resendTimer: ReturnType<typeof setInterval> | undefined;
  /** Between the machine entering `open` and the socket's close (the snapshot lags inside actions). */
  private live = false;
  /** The newest message id received (and the type of that frame: a monitor copy shares its CHAT's id). */
  private cursor: number | undefined;
  private cursorType: string | undefined;
  /** This connection replays from `since`: the hub may answer with ACKs ahead of replayed frames. */
  private resuming = false;
  private chatHandlers = new Set<(frame: ChatFrameIn) => unknown>();
  private directiveHandler: ((directive: Directive) => string | Promise<string>) | undefined;
  private opened: { promise: Promise<void>; resolve(): void; reject(err: Error): void } | undefined;
  private stoppedPromise: Promise<void>;
  private markStopped!: () => void;

  constructor(private readonly options: HubClientOptions) {
    this.base = httpBase(options.url);
    // A token function is read at connect time; until then, assume a human session (the usual reason for one).
    this.who = typeof options.token === 'string' ? describeCredential(options.token) : { kind: 'human' };
    this.rest = createRestClient({ url: this.base, token: options.token, fetch: options.fetch });
    this.outbox = new Outbox(options.maxQueued ?? 10_000);
    this.ackTimeoutMs = options.ackTimeoutMs ?? 10_000;
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME;
    this.cursor = options.since;
    this.stoppedPromise = new Promise((resolve) => (this.markStopped = resolve));
    const reconnect = options.reconnect === false ? false : { ...DEFAULT_RECONNECT, ...options.reconnect };
    const machine = clientConnectionMachine.provide({
      actors: { probe: fromPromise(() => this.probe()) },
      actions: {
        openSocket: () => void this.openSocket(),
        closeSocket: () => this.closeSocket(),
        opened: () => this.onOpened(),
        stopped: ({ context }) => this.onStopped(context.stopReason ?? context.status),
      },
    });
    this.actor = createActor(machine, { input: { reconnect, refreshable: typeof options.token === 'function', random: options.random } });
    let reported = '';
    this.actor.subscribe({
      next: (snapshot) => {
        // One status event per change of state or of its explanation.
        const key = `${String(snapshot.value)}\u0000${snapshot.context.status}`;
        if (key === reported) return;
        reported = key;
        this.emit('status', { state: snapshot.value as ConnectionState, message: snapshot.context.status, attempt: snapshot.context.attempt });
      },
      error: (err) => this.emit('warning', `the connection machine failed: ${errorText(err)}`),
    });
    this.actor.start();
  }

  get identity(): CredentialInfo {
    return this.who;
  }

  get state(): ConnectionState {
    return this.actor.getSnapshot().value as ConnectionState;
  }

  /** The connection machine's snapshot (for inspection). */
  get snapshot(): SnapshotFrom<typeof clientConnectionMachine> {
    return this.actor.getSnapshot();
  }

  /** The newest message id this client received: keep it to resume from there (`since`) next time. */
  get lastId(): number | undefined {
    return this.cursor;
  }

  /** Frames waiting for the connection or for the hub's answer. */
  get pending(): number {
    return this.outbox.size;
  }

  /** Connects; resolves once the socket is open, rejects when the client stops before that (a refused token). */
  connect(): Promise<void> {
    if (!this.opened) {
      let resolve!: () => void;
      let reject!: (err: Error) => void;
      const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      promise.catch(() => undefined);
      this.opened = { promise, resolve, reject };
      this.actor.send({ type: 'CONNECT' });
    }
    return this.opened.promise;
  }

  /** Closes for good; frames not yet confirmed fail with ClientStoppedError. */
  close(): Promise<void> {
    this.actor.send({ type: 'CLOSE' });
    return this.stoppedPromise;
  }

  /** Resolves when the client has stopped (closed by you, or for a reason of the hub's). */
  stopped(): Promise<void> {
    return this.stoppedPromise;
  }

  on<K extends keyof ClientEvents>(type: K, handler: (event: ClientEvents[K]) => unknown): () => void {
    // A handler's failure is reported, never thrown into the socket's callback or the other handlers.
    const safe = (event: ClientEvents[K]) => this.guard(`a ${String(type)} handler`, () => handler(event));
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    set.add(safe);
    return () => set.delete(safe);
  }

  /** CHAT frames addressed to this client (not its own echoes; not directives when a directive handler is set). */
  onChat(handler: (frame: ChatFrameIn) => unknown): () => void {
    this.chatHandlers.add(handler);
    return () => this.chatHandlers.delete(handler);
  }

  /** Answers Butler's `[DIRECTIVE] <command>` CHATs: the handler's text goes back to Butler with the directive's stream_id. */
  onDirective(handler: (directive: Directive) => string | Promise<string>): () => void {
    this.directiveHandler = handler;
    return () => {
      if (this.directiveHandler === handler) this.directiveHandler = undefined;
    };
  }

  /**
   * Sends a frame; resolves when the hub confirms it (stored types) or once it is written (stream
   * chunks, AUTH_RESPONSE). Rejects with FrameRefusedError when the hub or the client refuses it.
   */
  send(frame: OutgoingFrame): Promise<Receipt> {
    if (this.state === 'stopped' || this.state === 'closing') return Promise.reject(new ClientStoppedError('the client is closed'));
    const withId = { ...frame, local_id: frame.local_id ?? this.nextLocalId() };
    const parsed = clientFrame.safeParse(withId);
    if (!parsed.success) return Promise.reject(new FrameRefusedError('invalid_payload', formatZodError(parsed.error, withId)));
    const text = JSON.stringify(withId);
    const bytes = text.length * 3 <= this.maxFrameBytes ? text.length : new TextEncoder().encode(text).byteLength;
    if (bytes > this.maxFrameBytes) return Promise.reject(new FrameRefusedError('frame_too_large', `frame is ${bytes} bytes; the limit is ${this.maxFrameBytes}`));
    const receipt = this.outbox.add(withId.local_id, text, this.expectsAnswer(parsed.data));
    this.flush();
    return receipt;
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
    return new StreamWriter(this, { ...target, stream_id: options.stream_id ?? `stream-${this.nextLocalId()}` });
  }

  /** A SYSTEM_LOG line for the dashboards. */
  log(level: LogLevel, content: string): Promise<Receipt> {
    return this.send({ type: 'SYSTEM_LOG', payload: { level, content } });
  }

  /** A WEATHER_UPDATE, CODE_REVIEW or SECURITY_ALERT, to the dashboards or to one user. */
  report<T extends ReportType>(type: T, payload: ReportPayloads[T] | string, options: { target_id?: number } = {}): Promise<Receipt> {
    return this.send({ type, payload, ...options } as OutgoingFrame);
  }

  /** A human's answer to Butler's AUTH_REQUEST. */
  answerAuthorization(actionId: string, approved: boolean): Promise<Receipt> {
    return this.send({ type: 'AUTH_RESPONSE', payload: { action_id: actionId, approved } });
  }

  // ---- connection effects ----

  private async openSocket(): Promise<void> {
    const generation = ++this.generation;
    const fail = (reason: string) => {
      if (generation === this.generation) this.actor.send({ type: 'CLOSED', code: 1006, reason });
    };
    let socket: SocketLike;
    try {
      const token = typeof this.options.token === 'function' ? await this.options.token() : this.options.token;
      const Socket = this.options.WebSocket ?? (await defaultWebSocket());
      if (generation !== this.generation) return; // closed while the token or the WebSocket class was fetched
      this.who = describeCredential(token);
      this.resuming = this.cursor !== undefined;
      socket = new Socket(socketUrl(this.base, token, this.cursor));
    } catch (err) {
      fail(errorText(err));
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      if (generation === this.generation) this.actor.send({ type: 'OPENED' });
    };
    socket.onmessage = (event) => {
      if (generation === this.generation) this.receive(event.data);
    };
    socket.onerror = () => undefined; // a close event follows with the code
    socket.onclose = (event) => {
      if (generation !== this.generation) return;
      this.socket = undefined;
      this.stopResending();
      this.outbox.connectionLost();
      this.actor.send({ type: 'CLOSED', code: event.code, reason: event.reason });
    };
  }

  private closeSocket(): void {
    if (this.socket) return this.socket.close(1000, 'client closing');
    // No socket yet: the one being made is dropped when it arrives.
    this.generation++;
    queueMicrotask(() => this.actor.send({ type: 'CLOSED', code: 1000, reason: 'client closing' }));
  }

  private onOpened(): void {
    this.live = true;
    this.flush();
    this.resendTimer = setInterval(() => this.flush(this.ackTimeoutMs), Math.max(50, this.ackTimeoutMs / 2));
    // Node: the open socket keeps the process alive, not this timer.
    (this.resendTimer as { unref?: () => void }).unref?.();
    this.opened?.resolve();
  }

  private onStopped(reason: string): void {
    this.generation++;
    this.stopResending();
    if (this.socket) {
      this.socket.close(1000, 'client closing');
      this.socket = undefined;
    }
    const error = new ClientStoppedError(reason);
    this.outbox.failAll(error);
    this.opened?.reject(error);
    this.markStopped();
  }

  private stopResending(): void {
    this.live = false;
    clearInterval(this.resendTimer);
    this.resendTimer = undefined;
  }

  private async probe(): Promise<ProbeResult> {
    try {
      await this.rest.agents.butler();
      return { verdict: 'retry', message: `the hub at ${this.base} accepts the credential but the WebSocket did not open` };
    } catch (err) {
      if (err instanceof HubRequestError) {
        if (err.status === 401) return { verdict: 'refused', message: `the hub refused the token (${err.message})` };
        return { verdict: 'retry', message: `the hub answered ${err.status} (${err.message})` };
      }
      return { verdict: 'unreachable', message: `the hub at ${this.base} is unreachable (${networkCause(err)})` };
    }
  }

  /** Writes what the outbox holds due; with `resendAfterMs`, also frames unanswered that long. */
  private flush(resendAfterMs?: number): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN || !this.live) return;
    this.outbox.flush(
      (text) => {
        try {
          socket.send(text);
          return true;
        } catch {
          return false; // closing under us: the close event requeues it
        }
      },
      Date.now(),
      resendAfterMs,
    );
  }

  // ---- incoming frames ----

  private receive(data: unknown): void {
    const text = frameText(data);
    if (text === undefined) return this.emit('warning', 'ignored a binary frame from the hub');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.emit('warning', `ignored a frame that is not JSON: ${text.slice(0, 80)}`);
    }
    const parsed = serverFrame.safeParse(value);
    if (!parsed.success) return this.ignore(value, parsed.error);
    const frame = parsed.data;
    switch (frame.type) {
      case 'ACK':
        this.outbox.confirm(frame.local_id, { local_id: frame.local_id, id: frame.id, timestamp: frame.timestamp });
        // Without a replay the hub sends every earlier frame for us before an ACK: its id is a safe cursor.
        if (!this.resuming) this.advance(frame.id, 'ACK');
        break;
      case 'ERROR':
        this.refused(frame);
        break;
      default:
        if (!this.accept(frame)) return;
    }
    this.emit(frame.type, frame as never);
    this.emit('frame', frame);
    if (frame.type === 'CHAT') this.dispatchChat(frame);
  }

  /** Confirms our own echoed frame; drops a frame already seen; moves the cursor. */
  private accept(frame: Exclude<ServerFrame, { type: 'ACK' | 'ERROR' }>): boolean {
    const own = this.who.userId === undefined || frame.sender_id === this.who.userId;
    if (frame.local_id !== undefined && frame.id !== undefined && own) {
      this.outbox.confirm(frame.local_id, { local_id: frame.local_id, id: frame.id, timestamp: frame.timestamp });
    }
    if (frame.id === undefined) return true;
    if (this.cursor !== undefined && (frame.id < this.cursor || (frame.id === this.cursor && frame.type === this.cursorType))) return false;
    this.advance(frame.id, frame.type);
    return true;
  }

  private advance(id: number, type: string): void {
    if (this.cursor === undefined || id > this.cursor) {
      this.cursor = id;
      this.cursorType = type;
    }
  }

  private refused(frame: FrameOf<'ERROR'>): void {
    const { code, message } = frame.payload;
    // `unavailable`: the hub could not store it; it stays queued and goes again after the ack timeout.
    if (frame.local_id !== undefined && code !== 'unavailable' && this.outbox.refuse(frame.local_id, new FrameRefusedError(code, message))) return;
    this.emit('warning', `the hub refused a frame${frame.local_id ? ` (${frame.local_id})` : ''}: ${code}: ${message}`);
  }

  private ignore(value: unknown, error: Parameters<typeof formatZodError>[0]): void {
    const type = (value as { type?: unknown } | null)?.type;
    const id = (value as { id?: unknown } | null)?.id;
    // A stored frame we cannot read still moves the cursor: resuming must not ask for it forever.
    if (typeof id === 'number' && Number.isSafeInteger(id) && type !== 'ACK') this.advance(id, String(type));
    if (typeof type === 'string' && !(ServerFrameTypes as readonly string[]).includes(type)) {
      this.emit('warning', `ignored a frame of unknown type "${type.slice(0, 64)}"`);
    } else {
      this.emit('warning', `ignored a ${typeof type === 'string' ? type : 'typeless'} frame that does not match the protocol: ${formatZodError(error, value)}`);
    }
  }

  private dispatchChat(frame: ChatFrameIn): void {
    if (this.who.userId !== undefined && frame.sender_id === this.who.userId) return;
    const directive = this.directiveHandler;
    if (directive && isDirective(frame)) {
      void this.answerDirective(directive, frame);
      return;
    }
    for (const handler of this.chatHandlers) this.guard('a chat handler', () => handler(frame));
  }

  private async answerDirective(handler: (directive: Directive) => string | Promise<string>, frame: ChatFrameIn): Promise<void> {
    const command = frame.payload.slice(DIRECTIVE_PREFIX.length).trim();
    let answer: string;
    try {
      answer = await handler({ command, frame });
    } catch (err) {
      // Butler always gets an answer, also when the work failed.
      answer = `directive failed: ${errorText(err)}`;
      this.emit('warning', `the directive "${command.slice(0, 80)}" failed: ${errorText(err)}`);
    }
    await this.reply(frame, answer).catch((err: unknown) => this.emit('warning', `could not answer the directive: ${errorText(err)}`));
  }

  // ---- helpers ----

  private expectsAnswer(frame: ClientFrame): boolean {
    const stored = frame.type === 'CHAT' || isTelemetryType(frame.type);
    if (!stored) return false;
    if (this.who.kind === 'machine') return true;
    // A human is answered with the echo of the frame, which a targeted report does not get.
    return isChatType(frame.type) || frame.target_id === undefined || frame.target_id === this.who.userId;
  }

  private nextLocalId(): string {
    return `${this.localPrefix}${++this.localCounter}`;
  }

  private emit<K extends keyof ClientEvents>(type: K, event: ClientEvents[K]): void {
    const set = this.handlers.get(type) as Set<(event: ClientEvents[K]) => void> | undefined;
    if (set) for (const handler of [...set]) handler(event);
  }

  private guard(what: string, run: () => unknown): void {
    try {
      const result = run();
      if (result instanceof Promise) result.catch((err: unknown) => this.reportHandlerError(what, err));
    } catch (err) {
      this.reportHandlerError(what, err);
    }
  }

  private reportHandlerError(what: string, err: unknown): void {
    // A failing warning handler must not recurse.
    if (what.includes('warning')) return;
    this.emit('warning', `${what} failed: ${errorText(err)}`);
  }
}

export function createHubClient(options: HubClientOptions): HubClient {
  return new HubClient(options);
}
