// The proxy of one remote A2A agent: an actor of proxyMachine.ts whose effects are here. While the
// agent's card answers, an endpoint of the agent is bound in the router like an agent's socket, so the
// router's presence path makes it ONLINE (on every node, in cluster mode) and chat addressed to it
// reaches it; each such CHAT is carried to the agent (forward.ts), one at a time per conversation.
// A failed call checks the card at once; a card that stops answering unbinds the endpoint (OFFLINE).
import type { Client } from '@a2a-js/sdk/client';
import type { Logger } from 'pino';
import { createActor } from 'xstate';
import type { Accepted, Endpoint, MessageInput, Principal } from '../../delivery/types.js';
import type { MessageFrame } from '../../protocol/frames.js';
import type { RouterPort } from '../replies.js';
import type { FetchedCard } from './cardFetch.js';
import { forwardChat } from './forward.js';
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
  let stopped = false;

  const endpoint: Endpoint = {
    key: deps.key,
    user: agent,
    deliver: (text, id, frame) => {
      const message = frameOf(text, frame);
      if (id === undefined || message?.type !== 'CHAT' || message.target_id !== agent.id || message.sender_id === agent.id) return;
      enqueue(message);
    },
    close: () => {
      actor.send({ type: 'STOP' });
      deps.closed();
    },
  };

  function enqueue(frame: MessageFrame): void {
    const key = `${frame.sender_id}:${frame.conversation_id ?? ''}`;
    const previous = queues.get(key) ?? Promise.resolve();
    const next = previous.then(() => forward(frame));
    queues.set(key, next);
    void next.finally(() => {
      if (queues.get(key) === next) queues.delete(key);
    });
  }

  async function forward(frame: MessageFrame): Promise<void> {
    const target = current;
    if (!target || stopped) return;
    try {
      await forwardChat(
        { client: target.client, streaming: target.card.streaming, post: (input) => deps.post(agent, input), openTasks, signal: calls.signal },
        frame,
        agent.id,
      );
      deps.meter.forwarded('ok');
    } catch (err) {
      deps.meter.forwarded('failed');
      if (stopped) return;
      logger.warn({ err, agent: agent.username, messageId: frame.id }, 'a2a: a chat to a remote agent failed; checking its card now');
      actor.send({ type: 'CHECK_NOW' });
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
        },
        unbind: ({ context }) => {
          if (!stopped) logger.warn({ agent: agent.username, reason: context.lastError }, 'a2a: remote agent offline (its card does not answer)');
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
    /** For inspection and tests: the machine's state and why the last check failed. */
    snapshot(): { state: unknown; failures: number; lastError?: string } {
      const s = actor.getSnapshot();
      return { state: s.value, failures: s.context.failures, lastError: s.context.lastError };
    },
  };
}
export type Proxy = ReturnType<typeof createProxy>;
