// The A2A side's metrics: JSON-RPC calls by method and outcome, streams open now, and task states
// as tasks reach them. Method names come from a fixed list (v1.0 and v0.3); anything else counts as
// `other`, so no caller can make a time series.
import type { MetricsFactory } from '../metrics/families.js';

const METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
];
/** `ok`: a result; `error`: an A2A error; `stream`: answered as Server-Sent Events; `refused`: the hub's own refusal (403, 404). */
export const OUTCOMES = ['ok', 'error', 'stream', 'refused'] as const;
export type Outcome = (typeof OUTCOMES)[number];
const STATES = ['SUBMITTED', 'WORKING', 'COMPLETED', 'FAILED', 'CANCELED', 'REJECTED', 'AUTH_REQUIRED', 'INPUT_REQUIRED'];

export interface A2aMeter {
  request(method: unknown, outcome: Outcome): void;
  streamOpened(): void;
  streamClosed(): void;
  /** A task reached `state` (the A2A name, TASK_STATE_ prefix or not). */
  taskState(state: string): void;
  /** A chat carried to a remote A2A agent (src/a2a/remote/) was answered, or failed. */
  forwarded(outcome: 'ok' | 'failed'): void;
}

export function createA2aMeter(factory: MetricsFactory): A2aMeter {
  const requests = factory.counter({
    name: 'hub_a2a_requests_total',
    help: 'A2A JSON-RPC calls by method (v1.0 and v0.3 names) and outcome',
    labels: { method: METHODS, outcome: OUTCOMES },
  });
  const streams = factory.gauge({ name: 'hub_a2a_open_streams', help: 'A2A answers being streamed now (SendStreamingMessage, SubscribeToTask)' });
  const states = factory.counter({ name: 'hub_a2a_task_states_total', help: 'A2A tasks reaching each state', labels: { state: STATES } });
  const remoteCalls = factory.counter({
    name: 'hub_a2a_remote_calls_total',
    help: 'Chats the hub carried to remote A2A agents (registered by card URL), by outcome',
    labels: { outcome: ['ok', 'failed'] },
  });
  return {
    forwarded: (outcome) => remoteCalls.labels({ outcome }).inc(),
    request: (method, outcome) => requests.labels({ method: typeof method === 'string' ? method : 'other', outcome }).inc(),
    streamOpened: () => streams.inc(),
    streamClosed: () => streams.dec(),
    taskState: (state) => states.labels({ state: state.replace(/^TASK_STATE_/, '') }).inc(),
  };
}
