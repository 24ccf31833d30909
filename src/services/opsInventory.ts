// The older dashboards' ops panels, kept as an inventory: SSH keys (the private key encrypted at
// rest, shown only as a fingerprint), the infra nodes that name them, and ops task records. No ops
// executor runs in this hub, and the answers say so: a node test reports that nothing can reach it,
// and the status stays disabled while counting what the inventory holds.
import type { SecretBox } from '../auth/secrets.js';
import type { Clock } from '../clock.js';
import { Errors } from '../errors.js';
import {
  OPS_NO_EXECUTOR,
  type InfraNodeFields,
  type InfraNodeTestView,
  type InfraNodeView,
  type MockOpsTask,
  type OpsStatus,
  type OpsTaskView,
  type SshKeyFields,
  type SshKeyView,
} from '../protocol/ops.js';
import { isForeignKeyViolation, isUniqueViolation } from '../store/errors.js';
import type { InfraNodeChange, OpsInventoryRepo } from '../store/repositories/opsInventory.js';
import type { InfraNodeRow, OpsTaskRow, SshKeyRow } from '../store/schema.js';
import { readKeyMaterial } from './sshKeyMaterial.js';

const DEFAULT_SSH_PORT = 22;
const STATUS_MESSAGE = `${OPS_NO_EXECUTOR}: SSH keys and nodes are kept as an inventory for these panels; nothing connects to a node or runs a task on it`;

export interface OpsInventoryDeps {
  repo: OpsInventoryRepo;
  /** Encrypts private keys at rest (a key of its own, derived from the hub's secret). */
  box: SecretBox;
  clock: Clock;
}

function keyView(row: SshKeyRow): SshKeyView {
  const { id, name, public_key, fingerprint, created_at, updated_at } = row;
  return { id, name, public_key, fingerprint, has_private_key: true, created_at, updated_at };
}

function nodeView(row: InfraNodeRow): InfraNodeView {
  const { id, name, host, port, ssh_user, ssh_key_id, description, created_at, updated_at } = row;
  return { id, name, host, port, ssh_user, ssh_key_id, description, created_at, updated_at };
}

function taskView(row: OpsTaskRow): OpsTaskView {
  const success = row.success === 1;
  return {
    id: String(row.id),
    task: row.task,
    reasoning: row.reasoning,
    status: success ? 'completed' : 'failed',
    success,
    summary: row.summary,
    error: row.error,
    worker_mode: row.worker_mode,
    started_at: row.started_at,
    finished_at: row.finished_at,
    duration_ms: row.duration_ms,
    updated_at: row.finished_at,
  };
}

/** The node's fields with the older hub's one sentence for whatever required one is missing. */
function nodeChange(fields: InfraNodeFields, at: string): InfraNodeChange {
  const { name, host, ssh_user, ssh_key_id } = fields;
  if (!name || !host || !ssh_user || ssh_key_id === undefined || ssh_key_id <= 0) {
    throw Errors.badRequest('name, host, ssh_user, and ssh_key_id are required');
  }
  return { name, host, port: fields.port || DEFAULT_SSH_PORT, ssh_user, ssh_key_id, description: fields.description ?? '', updated_at: at };
}

export function createOpsInventoryService(deps: OpsInventoryDeps) {
  const { repo, box, clock } = deps;

  const keyNameTaken = () => Errors.conflict('ssh key name already exists');
  const nodeNameTaken = () => Errors.conflict('infra node name already exists');

  /** Runs a node write, answering a taken name with 409 and a key that does not exist with 404. */
  async function writeNode<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err)) throw nodeNameTaken();
      if (isForeignKeyViolation(err)) throw Errors.notFound('ssh key');
      throw err;
    }
  }

  async function requireKey(id: number): Promise<SshKeyRow> {
    const key = await repo.findKey(id);
    if (!key) throw Errors.notFound('ssh key');
    return key;
  }

  function openStored(row: SshKeyRow): string {
    try {
      return box.open(row.private_key_cipher);
    } catch {
      throw Errors.conflict('the stored private key cannot be decrypted with the current key (TOKEN_SECRET changed?): send the private key again');
    }
  }

  return {
    async status(): Promise<OpsStatus> {
      const counts = await repo.counts();
      return {
        enabled: false,
        worker_reachable: false,
        worker_mode: '',
        service_url: '',
        managed_agent_id: 0,
        managed_agent_name: '',
        node_count: counts.nodes,
        ssh_key_count: counts.keys,
        message: STATUS_MESSAGE,
      };
    },

    async listKeys(): Promise<SshKeyView[]> {
      return (await repo.listKeys()).map(keyView);
    },

    async createKey(fields: SshKeyFields): Promise<SshKeyView> {
      if (!fields.name || !fields.private_key) throw Errors.badRequest('ssh key name and private key are required');
      const material = readKeyMaterial(fields.private_key, fields.public_key);
      const at = clock();
      try {
        const row = await repo.insertKey({
          name: fields.name,
          public_key: material.publicKey,
          fingerprint: material.fingerprint,
          private_key_cipher: box.seal(fields.private_key),
          created_at: at,
          updated_at: at,
        });
        return keyView(row);
      } catch (err) {
        if (isUniqueViolation(err)) throw keyNameTaken();
        throw err;
      }
    },

    /** A new private key replaces the stored one; without one the stored key stays, and a new public key must match it. */
    async updateKey(id: number, fields: SshKeyFields): Promise<SshKeyView> {
      if (!fields.name) throw Errors.badRequest('ssh key name is required');
      const stored = await requireKey(id);
      let change: Parameters<OpsInventoryRepo['updateKey']>[1] = {
        name: fields.name,
        public_key: stored.public_key,
        fingerprint: stored.fingerprint,
        updated_at: clock(),
      };
      if (fields.private_key) {
        const material = readKeyMaterial(fields.private_key, fields.public_key);
        change = { ...change, public_key: material.publicKey, fingerprint: material.fingerprint, private_key_cipher: box.seal(fields.private_key) };
      } else if (fields.public_key && fields.public_key !== stored.public_key) {
        const material = readKeyMaterial(openStored(stored), fields.public_key);
        change = { ...change, public_key: material.publicKey };
      }
      try {
        const row = await repo.updateKey(id, change);
        if (!row) throw Errors.notFound('ssh key');
        return keyView(row);
      } catch (err) {
        if (isUniqueViolation(err)) throw keyNameTaken();
        throw err;
      }
    },

    async deleteKey(id: number): Promise<void> {
      let outcome: Awaited<ReturnType<OpsInventoryRepo['deleteKeyUnlessUsed']>>;
      try {
        outcome = await repo.deleteKeyUnlessUsed(id);
      } catch (err) {
        // A node took the key between the check and the delete.
        if (isForeignKeyViolation(err)) throw Errors.conflict('ssh key is used by an infra node: delete the node or give it another key first');
        throw err;
      }
      if (outcome.deleted) return;
      if (outcome.usedBy !== undefined) {
        throw Errors.conflict(`ssh key is used by infra node ${outcome.usedBy}: delete the node or give it another key first`);
      }
      throw Errors.notFound('ssh key');
    },

    async listNodes(): Promise<InfraNodeView[]> {
      return (await repo.listNodes()).map(nodeView);
    },

    async createNode(fields: InfraNodeFields): Promise<InfraNodeView> {
      const change = nodeChange(fields, clock());
      await requireKey(change.ssh_key_id);
      return nodeView(await writeNode(() => repo.insertNode({ ...change, created_at: change.updated_at })));
    },

    /** The whole node is sent again (the older panels' edit form), checked as on create. */
    async updateNode(id: number, fields: InfraNodeFields): Promise<InfraNodeView> {
      const change = nodeChange(fields, clock());
      if (!(await repo.findNode(id))) throw Errors.notFound('infra node');
      await requireKey(change.ssh_key_id);
      const row = await writeNode(() => repo.updateNode(id, change));
      if (!row) throw Errors.notFound('infra node');
      return nodeView(row);
    },

    async deleteNode(id: number): Promise<void> {
      if (!(await repo.deleteNode(id))) throw Errors.notFound('infra node');
    },

    /** The older panels' connectivity check: answered, honestly, that nothing here can connect. */
    async testNode(id: number): Promise<InfraNodeTestView> {
      const node = await repo.findNode(id);
      if (!node) throw Errors.notFound('infra node');
      return {
        node_id: node.id,
        ok: false,
        message: `no executor can reach nodes from this hub: ${node.name} (${node.ssh_user}@${node.host}:${node.port}) is kept as an inventory entry only, and nothing connected to it`,
        round_trip_ms: 0,
        checked_at_utc: clock(),
      };
    },

    async listTasks(limit: number): Promise<OpsTaskView[]> {
      return (await repo.recentTasks(limit)).map(taskView);
    },

    /** A task record for the console (dev seeding): it finished now, after `duration_ms`. */
    async recordTask(task: MockOpsTask): Promise<void> {
      const finished = clock();
      const started = new Date(Date.parse(finished) - task.duration_ms).toISOString();
      await repo.insertTask({
        task: task.task,
        reasoning: task.reasoning,
        success: task.success ? 1 : 0,
        summary: task.summary,
        error: task.error,
        worker_mode: task.worker_mode,
        duration_ms: task.duration_ms,
        started_at: started,
        finished_at: finished,
      });
    },
  };
}
export type OpsInventoryService = ReturnType<typeof createOpsInventoryService>;
