// The SDK's PushNotificationStore on the hub's store (table a2a_push_configs): webhooks survive
// restarts, belong to their task's caller and agent, and pass the SSRF guard when registered (a
// refusal answers the registration with the reason).
import { randomUUID } from 'node:crypto';
import { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { PushNotificationStore, ServerCallContext, StoredPushNotificationConfig } from '@a2a-js/sdk/server';
import type { Clock } from '../clock.js';
import type { A2aPushConfigsRepo } from '../store/repositories/a2aPushConfigs.js';
import { partiesOf } from './callContext.js';
import { checkWebhookUrl, WebhookRefused } from './webhookGuard.js';

/** Webhooks one task may have. */
const MAX_CONFIGS_PER_TASK = 10;

export function createHubPushStore(deps: { configs: A2aPushConfigsRepo; clock: Clock; allowPrivate: boolean }): PushNotificationStore & {
  loadWithMetadata(taskId: string, context: ServerCallContext): Promise<StoredPushNotificationConfig[]>;
} {
  const { configs, clock } = deps;
  const scopeOf = (context: ServerCallContext) => {
    const { caller, target } = partiesOf(context);
    return { ownerId: caller.id, agentId: target.id };
  };
  const parse = (text: string) => TaskPushNotificationConfig.fromJSON(JSON.parse(text));

  return {
    async save(taskId, context, config) {
      try {
        checkWebhookUrl(config.url, deps.allowPrivate);
      } catch (err) {
        if (err instanceof WebhookRefused) throw new RequestMalformedError(err.message);
        throw err;
      }
      const scope = scopeOf(context);
      const existing = await configs.list(taskId, scope);
      // The SDK reads the id it gets back from this object: an empty one is assigned here.
      if (!config.id) config.id = randomUUID();
      if (existing.length >= MAX_CONFIGS_PER_TASK && !existing.some((row) => row.id === config.id)) {
        throw new RequestMalformedError(`a task has at most ${MAX_CONFIGS_PER_TASK} push-notification configs`);
      }
      config.taskId = taskId;
      await configs.save({
        task_id: taskId,
        id: config.id,
        owner_id: scope.ownerId,
        agent_id: scope.agentId,
        config: JSON.stringify(TaskPushNotificationConfig.toJSON(config)),
        wire_version: context.requestedVersion || '0.3',
        created_at: clock(),
      });
    },
    async load(taskId, context) {
      return (await configs.list(taskId, scopeOf(context))).map((row) => parse(row.config));
    },
    async loadWithMetadata(taskId, context) {
      return (await configs.list(taskId, scopeOf(context))).map((row) => ({ config: parse(row.config), wireVersion: row.wire_version }));
    },
    async delete(taskId, context, configId) {
      await configs.delete(taskId, scopeOf(context), configId);
    },
  };
}
