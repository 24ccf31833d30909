// The older EchoCenter seed script (backend/scripts/seed_mock_data.sh, API-only), replayed request
// by request as it sends them: the same paths, bodies and order, and the same fields read back from
// the answers (a thread's id, a key's id, the connector's id). Its SSH keys are made as its
// `ssh-keygen -t ed25519` makes them: OpenSSH private keys with their `ssh-ed25519 …` public lines.
import sshpk from 'sshpk';
import type { ApiClient, ApiResponse } from './http.js';

export const SEED_AGENTS = ['Observer', 'Diagnoser', 'Guardian', 'Storage-Custodian'] as const;
const DESCRIPTIONS = [
  'Observes runtime state, service health, and unexpected anomalies in real time.',
  'Analyzes incidents, traces root causes, and provides diagnosis summaries.',
  'Applies risk controls, approval gates, and operation safety checks.',
  'Maintains storage health, telemetry snapshots, and recovery workflows.',
];
const TOKENS = ['mock-observer-token', 'mock-diagnoser-token', 'mock-guardian-token', 'mock-storage-custodian-token'];
/** Agents the script gives the classic three-row chat (Storage-Custodian's history is kept clean). */
export const CLASSIC_CHAT_AGENTS = ['Observer', 'Diagnoser', 'Guardian'] as const;
export const CLASSIC_CHAT = (agent: string) => [
  [agent, 'admin', `Initial link established with ${agent}.`],
  ['admin', agent, 'Acknowledged. Report current status.'],
  [agent, 'admin', 'Status nominal. Task queue is clear.'],
];

/** One request the script sent and what it got back. */
export interface SeedCall {
  step: number;
  method: string;
  path: string;
  status: number;
  body: any;
}

export interface SeedKey {
  name: string;
  id: number;
  publicKey: string;
  privateKey: string;
}

export interface SeedResult {
  calls: SeedCall[];
  /** The last step the script reached (7 when it ran to its end). */
  lastStep: number;
  keys: SeedKey[];
  threads: Record<string, number>;
  connectorId: number;
}

const TASKS = [
  {
    task: 'write_and_run_code',
    reasoning: 'Butler delegated a quick numerical calculation to the runtime.',
    summary:
      'Code:\n\n```py\nsum = 0\nfor i in range(1, 11):\n    sum += i ** 2\nprint(sum)\n```\n\nOutput:\n\n```text\n385\n```\n\nFinal Result:\n\n```text\n385\n```',
    duration_ms: 22170,
  },
  {
    task: 'inspect_service_status',
    reasoning: 'Check service readiness on staging-worker-02 before release window.',
    summary:
      'Command:\n\n```sh\nssh -i staging_key -p 22 deploy@10.30.4.22 systemctl status worker.service --no-pager\n```\n\nstdout:\n\n```text\nworker.service is active (running)\n```\n\nFinal Result:\n\n```text\nStaging worker is healthy and ready for rollout.\n```',
    duration_ms: 11840,
  },
  {
    task: 'collect_nginx_error_context',
    reasoning: 'Gather the latest nginx error details from prod-web-01 for Butler to summarize.',
    summary:
      'Command:\n\n```sh\nssh -i bastion_key ubuntu@10.20.0.14 tail -n 80 /var/log/nginx/error.log\n```\n\nstderr:\n\n```text\n2026/03/19 upstream timed out while reading response header\n```\n\nFinal Result:\n\n```text\nNginx is reachable, but one upstream timeout was observed and should be investigated.\n```',
    duration_ms: 16320,
  },
];
export const SEED_TASKS = TASKS;

export const SEED_NODES = [
  {
    name: 'prod-web-01',
    host: '10.20.0.14',
    port: 22,
    ssh_user: 'ubuntu',
    key: 'Primary Bastion Key',
    description: 'Primary nginx ingress node serving production traffic.',
  },
  {
    name: 'staging-worker-02',
    host: '10.30.4.22',
    port: 22,
    ssh_user: 'deploy',
    key: 'Staging Fleet Key',
    description: 'Background worker used for staging task execution and smoke checks.',
  },
  {
    name: 'db-readonly-01',
    host: '10.20.8.11',
    port: 2222,
    ssh_user: 'postgres',
    key: 'Primary Bastion Key',
    description: 'Readonly analytics replica for diagnostics and reporting.',
  },
];

/** Thrown where the script itself would stop: a field it reads back is missing (its `json_field` fails). */
class ScriptStopped extends Error {}

/** Replays the script against `api` with the admin's credentials; stops where the script would. */
export async function replayOlderSeed(api: ApiClient, admin: { username: string; password: string }): Promise<SeedResult> {
  const calls: SeedCall[] = [];
  const result: SeedResult = { calls, lastStep: 0, keys: [], threads: {}, connectorId: 0 };
  let token = '';
  let step = 0;
  const send = async (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
    const res = await api.request(method, `/api${path}`, { token: token || undefined, body });
    calls.push({ step, method, path, status: res.status, body: res.body });
    return res;
  };
  const field = (res: ApiResponse, key: string): any => {
    const value = res.body?.[key];
    if (value === undefined || value === null) throw new ScriptStopped(`step ${step}: no "${key}" in ${res.status} ${JSON.stringify(res.body)}`);
    return value;
  };

  try {
    step = 1;
    const login = await send('POST', '/auth/login', { username: admin.username, password: admin.password });
    token = field(login, 'token');

    step = 2;
    await send('POST', '/users/agents', { username: 'Butler' });

    step = 3;
    for (const [i, username] of SEED_AGENTS.entries()) {
      await send('POST', '/users/agents', { username, api_token: TOKENS[i], description: DESCRIPTIONS[i] });
    }

    step = 4;
    for (const agent of SEED_AGENTS) {
      await send('POST', '/messages', { agent_id: agent, level: 'INFO', content: `${agent} heartbeat nominal and ready for dispatch.` });
      await send('POST', '/messages', { agent_id: agent, level: 'INFO', content: `${agent} completed scheduled diagnostics pass.` });
      await send('POST', '/messages', {
        agent_id: agent,
        level: 'WARNING',
        content: `${agent} detected minor drift in response latency and applied mitigation.`,
      });
      await send('POST', '/messages', { agent_id: agent, level: 'INFO', content: `${agent} exported latest telemetry snapshot to central archive.` });
    }
    await send('POST', '/messages', { agent_id: 'Guardian', level: 'ERROR', content: 'Approval gate blocked one high-risk operation pending manual review.' });
    await send('POST', '/messages', {
      agent_id: 'Diagnoser',
      level: 'ERROR',
      content: 'Root-cause correlation stalled due to missing upstream trace segment.',
    });
    await send('POST', '/messages', {
      agent_id: 'Storage-Custodian',
      level: 'INFO',
      content: 'Recovered orphaned block metadata and reconciled index entries.',
    });
    await send('POST', '/messages', {
      agent_id: 'Observer',
      level: 'INFO',
      content: 'Runtime observability stream is healthy and ingest latency is within target.',
    });
    await send('POST', '/messages', {
      agent_id: 'Observer',
      level: 'WARNING',
      content: 'A transient spike was detected on request latency and auto-recovered.',
    });
    const butlerId = field(await send('GET', '/users/butler'), 'id') as number;
    const agents = (await send('GET', '/users/agents')).body as Array<{ id: number; username: string }>;
    const idOf = (name: string) => {
      const found = agents.find((a) => a.username === name);
      if (!found) throw new ScriptStopped(`step 4: ${name} is not in GET /users/agents`);
      return found.id;
    };

    step = 5;
    const createThread = async (peerId: number, kind: string, title: string, summary: string, pinned: boolean) => {
      const id = field(await send('POST', '/chat/threads', { peer_id: peerId, channel_kind: kind, title }), 'id') as number;
      await send('PATCH', `/chat/threads/${id}`, { summary, is_pinned: pinned });
      result.threads[title] = id;
      return id;
    };
    const threadChat = (thread: number, sender: string, receiver: string, content: string) =>
      send('POST', '/dev/mock/chat', { sender_username: sender, receiver_username: receiver, conversation_id: thread, type: 'CHAT', content });
    const runtime = await createThread(
      butlerId,
      'butler_direct',
      'Runtime Audit Desk',
      'Review OpenHands delegations, approvals, and execution summaries.',
      true,
    );
    await threadChat(runtime, 'admin', 'Butler', '帮我准备一个今天的运行时总览，重点看执行链、审批和异常。');
    await threadChat(runtime, 'Butler', 'admin', '今天的运行时链路总体稳定。OpenHands 最近完成了多次代码与巡检任务，审批链路全部可追踪，暂未发现阻塞性异常。');
    const scratch = await createThread(
      butlerId,
      'butler_direct',
      'Python Scratchpad',
      'Ask Butler to draft and execute small code snippets through OpenHands.',
      false,
    );
    await threadChat(scratch, 'admin', 'Butler', '请写一段 Python 代码计算最近 7 天异常数平均值。');
    await threadChat(scratch, 'Butler', 'admin', '可以，我会把这类代码任务委派给 OpenHands，并把代码和结果一起带回来。');
    const coordination = await createThread(
      butlerId,
      'butler_direct',
      'Agent Coordination Notes',
      'Cross-agent coordination thread focused on monitoring and delegation.',
      false,
    );
    await threadChat(coordination, 'admin', 'Butler', '今天如果有新的安全告警，先通知我，再看要不要委派处理。');
    await threadChat(coordination, 'Butler', 'admin', '已记录。我会优先整理告警摘要，再决定是否需要委派给对应 Agent 或 OpenHands。');
    const observer = await createThread(
      idOf('Observer'),
      'agent_direct',
      'Runtime Observation',
      'Observe service state, execution flow health, and anomaly signals.',
      true,
    );
    await threadChat(observer, 'admin', 'Observer', '先给我一个当前运行时状态和异常概览。');
    await threadChat(observer, 'Observer', 'admin', '整体运行时可用，刚出现过一次短暂延迟抖动，目前已恢复并持续监控中。');
    const diagnoser = await createThread(
      idOf('Diagnoser'),
      'agent_direct',
      'Root Cause Desk',
      'Diagnose incidents with chain-of-causation summaries and next checks.',
      false,
    );
    await threadChat(diagnoser, 'admin', 'Diagnoser', '昨天那次执行超时，你先做下归因分析。');
    await threadChat(diagnoser, 'Diagnoser', 'admin', '初步归因为上游依赖抖动叠加连接池水位不足，建议先扩容并补一轮压测验证。');
    const guardian = await createThread(
      idOf('Guardian'),
      'agent_direct',
      'Risk Gate',
      'Control risk with approval gates before high-impact operations.',
      false,
    );
    await threadChat(guardian, 'admin', 'Guardian', '有高风险运维动作时，先走你的审批门禁。');
    await threadChat(guardian, 'Guardian', 'admin', '已开启高风险门禁策略：未通过审批的破坏性操作将被自动阻断。');
    for (const agent of CLASSIC_CHAT_AGENTS) {
      for (const [sender, receiver, content] of CLASSIC_CHAT(agent)) {
        await send('POST', '/dev/mock/chat', { sender_username: sender, receiver_username: receiver, content });
      }
    }

    step = 6;
    for (const name of ['Primary Bastion Key', 'Staging Fleet Key']) {
      const key = sshpk.generatePrivateKey('ed25519');
      key.comment = `seed@${name.replace(/ /g, '_')}`;
      const privateKey = key.toString('openssh');
      const publicKey = key.toPublic().toString('ssh');
      const id = field(await send('POST', '/users/ops/ssh-keys', { name, public_key: publicKey, private_key: privateKey }), 'id') as number;
      result.keys.push({ name, id, publicKey, privateKey });
    }
    const keyId = (name: string) => result.keys.find((k) => k.name === name)!.id;
    for (const node of SEED_NODES) {
      await send('POST', '/users/ops/nodes', {
        name: node.name,
        host: node.host,
        port: node.port,
        ssh_user: node.ssh_user,
        ssh_key_id: keyId(node.key),
        description: node.description,
      });
    }
    const connector = await send('POST', '/integrations/feishu', {
      connector_name: 'Ops Bridge',
      app_id: 'cli_mock_app_id',
      app_secret: 'cli_mock_app_secret',
      verification_token: 'mock-verification-token',
      encrypt_key: 'mock-encrypt-key',
      allow_dm: true,
      allow_group_mention: true,
      mention_required: true,
      prefix_command: '/butler',
      ignore_bot_messages: true,
      rate_limit_per_minute: 24,
      allowed_chat_ids: ['oc_mock_ops_room', 'oc_mock_release_room'],
      callback_url: 'https://mock.echocenter.local/feishu/callback',
    });
    result.connectorId = field(connector, 'id');
    await send('POST', `/integrations/feishu/${result.connectorId}/test-message`, {
      target_chat_id: 'oc_mock_ops_room',
      text: 'Mock test message accepted for operations room.',
    });
    await send('POST', '/dev/mock/feishu-log', { level: 'info', action: 'ws_connecting', detail: 'Mock WebSocket bridge connected to Feishu sandbox domain.' });
    await send('POST', '/dev/mock/feishu-log', {
      level: 'warning',
      action: 'callback_verification_reset',
      detail: 'Callback verification was reset after connector settings changed during development.',
    });
    await send('POST', '/dev/mock/feishu-log', {
      level: 'success',
      action: 'test_message',
      detail: 'Sent a synthetic approval-card test message to the mock ops room.',
    });

    step = 7;
    for (const task of TASKS) await send('POST', '/dev/mock/ops-task', { ...task, success: true, worker_mode: 'service' });
    result.lastStep = 7;
  } catch (err) {
    if (!(err instanceof ScriptStopped)) throw err;
    result.lastStep = step - 1;
  }
  return result;
}
