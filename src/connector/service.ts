// The connector's lifecycle over HTTP: load the row → pure machine step → write with a version check
// → run the step's effects → answer. Every action, refused ones too, lands in the connector's log.
import { randomUUID } from 'node:crypto';
import { Errors } from '../errors.js';
import { describeMachine, step, type ConnectorEffect, type ConnectorEvent, type MachineDescription } from './machine.js';
import {
  CredentialFields,
  type ConnectorFieldsInput,
  type ConnectorLogView,
  type ConnectorView,
  type LogsQuery,
  type TestMessageInput,
} from '../protocol/connector.js';
import type { LogLevel } from '../protocol/messages.js';
import { isUniqueViolation } from '../store/errors.js';
import { ConnectorVersionConflict, type ConnectorPatch, type ConnectorsRepo } from '../store/repositories/connectors.js';
import type { ConnectorRow } from '../store/schema.js';
import type { Clock } from '../clock.js';
import type { ConnectorLog } from './log.js';
import { describeOutcome } from './platformApi.js';
import type { ConnectorRuntime } from './runtime.js';
import { changedSettings, DEFAULT_SETTINGS, toConnectorView, type ConnectorCodec, type ConnectorConfig } from './views.js';

export interface ConnectorServiceDeps {
  repo: ConnectorsRepo;
  codec: ConnectorCodec;
  log: ConnectorLog;
  runtime: ConnectorRuntime;
  clock: Clock;
}

export type VerifyResult = { ok: true; message: string; verified_at: string; connector: ConnectorView } | { ok: false; message: string; detail?: string };

export interface TestMessageResult {
  ok: boolean;
  message: string;
  trace_id: string;
  platform_message_id?: string;
}

const raced = () => Errors.conflict('the connector was changed by another request meanwhile; reload it and try again');

const REFUSALS: Record<ConnectorEvent['type'], string> = {
  ENABLE: 'connector must be verified before enabling',
  DISABLE: 'connector is not enabled',
  UPDATE: 'connector cannot be updated now',
  VERIFIED: 'connector cannot be verified now',
  TEST_MESSAGE: 'connector cannot send a test message now',
};

export function createConnectorService(deps: ConnectorServiceDeps) {
  const { repo, codec, log, runtime, clock } = deps;

  async function load(id: number): Promise<ConnectorConfig> {
    const row = await repo.findById(id);
    if (!row) throw Errors.notFound('connector');
    return codec.decode(row);
  }

  const view = (config: ConnectorConfig | undefined) => toConnectorView(config, config ? runtime.connected(config.id) : false);

  /** Writes `patch` if the row is unchanged since `config` was read; a lost race is a 409. */
  async function write(config: ConnectorConfig, patch: ConnectorPatch): Promise<ConnectorConfig> {
    const row = await repo.update(config.id, config.version, patch);
    if (!row) throw raced();
    return codec.decode(row);
  }

  /** Runs the effects a transition named, once its row is written. */
  function runEffects(effects: readonly ConnectorEffect[], config: ConnectorConfig): void {
    for (const effect of effects) {
      if (effect === 'stopConnection') runtime.stop(config.id);
      else if (effect === 'startConnection') runtime.start(config);
    }
  }

  /** Moves a connector with `event`, or refuses (409) and logs the refusal. */
  async function transition(config: ConnectorConfig, event: ConnectorEvent, action: string, patch: Omit<ConnectorPatch, 'state' | 'updated_at'> = {}) {
    const next = step(config.state, event);
    if (!next.ok) {
      const reason = event.type === 'ENABLE' && config.state === 'enabled' ? 'connector is already enabled' : REFUSALS[event.type];
      await log.write(config.id, 'WARNING', action, `refused in state ${config.state}: ${reason}`);
      throw Errors.conflict(reason);
    }
    const now = clock();
    const extra: Partial<ConnectorPatch> = next.effects.includes('markVerified') ? { last_verified_at: now } : {};
    const updated = await write(config, { ...patch, ...extra, state: next.state, updated_at: now });
    runEffects(next.effects, updated);
    return { updated, from: config.state, effects: next.effects };
  }

  return {
    async current(): Promise<ConnectorView> {
      const row = await repo.current();
      return view(row ? codec.decode(row) : undefined);
    },

    machine(): MachineDescription {
      return describeMachine();
    },

    /** Appends an entry to the current connector's log (the dev mock that seeds a dashboard). */
    async appendLog(entry: { level: LogLevel; action: string; detail: string }): Promise<void> {
      const row = await repo.current();
      if (!row) throw Errors.notFound('connector');
      await log.write(row.id, entry.level, entry.action, entry.detail);
    },

    /** A new draft that becomes the current connector; the previous one is stopped and kept. */
    async create(input: ConnectorFieldsInput): Promise<ConnectorView> {
      const settings = { ...DEFAULT_SETTINGS, ...changedSettings(DEFAULT_SETTINGS, input) };
      const now = clock();
      let result: { created: ConnectorRow; previous?: ConnectorRow };
      try {
        result = await repo.insertCurrent(codec.newRow(settings, now), (previous) => {
          const next = previous.state === 'enabled' ? step('enabled', { type: 'DISABLE' }) : undefined;
          return { state: next?.ok ? next.state : previous.state, updated_at: now };
        });
      } catch (err) {
        if (err instanceof ConnectorVersionConflict || isUniqueViolation(err)) throw raced();
        throw err;
      }
      const created = codec.decode(result.created);
      if (result.previous) {
        runtime.stop(result.previous.id);
        await log.write(result.previous.id, 'INFO', 'replaced', `replaced by connector ${created.id}; stopped (state ${result.previous.state})`);
      }
      await log.write(created.id, 'INFO', 'created', `connector "${created.connector_name}" created as a draft`);
      return view(created);
    },

    /** `expectedVersion`: the version the change was made from; a connector changed since is a 409. */
    async update(id: number, input: ConnectorFieldsInput, expectedVersion?: number): Promise<ConnectorView> {
      const config = await load(id);
      if (expectedVersion !== undefined && expectedVersion !== config.version) throw raced();
      const changed = changedSettings(config, input);
      const names = Object.keys(changed);
      if (names.length === 0) return view(config);
      const credentials = CredentialFields.some((f) => f in changed);
      const { updated, from } = await transition(config, { type: 'UPDATE', credentials }, 'updated', codec.encode(changed));
      if (updated.state === 'enabled') runtime.reconfigure(updated);
      const dropped = from !== updated.state ? `; credentials changed, so the connector is back in ${updated.state}` : '';
      await log.write(id, 'INFO', 'updated', `changed ${names.join(', ')}${dropped}`);
      return view(updated);
    },

    async verify(id: number): Promise<VerifyResult> {
      const config = await load(id);
      if (config.app_id === '' || config.app_secret === '') {
        const message = 'app_id and app_secret are required before verifying';
        await log.write(id, 'WARNING', 'verify', message);
        return { ok: false, message };
      }
      const outcome = await runtime.api(config).verify();
      if (outcome.kind !== 'accepted') {
        const detail = describeOutcome(outcome);
        const rejected = outcome.kind === 'rejected';
        await log.write(id, rejected ? 'WARNING' : 'ERROR', 'verify', `verification failed: ${detail}`);
        return { ok: false, message: rejected ? 'the platform rejected the credentials' : 'the platform could not be asked', detail };
      }
      let result;
      try {
        result = await transition(config, { type: 'VERIFIED' }, 'verify');
      } catch (err) {
        await log.write(id, 'WARNING', 'verify', 'credentials accepted, but the connector changed meanwhile; not marked verified');
        throw err;
      }
      await log.write(id, 'SUCCESS', 'verify', `credentials accepted by the platform; state ${result.updated.state}`);
      return { ok: true, message: 'credentials verified', verified_at: result.updated.last_verified_at!, connector: view(result.updated) };
    },

    async setEnabled(id: number, enabled: boolean): Promise<ConnectorView> {
      const config = await load(id);
      const action = enabled ? 'enabled' : 'disabled';
      if (enabled && !config.is_current) {
        await log.write(id, 'WARNING', action, 'refused: only the current connector can be enabled');
        throw Errors.conflict('only the current connector can be enabled');
      }
      const { updated } = await transition(config, { type: enabled ? 'ENABLE' : 'DISABLE' }, action);
      await log.write(id, 'INFO', action, `connector ${action}`);
      return view(updated);
    },

    async testMessage(id: number, input: TestMessageInput): Promise<TestMessageResult> {
      const config = await load(id);
      const traceId = randomUUID();
      const next = step(config.state, { type: 'TEST_MESSAGE' });
      const chatId = input.target_chat_id ?? config.allowed_chat_ids[0];
      await log.write(id, 'INFO', 'test_message', `test message requested${chatId ? ` for chat ${chatId}` : ''} in state ${config.state}`, traceId);
      if (!next.ok || !next.effects.includes('sendTestMessage')) {
        return { ok: true, message: 'the connector is not enabled: the test message was logged, not sent', trace_id: traceId };
      }
      if (!chatId) {
        const message = 'no chat to send to: give target_chat_id or set allowed_chat_ids';
        await log.write(id, 'WARNING', 'test_message', message, traceId);
        return { ok: false, message, trace_id: traceId };
      }
      const text = input.text ?? `Test message from the hub (trace ${traceId})`;
      const outcome = await runtime.api(config).sendText(chatId, text);
      if (outcome.kind !== 'accepted') {
        const detail = describeOutcome(outcome);
        await log.write(id, 'ERROR', 'test_message', `test message to chat ${chatId} not sent: ${detail}`, traceId);
        return { ok: false, message: `test message not sent: ${detail}`, trace_id: traceId };
      }
      await log.write(id, 'SUCCESS', 'test_message', `test message sent to chat ${chatId} (platform message ${outcome.value})`, traceId);
      return { ok: true, message: 'test message sent', trace_id: traceId, platform_message_id: outcome.value };
    },

    async logs(id: number, query: LogsQuery): Promise<{ items: ConnectorLogView[]; cursor: string }> {
      await load(id);
      return log.page(id, query.cursor, query.limit);
    },
  };
}
export type ConnectorService = ReturnType<typeof createConnectorService>;
