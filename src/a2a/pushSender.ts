// The SDK's PushNotificationSender for the hub: each task event is POSTed to the task's webhooks in
// order, in the background (the SDK awaits a sender in its event loop: this one returns once it has
// read the webhooks, so a slow or dead webhook never holds up a task or its subscribers). A call has
// a deadline, follows no redirect, reaches only addresses the SSRF guard let through, and a failed
// call is tried again with backoff; every failure is logged, never the webhook's credentials.
import type { StreamResponse, Task } from '@a2a-js/sdk';
import { V03PushNotificationSerializer } from '@a2a-js/sdk/compat/v0_3/server';
import {
  V1PushNotificationSerializer,
  type PushNotificationSender,
  type PushNotificationSerializer,
  type ServerCallContext,
  type StoredPushNotificationConfig,
} from '@a2a-js/sdk/server';
import type { Logger } from 'pino';
import { fetch, type Dispatcher } from 'undici';
import { systemTimers, type Timers } from '../clock.js';

export interface PushSenderOptions {
  load(taskId: string, context: ServerCallContext): Promise<StoredPushNotificationConfig[]>;
  dispatcher: Dispatcher;
  logger: Logger;
  /** Deadline of one call (ms). */
  timeoutMs: number;
  /** Calls per event at most, the first included. */
  attempts: number;
  /** Wait before the second call; doubles for each one after. */
  backoffMs: number;
  /** Runs the waits between calls (the hub's timers: a test moves them). */
  timers?: Timers;
}

const SERIALIZERS: Record<string, PushNotificationSerializer> = { '1.0': new V1PushNotificationSerializer(), '0.3': new V03PushNotificationSerializer() };

function taskIdOf(event: StreamResponse): string {
  const payload = event.payload;
  if (!payload) return '';
  return payload.$case === 'task' ? payload.value.id : payload.value.taskId;
}

class PermanentFailure extends Error {}

export function createPushSender(options: PushSenderOptions): PushNotificationSender & { idle(): Promise<void> } {
  const { logger } = options;
  const timers = options.timers ?? systemTimers;
  /** Per webhook, the calls in flight, so its events arrive in order. */
  const chains = new Map<string, Promise<void>>();

  async function post(stored: StoredPushNotificationConfig, body: string, contentType: string): Promise<void> {
    const { config } = stored;
    const headers: Record<string, string> = { 'Content-Type': contentType };
    if (config.authentication?.scheme && config.authentication.credentials) {
      headers['Authorization'] = `${config.authentication.scheme} ${config.authentication.credentials}`;
    } else if (config.token) headers['X-A2A-Notification-Token'] = config.token;
    const res = await fetch(config.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      dispatcher: options.dispatcher,
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    await res.body?.cancel();
    if (res.status >= 200 && res.status < 300) return;
    const message = `the webhook answered ${res.status}`;
    // A refusal other than "busy" will not change by asking again.
    if (res.status >= 300 && res.status < 500 && res.status !== 408 && res.status !== 429) throw new PermanentFailure(message);
    throw new Error(message);
  }

  async function deliver(stored: StoredPushNotificationConfig, taskId: string, event: StreamResponse, task?: Task): Promise<void> {
    const serializer = SERIALIZERS[stored.wireVersion] ?? SERIALIZERS['1.0']!;
    const { body, contentType } = serializer.serialize(event, task);
    const where = { taskId, configId: stored.config.id, host: new URL(stored.config.url).host, event: event.payload?.$case };
    for (let attempt = 1; ; attempt++) {
      try {
        await post(stored, body, contentType);
        return;
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        if (err instanceof PermanentFailure || attempt >= options.attempts) {
          logger.warn({ ...where, attempt, reason }, 'A2A push notification not delivered');
          return;
        }
        logger.info({ ...where, attempt, reason }, 'A2A push notification failed; trying again');
        await new Promise<void>((resolve) => timers.setTimeout(resolve, options.backoffMs * 2 ** (attempt - 1)).unref?.());
      }
    }
  }

  return {
    async send(event, context, task) {
      const taskId = taskIdOf(event);
      if (!taskId) return;
      const configs = await options.load(taskId, context);
      for (const stored of configs) {
        const key = `${taskId}\u0000${stored.config.id}`;
        const previous = chains.get(key) ?? Promise.resolve();
        const next = previous
          .then(() => deliver(stored, taskId, event, task))
          .catch((err: unknown) => logger.error({ err, taskId, configId: stored.config.id }, 'an A2A push notification could not be prepared'));
        chains.set(key, next);
        void next.finally(() => {
          if (chains.get(key) === next) chains.delete(key);
        });
      }
    },
    /** Resolves once every call started so far has settled (shutdown, tests). */
    async idle(): Promise<void> {
      while (chains.size > 0) await Promise.allSettled([...chains.values()]);
    },
  };
}
