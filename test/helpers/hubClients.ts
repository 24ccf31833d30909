// Typed hub clients for tests: opened against a test hub, closed after each test, with helpers that
// wait on the client's own events (never on a timer) and fail with what did arrive.
import { HubClient, type ClientEvents, type HubClientOptions, type InterruptedStream } from '../../src/client/index.js';
import type { ChatFrameIn, MessageFrameIn, ServerFrame } from '../../src/protocol/serverFrames.js';
import { toPrincipal } from '../../src/delivery/directory.js';
import type { TestHub } from './hub.js';

/** A client that records every frame, status line, warning and interrupted stream it sees. */
export interface RecordingClient {
  client: HubClient;
  frames: ServerFrame[];
  statuses: ClientEvents['status'][];
  warnings: string[];
  interrupted: InterruptedStream[];
  /** Resolves with the first frame (already received or still to come) that matches: a message frame unless the predicate narrows it. */
  waitFor<T extends ServerFrame>(predicate: (frame: ServerFrame) => frame is T, description: string, timeoutMs?: number): Promise<T>;
  waitFor(predicate: (frame: ServerFrame) => boolean, description: string, timeoutMs?: number): Promise<MessageFrameIn>;
  /** Resolves with the first status (seen or to come) that matches. */
  waitForStatus(predicate: (status: ClientEvents['status']) => boolean, description: string, timeoutMs?: number): Promise<ClientEvents['status']>;
  waitForWarning(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the first stream (reported or to come) its dropped connection interrupted that matches. */
  waitForInterrupted(predicate: (stream: InterruptedStream) => boolean, description: string, timeoutMs?: number): Promise<InterruptedStream>;
}

function waiter<T>(list: T[], subscribe: (wake: () => void) => () => void, describe: () => string) {
  return (predicate: (item: T) => boolean, description: string, timeoutMs = 5000): Promise<T> =>
    new Promise((resolve, reject) => {
      let unsubscribe = () => undefined as unknown;
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${description}; ${describe()}`));
      }, timeoutMs);
      const check = () => {
        const found = list.find(predicate);
        if (found === undefined) return false;
        clearTimeout(timer);
        unsubscribe();
        resolve(found);
        return true;
      };
      if (!check()) unsubscribe = subscribe(() => void check());
    });
}

export function recordingClient(options: HubClientOptions): RecordingClient {
  const client = new HubClient({ reconnect: { initialDelayMs: 50, maxDelayMs: 500 }, ...options });
  const frames: ServerFrame[] = [];
  const statuses: ClientEvents['status'][] = [];
  const warnings: string[] = [];
  const interrupted: InterruptedStream[] = [];
  client.on('frame', (f) => void frames.push(f));
  client.on('streamInterrupted', (stream) => void interrupted.push(stream));
  client.on('status', (s) => void statuses.push(s));
  client.on('warning', (w) => void warnings.push(w));
  const describe = () =>
    `frames: ${JSON.stringify(frames.map((f) => f.type))}; statuses: ${JSON.stringify(statuses.map((s) => s.message))}; warnings: ${JSON.stringify(warnings)}`;
  return {
    client,
    frames,
    statuses,
    warnings,
    interrupted,
    waitFor: waiter(frames, (wake) => client.on('frame', wake), describe) as RecordingClient['waitFor'],
    waitForStatus: waiter(statuses, (wake) => client.on('status', wake), describe),
    waitForWarning: (pattern, timeoutMs) =>
      waiter(warnings, (wake) => client.on('warning', wake), describe)((w) => pattern.test(w), `a warning matching ${pattern}`, timeoutMs),
    waitForInterrupted: waiter(interrupted, (wake) => client.on('streamInterrupted', wake), describe),
  };
}

/** The clients a test file opens, so `afterEach(clients.closeAll)` leaves none behind. */
export function hubClientPool(hub: () => TestHub) {
  let open: RecordingClient[] = [];
  return {
    /** A recording client for `token`, connected (`connect: false` leaves that to the test). */
    async open(token: string, options: Partial<HubClientOptions> & { connect?: boolean } = {}): Promise<RecordingClient> {
      const { connect = true, ...rest } = options;
      const recorder = recordingClient({ url: hub().url, token, ...rest });
      open.push(recorder);
      if (connect) await recorder.client.connect();
      return recorder;
    },
    async closeAll(): Promise<void> {
      const closing = open;
      open = [];
      await Promise.all(closing.map((r) => r.client.close()));
    },
  };
}

/** Butler (user 2) sends a CHAT through the hub's own write path, as Butler's actor does. */
export async function postAsButler(t: TestHub, input: { payload: string; target_id: number; stream_id?: string }): Promise<number> {
  const { stored } = await t.hub.pipeline.post(toPrincipal({ id: 2, username: 'Butler', role: 'BUTLER' }), { type: 'CHAT', ...input });
  return stored!.id;
}

/** A directive from Butler with a fresh stream_id; resolves with that stream_id. */
export async function sendDirective(
  t: TestHub,
  agentId: number,
  command: string,
  streamId = `butler-directive-${Math.random().toString(36).slice(2)}`,
): Promise<string> {
  await postAsButler(t, { payload: `[DIRECTIVE] ${command}`, target_id: agentId, stream_id: streamId });
  return streamId;
}

export const isChatFrom =
  (senderId: number) =>
  (f: ServerFrame): f is ChatFrameIn =>
    f.type === 'CHAT' && f.sender_id === senderId;
