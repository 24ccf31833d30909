// The client's socket and its lifecycle, driven by the connection machine (connectionMachine.ts):
// opening a socket for the current credential and resume cursor, writing what the outbox holds due
// while the socket is open (and again what stays unanswered past the ack timeout), and stopping.
// Only the newest socket's events count: one being opened or closed when a newer one exists is dropped.
// A refused upgrade's answer, where the socket lets it be read, goes with its close to the machine.
import { createActor, fromPromise, type SnapshotFrom } from 'xstate';
import type { HttpAnswer } from './answers.js';
import { ClientStoppedError, errorText } from './clientErrors.js';
import { clientConnectionMachine, type ConnectionState, type ProbeResult, type ReconnectOptions } from './connectionMachine.js';
import type { Listeners } from './listeners.js';
import type { Outbox } from './outbox.js';
import { defaultWebSocket, onRefusedUpgrade, OPEN, socketUrl, type SocketConstructor, type SocketLike } from './transport.js';

export interface ConnectionOptions {
  /** The hub's base URL over HTTP. */
  base: string;
  token: string | (() => string | Promise<string>);
  reconnect: ReconnectOptions | false;
  /** An opening handshake that takes longer is given up and retried. */
  openTimeoutMs?: number;
  /** Unanswered frames go again after this long. */
  ackTimeoutMs: number;
  WebSocket?: SocketConstructor;
  random?: () => number;
  outbox: Outbox;
  listeners: Listeners;
  /** Asks the hub over HTTP why a socket did not open; `upgrade` is the upgrade's answer, when it was read. */
  probe(upgrade?: HttpAnswer): Promise<ProbeResult>;
  /** The credential a connection uses, once a token function has answered. */
  credential(token: string): void;
  /** Where a new connection resumes (`since`), if anywhere. */
  resumeFrom(): number | undefined;
  /** Ask the hub for PRESENCE in batches (`presence=batched`). */
  presenceBatched?: boolean;
  /** A message event of the current socket. */
  received(data: unknown): void;
  /** The open socket closed without the client closing it (what streamed on it may never end). */
  dropped(): void;
}

type Actor = ReturnType<typeof createActor<typeof clientConnectionMachine>>;

export class Connection {
  private readonly actor: Actor;
  private socket: SocketLike | undefined;
  private generation = 0;
  private resendTimer: ReturnType<typeof setInterval> | undefined;
  /** Between the machine entering `open` and the socket's close (the snapshot lags inside actions). */
  private live = false;
  private opened: { promise: Promise<void>; resolve(): void; reject(err: Error): void } | undefined;
  private readonly stoppedPromise: Promise<void>;
  private markStopped!: () => void;

  constructor(private readonly options: ConnectionOptions) {
    this.stoppedPromise = new Promise((resolve) => (this.markStopped = resolve));
    const machine = clientConnectionMachine.provide({
      actors: { probe: fromPromise<ProbeResult, { upgrade?: HttpAnswer }>(({ input }) => options.probe(input.upgrade)) },
      actions: {
        openSocket: () => void this.openSocket(),
        closeSocket: () => this.closeSocket(),
        abandonSocket: () => this.abandonSocket(),
        opened: () => this.onOpened(),
        stopped: ({ context }) => this.onStopped(context.stopReason ?? context.status),
      },
    });
    this.actor = createActor(machine, {
      input: { reconnect: options.reconnect, openTimeoutMs: options.openTimeoutMs, refreshable: typeof options.token === 'function', random: options.random },
    });
    const { listeners } = options;
    let reported: string | undefined;
    let previous: ConnectionState | undefined;
    this.actor.subscribe({
      next: (snapshot) => {
        const state = snapshot.value as ConnectionState;
        const message = snapshot.context.status;
        const moved = state !== previous;
        previous = state;
        // One status event per new line, and per state a reader acts on. A retry passes through
        // `connecting` and `probing` still explaining the wait that led there: one line, not three.
        const quiet = state === 'connecting' || state === 'probing';
        if (message === reported && (!moved || quiet)) return;
        reported = message;
        listeners.emit('status', { state, message, attempt: snapshot.context.attempt });
      },
      error: (err) => listeners.warn(`the connection machine failed: ${errorText(err)}`),
    });
    this.actor.start();
  }

  get state(): ConnectionState {
    return this.actor.getSnapshot().value as ConnectionState;
  }

  get snapshot(): SnapshotFrom<typeof clientConnectionMachine> {
    return this.actor.getSnapshot();
  }

  /** Resolves once the socket is open; rejects when the client stops before that. */
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

  close(): Promise<void> {
    this.actor.send({ type: 'CLOSE' });
    return this.stoppedPromise;
  }

  stopped(): Promise<void> {
    return this.stoppedPromise;
  }

  /** Writes what the outbox holds due; with `resendAfterMs`, also frames unanswered that long. */
  flush(resendAfterMs?: number): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN || !this.live) return;
    this.options.outbox.flush(
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

  private async openSocket(): Promise<void> {
    const { options } = this;
    const generation = ++this.generation;
    const fail = (reason: string) => {
      if (generation === this.generation) this.actor.send({ type: 'CLOSED', code: 1006, reason });
    };
    let socket: SocketLike;
    try {
      const token = typeof options.token === 'function' ? await options.token() : options.token;
      const Socket = options.WebSocket ?? (await defaultWebSocket());
      if (generation !== this.generation) return; // closed while the token or the WebSocket class was fetched
      options.credential(token);
      socket = new Socket(socketUrl(options.base, token, options.resumeFrom(), options.presenceBatched));
    } catch (err) {
      fail(errorText(err));
      return;
    }
    this.socket = socket;
    let refusal: HttpAnswer | undefined;
    onRefusedUpgrade(socket, (answer) => (refusal = answer));
    let opened = false;
    let ended = false;
    const end = (code: number, reason: string) => {
      if (ended || generation !== this.generation) return;
      ended = true;
      this.socket = undefined;
      this.stopResending();
      options.outbox.connectionLost();
      if (opened && this.state !== 'closing') options.dropped();
      this.actor.send({ type: 'CLOSED', code, reason, answer: refusal });
    };
    socket.onopen = () => {
      opened = true;
      if (generation === this.generation) this.actor.send({ type: 'OPENED' });
    };
    socket.onmessage = (event) => {
      if (generation === this.generation) options.received(event.data);
    };
    // An error before the open is a failed attempt on every runtime: Node 22's WebSocket (undici 6) fires
    // `error` but never `close` when the handshake fails (a 401, a refused port). Once open, the close event
    // that follows an error carries the code.
    socket.onerror = () => {
      if (opened) return;
      end(1006, 'the WebSocket did not open');
      try {
        socket.close();
      } catch {
        // already failed
      }
    };
    socket.onclose = (event) => end(event.code, event.reason);
  }

  /** The handshake took too long: this socket's events no longer count, and it is closed. */
  private abandonSocket(): void {
    this.generation++;
    const socket = this.socket;
    this.socket = undefined;
    try {
      socket?.close(1000, 'opening timed out');
    } catch {
      // A socket that cannot even be closed is dropped all the same: its events are ignored.
    }
  }

  private closeSocket(): void {
    if (this.socket) return this.socket.close(1000, 'client closing');
    // No socket yet: the one being made is dropped when it arrives.
    this.generation++;
    queueMicrotask(() => this.actor.send({ type: 'CLOSED', code: 1000, reason: 'client closing' }));
  }

  private onOpened(): void {
    const { ackTimeoutMs } = this.options;
    this.live = true;
    this.flush();
    this.resendTimer = setInterval(() => this.flush(ackTimeoutMs), Math.max(50, ackTimeoutMs / 2));
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
    this.options.outbox.failAll(error);
    this.opened?.reject(error);
    this.markStopped();
  }

  private stopResending(): void {
    this.live = false;
    clearInterval(this.resendTimer);
    this.resendTimer = undefined;
  }
}
