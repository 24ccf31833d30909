// The SDK's PushNotificationStore on the hub's store (table a2a_push_configs): webhooks survive
// restarts, belong to their task's caller and agent, and pass the SSRF guard when registered (a
// refusal answers the registration with the reason). A config holds the webhook's credentials (its
// token, its authentication), so it is stored sealed (AES-GCM, a purpose key of its own) and read
// back opened only to call the webhook: the config methods answer without the credentials. Rows
// written before sealing are plain JSON: still read, and sealed in place by `sealLegacy` at start.
import { randomUUID } from 'node:crypto';
import { TaskPushNotificationConfig } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { PushNotificationStore, ServerCallContext, StoredPushNotificationConfig } from '@a2a-js/sdk/server';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { A2aPushConfigsRepo } from '../store/repositories/a2aPushConfigs.js';
import { partiesOf } from './callContext.js';
import { checkWebhookUrl, WebhookRefused } from './webhookGuard.js';

/** Webhooks one task may have. */
const MAX_CONFIGS_PER_TASK = 10;

/** Seals and opens a config at rest (auth/secrets.ts `createSecretBox`, purpose `a2a-push-credentials`). */
export interface CredentialBox {
  seal(text: string): string;
  open(sealed: string): string;
}

/** A sealed config; a legacy row is the config's JSON, which always starts with `{`. */
const isSealed = (stored: string) => stored.startsWith('v1.');

/** The config as a caller reads it back: the webhook's credentials left out (the scheme stays). */
function withoutCredentials(config: TaskPushNotificationConfig): TaskPushNotificationConfig {
  return { ...config, token: '', authentication: config.authentication && { ...config.authentication, credentials: '' } };
}

export function createHubPushStore(deps: {
  configs: A2aPushConfigsRepo;
  clock: Clock;
  allowPrivate: boolean;
  box: CredentialBox;
  logger: Logger;
}): PushNotificationStore & {
  loadWithMetadata(taskId: string, context: ServerCallContext): Promise<StoredPushNotificationConfig[]>;
  sealLegacy(): Promise<number>;
} {
  const { configs, clock, box, logger } = deps;
  const scopeOf = (context: ServerCallContext) => {
    const { caller, target } = partiesOf(context);
    return { ownerId: caller.id, agentId: target.id };
  };
  /** The stored configs of a task, opened; one the box cannot open (the hub's secret changed) is left out, and logged. */
  const opened = async (taskId: string, context: ServerCallContext) => {
    const out: Array<{ config: TaskPushNotificationConfig; wireVersion: string }> = [];
    for (const row of await configs.list(taskId, scopeOf(context))) {
      try {
        const text = isSealed(row.config) ? box.open(row.config) : row.config;
        out.push({ config: TaskPushNotificationConfig.fromJSON(JSON.parse(text)), wireVersion: row.wire_version });
      } catch (err) {
        logger.warn(
          { err: { message: (err as Error).message }, taskId, configId: row.id },
          'an A2A push-notification config cannot be opened (the hub secret changed?): skipped',
        );
      }
    }
    return out;
  };

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
        config: box.seal(JSON.stringify(TaskPushNotificationConfig.toJSON(config))),
        wire_version: context.requestedVersion || '0.3',
        created_at: clock(),
      });
      // The SDK answers CreateTaskPushNotificationConfig with this object: the credentials stay here.
      Object.assign(config, withoutCredentials(config));
    },
    /** What the config methods answer (Get, List): without the credentials. */
    async load(taskId, context) {
      return (await opened(taskId, context)).map(({ config }) => withoutCredentials(config));
    },
    /** What the webhook calls use: the whole config. */
    async loadWithMetadata(taskId, context) {
      return opened(taskId, context);
    },
    /**
     * Seals the configs stored before sealing (plain JSON) in place; returns how many. Each row is
     * replaced only if it is still the text read, so nodes running this at once do no harm.
     */
    async sealLegacy() {
      let sealed = 0;
      for (const row of await configs.unsealed()) {
        if (await configs.reseal(row, box.seal(row.config))) sealed++;
      }
      return sealed;
    },
    async delete(taskId, context, configId) {
      await configs.delete(taskId, scopeOf(context), configId);
    },
  };
}
