// The REST commands of `hub-agent`: agents, users and approvals. Lists print a header row and one
// tab-separated line per item (or JSON with --json) on stdout; what was done goes to stderr, what a
// script needs (a token, an id) to stdout.
import type { AuthorizationView, RestClient } from '../client/rest.js';
import type { Run } from './options.js';
import { findAgent, findPerson, nameOfUser } from './users.js';

type AdminRun = Extract<Run, { command: `agents ${string}` | `users ${string}` | `approvals ${string}` }>;

export interface Output {
  stdout(line: string): void;
  progress(line: string): void;
}

const column = (values: Array<string | number | null | undefined>) =>
  values.map((v) => (v === null || v === undefined || v === '' ? '-' : String(v))).join('\t');

function printList<T>(out: Output, json: boolean, items: T[], header: string[], line: (item: T) => string): void {
  if (json) return out.stdout(JSON.stringify(items));
  out.stdout(header.join('\t'));
  for (const item of items) out.stdout(line(item));
}

export const APPROVALS_HEADER = ['ACTION_ID', 'STATUS', 'AGENT', 'COMMAND', 'REASON', 'DECIDED_BY', 'DECIDED_AT', 'EXPIRES_AT', 'NOTE'];

/** A note on one line of its own column: tabs and line breaks would split it. */
const inColumn = (text: string | null) => (text === null ? null : text.replace(/\s+/g, ' '));

/**
 * One request as a line: who decided and when once it is decided (an expiry is decided by no one),
 * its expiry while pending, and the note left with the decision.
 */
async function approvalLine(r: AuthorizationView, nameOf: (id: number) => Promise<string>): Promise<string> {
  const decidedBy = r.decided_by === null ? null : await nameOf(r.decided_by);
  const expires = r.status === 'PENDING' ? r.expires_at : null;
  return column([r.action_id, r.status, r.target_agent_name, r.command, r.reason, decidedBy, r.decided_at, expires, inColumn(r.decision_note ?? null)]);
}

export async function runAdmin(run: AdminRun, rest: RestClient, out: Output): Promise<number> {
  switch (run.command) {
    case 'agents list': {
      const { items } = await rest.agents.list({ limit: 1000 });
      printList(out, run.json, items, ['ID', 'NAME', 'ROLE', 'STATUS', 'KIND', 'TOKEN_HINT'], (a) =>
        column([a.id, a.username, a.role, a.status, a.agent_kind, a.token_hint]),
      );
      return 0;
    }
    case 'agents register': {
      if (run.a2a !== undefined) {
        const remote = await rest.agents.register({
          username: run.name,
          agent_kind: run.kind,
          description: run.description,
          runtime_kind: 'a2a',
          card_url: run.a2a,
          credential: run.credential,
        });
        out.progress(`registered the A2A agent ${remote.username} (id ${remote.id}) by its card; the hub calls it and shows it ONLINE while its card answers`);
        out.stdout(String(remote.id));
        return 0;
      }
      if (run.credential !== undefined) throw new Error('--credential (or $HUB_A2A_CREDENTIAL) goes with --a2a: it is what the hub sends a remote agent');
      const created = await rest.agents.register({ username: run.name, agent_kind: run.kind, description: run.description });
      out.progress(`registered agent ${created.username} (id ${created.id}); its api_token follows, shown this once`);
      out.stdout(created.api_token ?? '');
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
      printList(out, run.json, items, ['ID', 'NAME', 'ROLE', 'STATUS'], (u) => column([u.id, u.username, u.role, u.status]));
      return 0;
    }
    case 'users create': {
      const user = await rest.users.create({ username: run.username, role: run.role, password: run.password });
      out.progress(`created ${user.role} ${user.username} (id ${user.id})`);
      out.stdout(String(user.id));
      return 0;
    }
    case 'users password': {
      const person = await findPerson(rest, run.user);
      await rest.users.update(person.id, { password: run.password });
      out.progress(`set the password of ${person.username} (id ${person.id})`);
      return 0;
    }
    case 'approvals list': {
      const items = await rest.chat.authRequests(run.status ? { status: run.status as 'PENDING' } : {});
      if (run.json) {
        out.stdout(JSON.stringify(items));
        return 0;
      }
      const names = new Map<number, Promise<string>>();
      const nameOf = (id: number) => names.get(id) ?? names.set(id, nameOfUser(rest, id)).get(id)!;
      const lines = await Promise.all(items.map((r) => approvalLine(r, nameOf)));
      printList(out, false, lines, APPROVALS_HEADER, (line) => line);
      return 0;
    }
    case 'approvals approve':
    case 'approvals reject': {
      const approved = run.command === 'approvals approve';
      const result = await rest.chat.authRespond(run.actionId, approved, run.note);
      out.progress(`${approved ? 'approved' : 'rejected'} ${result.action_id}`);
      return 0;
    }
  }
}
