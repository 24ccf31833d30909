// The REST commands of `hub-agent`: agents, users and approvals. Lists print one line per item
// (or JSON with --json) on stdout; what was done goes to stderr, what a script needs (a token) to stdout.
import type { RestClient } from '../client/rest.js';
import type { Run } from './options.js';
import { findAgent } from './users.js';

type AdminRun = Extract<Run, { command: `agents ${string}` | `users ${string}` | `approvals ${string}` }>;

export interface Output {
  stdout(line: string): void;
  progress(line: string): void;
}

const column = (values: Array<string | number | null | undefined>) =>
  values.map((v) => (v === null || v === undefined || v === '' ? '-' : String(v))).join('\t');

function printList<T>(out: Output, json: boolean, items: T[], line: (item: T) => string): void {
  if (json) out.stdout(JSON.stringify(items));
  else for (const item of items) out.stdout(line(item));
}

export async function runAdmin(run: AdminRun, rest: RestClient, out: Output): Promise<number> {
  switch (run.command) {
    case 'agents list': {
      const { items } = await rest.agents.list({ limit: 1000 });
      printList(out, run.json, items, (a) => column([a.id, a.username, a.role, a.status, a.agent_kind, a.token_hint]));
      return 0;
    }
    case 'agents register': {
      const created = await rest.agents.register({ username: run.name, agent_kind: run.kind, description: run.description });
      out.progress(`registered agent ${created.username} (id ${created.id}); its api_token follows, shown this once`);
      out.stdout(created.api_token);
      return 0;
    }
    case 'agents rotate': {
      const agent = await findAgent(rest, run.agent);
      const rotated = await rest.agents.rotateToken(agent.id);
      out.progress(`new api_token for ${agent.username} (id ${agent.id}); the old one no longer works`);
      out.stdout(rotated.api_token);
      return 0;
    }
    case 'agents delete': {
      const agent = await findAgent(rest, run.agent);
      await rest.agents.remove(agent.id);
      out.progress(`deleted agent ${agent.username} (id ${agent.id})`);
      return 0;
    }
    case 'users list': {
      const { items } = await rest.users.list({ role: run.role, limit: 1000 });
      printList(out, run.json, items, (u) => column([u.id, u.username, u.role, u.status]));
      return 0;
    }
    case 'users create': {
      const user = await rest.users.create({ username: run.username, role: run.role, password: run.password });
      out.progress(`created ${user.role} ${user.username}${run.password ? '' : ' without a password (set one before they can log in)'}`);
      out.stdout(String(user.id));
      return 0;
    }
    case 'approvals list': {
      const items = await rest.chat.authRequests(run.status ? { status: run.status as 'PENDING' } : {});
      printList(out, run.json, items, (r) => column([r.action_id, r.status, r.target_agent_name, r.command, r.reason, r.expires_at]));
      return 0;
    }
    case 'approvals approve':
    case 'approvals reject': {
      const approved = run.command === 'approvals approve';
      const result = await rest.chat.authRespond(run.actionId, approved);
      out.progress(`${approved ? 'approved' : 'rejected'} ${result.action_id}`);
      return 0;
    }
  }
}
