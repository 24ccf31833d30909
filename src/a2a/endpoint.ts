// The A2A endpoint of each card (JSON-RPC binding), framework-neutral: it settles who calls which
// agent by the hub's rules, checks the requested A2A version against the agent's card, and hands the
// body to the SDK's JSON-RPC transport handler (v1.0), or its v0.3 compatibility handler when the
// caller asks for 0.3 (the A2A-Version header, absent meaning 0.3 as the SDK reads it). The HTTP
// edge writes the answer: one JSON-RPC response, or a stream it sends as Server-Sent Events.
import { A2A_VERSION_HEADER } from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION, LEGACY_METHOD_TASKS_RESUBSCRIBE } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { JsonRpcTransportHandler, validateVersion, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { AgentCard } from '@a2a-js/sdk';
import type { UserRow } from '../store/schema.js';
import { createCallContext } from './callContext.js';
import type { CardService } from './cardService.js';
import type { A2aMeter } from './metrics.js';
import { mayUse, refusalFor } from './peers.js';

export type RpcAnswer =
  | { kind: 'json'; status: number; body: unknown }
  /** A stream: its first event is already read (errors before it are answered as JSON). */
  | { kind: 'stream'; first: unknown; rest: AsyncIterator<unknown>; errorOf(err: unknown): unknown; alwaysStream: boolean };

export interface RpcCall {
  caller: UserRow;
  username: string;
  origin: string;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}

const header = (headers: RpcCall['headers'], name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

const idOf = (body: unknown): unknown => (typeof body === 'object' && body !== null && 'id' in body ? (body as { id: unknown }).id : null);
const methodOf = (body: unknown): unknown => (typeof body === 'object' && body !== null && 'method' in body ? (body as { method: unknown }).method : undefined);

/** The stream's iterator, counted as open until it ends, fails or is given up. */
function counted(rest: AsyncIterator<unknown>, meter: A2aMeter): AsyncIterator<unknown> {
  let open = true;
  meter.streamOpened();
  const close = () => {
    if (!open) return;
    open = false;
    meter.streamClosed();
  };
  return {
    async next() {
      try {
        const result = await rest.next();
        if (result.done) close();
        return result;
      } catch (err) {
        close();
        throw err;
      }
    },
    async return(value?: unknown) {
      close();
      return rest.return ? rest.return(value) : { done: true, value };
    },
  };
}

export function createA2aEndpoint(deps: { cards: Pick<CardService, 'subject' | 'agentCard'>; handler: A2ARequestHandler; meter: A2aMeter }) {
  const { meter } = deps;
  const v1 = new JsonRpcTransportHandler(deps.handler);
  const legacy = new LegacyJsonRpcTransportHandler(deps.handler);

  return {
    /** The agent named `username` and whether the caller may use it: a refusal is thrown (404, 403). */
    async call(call: RpcCall): Promise<RpcAnswer> {
      const method = methodOf(call.body);
      const target = await deps.cards.subject(call.username).catch((err: unknown) => {
        meter.request(method, 'refused');
        throw err;
      });
      if (!mayUse(call.caller, target)) {
        meter.request(method, 'refused');
        throw refusalFor(call.caller, target);
      }
      const requested = header(call.headers, A2A_VERSION_HEADER);
      const useLegacy = (requested || A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION;
      const mapError = useLegacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError : JsonRpcTransportHandler.mapToJSONRPCError;
      const errorOf = (err: unknown) => ({ jsonrpc: '2.0', id: idOf(call.body) ?? null, error: mapError(err) });
      try {
        const context = createCallContext({ caller: call.caller, target, requestedVersion: requested || undefined });
        validateVersion(context.requestedVersion, AgentCard.fromJSON(await deps.cards.agentCard(target.username, call.origin)), 'JSONRPC');
        const answer = await (useLegacy ? legacy : v1).handle(call.body as Record<string, unknown>, context);
        if (answer === null || typeof answer !== 'object' || !(Symbol.asyncIterator in answer)) {
          meter.request(method, 'error' in answer ? 'error' : 'ok');
          return { kind: 'json', status: 200, body: answer };
        }
        const rest = (answer as AsyncGenerator<unknown>)[Symbol.asyncIterator]();
        let first: IteratorResult<unknown>;
        try {
          first = await rest.next();
        } catch (err) {
          meter.request(method, 'error');
          return { kind: 'json', status: 200, body: errorOf(err) };
        }
        meter.request(method, 'stream');
        const alwaysStream = useLegacy && method === LEGACY_METHOD_TASKS_RESUBSCRIBE;
        return { kind: 'stream', first: first.done ? undefined : first.value, rest: counted(rest, meter), errorOf, alwaysStream };
      } catch (err) {
        meter.request(method, 'error');
        return { kind: 'json', status: 200, body: errorOf(err) };
      }
    },
  };
}
export type A2aEndpoint = ReturnType<typeof createA2aEndpoint>;
