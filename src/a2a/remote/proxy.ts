// The proxy of one remote A2A agent: an actor of proxyMachine.ts whose effects are here. While the
// agent's card answers, an endpoint of the agent is bound in the router like an agent's socket, so the
// router's presence path makes it ONLINE (on every node, in cluster mode) and chat addressed to it
// reaches it; each such CHAT is carried to the agent (forward.ts), one at a time per conversation.
// A failed call checks the card at once; a card that stops answering unbinds the endpoint (OFFLINE).
// Chat sent while the agent was offline is carried when it binds again: the chats above the stored
// mark (carry.ts) are read first, live ones held back meanwhile, so each is carried once and in order;
// one whose answer is already stored (the hub died before the mark moved) is not carried again.
// A call that fails while the card still answers is the agent's failure: the sender gets it as a
// CHAT from the agent. A call that fails because the card no longer answers is kept for the back-log.
import type { Client } from '@a2a-js/sdk/client';
import type { Logger } from 'pino';
import { createActor } from 'xstate';
import type { Accepted, Endpoint, MessageInput, Principal } from '../../delivery/types.js';
import type { MessageFrame } from '../../protocol/frames.js';
import type { RouterPort } from '../replies.js';
import type { FetchedCard } from './cardFetch.js';
import { CarryLedger, failureLine } from './carry.js';
import { CallFailed, forwardChat } from './forward.js';
import { proxyMachine, type ProxyTiming } from './proxyMachine.js';

export interface ProxyDeps {
  agent: Principal;
  /** A key no socket has (negative), unique per proxy start. */
  key: number;
  timing: ProxyTiming;
  router: RouterPort;
  /** Fetches the agent's card (cardFetch with its URL and credential). */
  check(signal: AbortSignal): Promise<FetchedCard>;
  /** A client for the card's interface (the guarded fetch with the credential). */
  clientFor(card: FetchedCard): Promise<Client>;
  /** A card that changed since it was stored. */
  cardChanged(card: FetchedCard): void;
  post(sender: Principal, input: MessageInput): Promise<Accepted>;
  /** The stored mark: the id of the last chat carried to the agent. */
  carried: number;
  /** Stored chats to the agent above `afterId` (bounded), oldest first. */
  backlog(afterId: number): Promise<MessageFrame[]>;
  /** Which of these chats already have the agent's answer stored (carried before a crash, the mark not yet moved). */
  answered(chatIds: readonly number[]): Promise<ReadonlySet<number>>;
  /** The A2A messageId of a chat, the same on every try. */
  messageIdOf(chatId: number): string;
  /** Stores a new mark (never rejects: a failed write is logged, and the next one catches up). */
  setCarried(id: number): Promise<void>;
  /** Never shown to the sender in a failure line (the agent's credential). */
  secrets: readonly string[];
  meter: { forwarded(outcome: 'ok' | 'failed'): void };
  /** The endpoint was closed by the hub (the agent deleted, its sessions revoked): the owner decides what next. */
  closed(): void;
  logger: Logger;
}

function frameOf(text: string, frame: MessageFrame | undefined): MessageFrame | undefined {
  if (frame) return frame;
  // Frames from other nodes come as text; only chat can be for the agent.
  if (!text.includes('"CHAT"')) return undefined;
  try {
    return JSON.parse(text) as MessageFrame;
  } catch {
    return undefined;
  }
}

export function createProxy(deps: ProxyDeps) {
  const { agent, logger } = deps;
  let current: { card: FetchedCard; client: Client } | undefined;
  const calls = new AbortController();
  const probes = new AbortController();
  /** The last call of each conversation: the next waits for it (answers stay in order). */
  const queues = new Map<string, Promise<void>>();
  const openTasks = new Map<string, string>();
  const ledger = new CarryLedger(deps.carried);
  /** Live chats held back while the back-log is read (undefined: none is being read). */
  let held: MessageFrame[] | undefined;
  /** A back-log read is wanted again once the current one ends. */
  let readAgain = false;
  let bound = false;
  /** The mark's writes, one after another (the hub's shutdown waits for them). */
  let writes = Promise.resolve();
  let stopped = false;

  const endpoint: Endpoint = {
    key: deps.key,
    user: agent,
    deliver: (text, id, frame) => {
      const message = frameOf(text, frame);
      if (id === undefined || message?.type !== 'CHAT' || message.target_id !== agent.id || message.sender_id === agent.id) return;
      if (held) held.push(message);
      else enqueue(message);
    },
    close: () => {
      actor.send({ type: 'STOP' });
      deps.closed();
    },
  };

  function enqueue(frame: MessageFrame): void {
    if (frame.id === undefined || !ledger.take(frame.id)) return;
    const key = `${frame.sender_id}:${frame.conversation_id ?? ''}`;
    const previous = queues.get(key) ?? Promise.resolve();
    const next = previous.then(() => forward(frame));
    queues.set(key, next);
    void next.finally(() => {
      if (queues.get(key) === next) queues.delete(key);
    });
  }

  function moved(mark: number | undefined): void {
    if (mark !== undefined) writes = writes.then(() => deps.setCarried(mark));
  }

  const finish = (id: number) => moved(ledger.finish(id));

  async function forward(frame: MessageFrame): Promise<void> {
    const id = frame.id!;
    const target = current;
    if (!target || stopped) return ledger.keep(id);
    try {
      await forwardChat(
        {
          client: target.client,
          streaming: target.card.streaming,
          post: (input) => deps.post(agent, input),
          messageIdOf: deps.messageIdOf,
          openTasks,
          signal: calls.signal,
        },
        frame,
        agent.id,
      );
      deps.meter.forwarded('ok');
      finish(id);
    } catch (err) {
      deps.meter.forwarded('failed');
      if (stopped) return ledger.keep(id);
      if (!(err instanceof CallFailed)) {
        // The call was answered but the answer could not be posted: nothing to carry again.
        logger.warn({ err, agent: agent.username, messageId: id }, 'a2a: a remote agent’s answer could not be posted');
        return finish(id);
      }
      logger.warn({ err: err.cause, agent: agent.username, messageId: id }, 'a2a: a chat to a remote agent failed; checking its card now');
      await settle(id, err);
    }
  }

  /** After a failed call: the agent's failure when its card still answers (told to the sender), else kept for the back-log. */
  async function settle(id: number, failure: CallFailed): Promise<void> {
    try {
      await deps.check(probes.signal);
    } catch {
      ledger.keep(id);
      if (!stopped) actor.send({ type: 'CHECK_NOW' });
      return;
    }
    if (stopped) return ledger.keep(id);
    await failure
      .report(failureLine(failure.cause, deps.secrets))
      .catch((err: unknown) => logger.warn({ err, agent: agent.username, messageId: id }, 'a2a: could not tell the sender a call failed'));
    finish(id);
  }

  /** Carries the chats stored above the mark, live ones held back meanwhile (so none is carried twice or out of order). */
  async function catchUp(): Promise<void> {
    if (held) {
      readAgain = true;
      return;
    }
    held = [];
    try {
      do {
        readAgain = false;
        const frames = await deps.backlog(ledger.carried);
        if (stopped) return;
        if (frames.length > 0) logger.info({ agent: agent.username, chats: frames.length }, 'a2a: carrying the chats a remote agent missed');
        moved(ledger.expire(new Set(frames.map((f) => f.id!))));
        // A chat whose answer is stored was carried before the hub stopped short of moving the mark: done, not sent again.
        const answered = await deps.answered(frames.map((f) => f.id!));
        if (stopped) return;
        for (const frame of frames) {
          if (!answered.has(frame.id!)) enqueue(frame);
          else if (ledger.take(frame.id!)) finish(frame.id!);
        }
      } while (readAgain && !stopped);
    } catch (err) {
      logger.error({ err, agent: agent.username }, 'a2a: could not read the chats a remote agent missed');
    } finally {
      const live = held;
      held = undefined;
      for (const frame of live) enqueue(frame);
    }
  }

  async function probe(number: number): Promise<void> {
    try {
      const card = await deps.check(probes.signal);
      if (!current || current.card.json !== card.json) {
        const client = await deps.clientFor(card);
        if (current) deps.cardChanged(card);
        current = { card, client };
      }
      actor.send({ type: 'PROBE_OK', probe: number });
      // A chat kept when a call failed (the card did not answer then) is carried once the card answers again.
      if (bound && ledger.hasKept) void catchUp();
    } catch (err) {
      if (stopped) return;
      const error = err instanceof Error ? err.message : String(err);
      actor.send({ type: 'PROBE_FAILED', probe: number, error });
    }
  }

  const actor = createActor(
    proxyMachine.provide({
      actions: {
        probe: ({ context }) => void probe(context.probe),
        bind: () => {
          logger.info({ agent: agent.username }, 'a2a: remote agent online (its card answers)');
          deps.router.send({ type: 'BIND', endpoint });
          bound = true;
          void catchUp();
        },
        unbind: ({ context }) => {
          if (!stopped) logger.warn({ agent: agent.username, reason: context.lastError }, 'a2a: remote agent offline (its card does not answer)');
          bound = false;
          deps.router.send({ type: 'UNBIND', endpoint });
        },
      },
    }),
    { input: deps.timing },
  );
  actor.subscribe({ error: (err) => logger.error({ err, agent: agent.username }, 'a2a: remote agent proxy failed') });

  return {
    agent,
    /** Starts checking the card (and binding once it answers). */
    start(): void {
      actor.start();
      actor.send({ type: 'START' });
    },
    /** Unbinds, ends calls in flight and checks no more. */
    stop(): void {
      stopped = true;
      actor.send({ type: 'STOP' });
      actor.stop();
      calls.abort();
      probes.abort();
    },
    /** Resolves once the marks of the chats carried so far are stored. */
    written(): Promise<void> {
      return writes;
    },
    /** For inspection and tests: the machine's state and why the last check failed. */
    snapshot(): { state: unknown; failures: number; lastError?: string } {
      const s = actor.getSnapshot();
      return { state: s.value, failures: s.context.failures, lastError: s.context.lastError };
    },
  };
}
export type Proxy = ReturnType<typeof createProxy>;
