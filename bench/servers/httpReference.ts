// The reference point for the hub's HTTP figures: bare ultimate-express routes doing the same SQL
// as the hub's on the same SQLite file, with none of the hub's layers (no credential check beyond
// reading the caller's row, no validation, no metrics, no request log, no delivery). The hub's cost
// per request over this one's is what its layers add. Run alone:
// `npx tsx bench/servers/httpReference.ts --port 9002 --db <hub.db>`.
//
// - GET /api/users/agents?uid=<caller>: the caller's row, then the file's change mark; while it is
//   unchanged the page read before is reused, else agents and Butler with their token hints in one
//   joined query (the page tells the total; a full page would count), as JSON views.
// - POST /api/messages?uid=<agent>: the sender's row, then the row inserted; commits are grouped per
//   event-loop turn (one transaction, one fsync, synchronous=FULL as the hub's) before each 201.
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import express from 'ultimate-express';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '9002' }, host: { type: 'string', default: '127.0.0.1' }, db: { type: 'string' } },
});
if (!values.db) throw new Error('--db <path of the hub SQLite file> is required');

const db = new BetterSqlite3(values.db);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');

interface UserRow {
  id: number;
  username: string;
  role: string;
  actor_type: string;
  agent_kind: string | null;
  runtime_kind: string | null;
  description: string | null;
  created_at: string;
  status: string;
  online: number;
  last_seen_at: string | null;
  last_report: string | null;
  token_hint: string | null;
  token_updated_at: string | null;
}

const userById = db.prepare<[number], UserRow>('select * from "users" where "id" = ?');
// The hub's compiled agent-list query, word for word.
const agents = db.prepare<[string, string, number, number], UserRow>(
  'select "users".*, "machine_credentials"."token_hint", "machine_credentials"."token_updated_at" from "users" left join "machine_credentials" on "machine_credentials"."user_id" = "users"."id" where "role" in (?, ?) order by "users"."id" limit ? offset ?',
);
const changeMark = db.prepare<[], { v: number; c: number }>('select (select data_version from pragma_data_version) as v, total_changes() as c');
let page: { mark: string; rows: UserRow[]; total: number } | undefined;
const countAgents = db.prepare<[string, string], { n: number }>('select count(*) as "n" from "users" where "role" in (?, ?)');
const insertMessage = db.prepare(
  'insert into "messages" ("type", "sender_id", "sender_name", "sender_role", "target_id", "payload", "level", "content", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?)',
);

function view(r: UserRow) {
  const v: Record<string, unknown> = {
    id: r.id,
    username: r.username,
    role: r.role,
    actor_type: r.actor_type,
    agent_kind: r.agent_kind,
    runtime_kind: r.runtime_kind,
    description: r.description,
    created_at: r.created_at,
    status: r.status,
    online: r.online === 1,
    last_seen_at: r.last_seen_at,
    last_report: r.last_report,
  };
  if (r.token_hint !== null) {
    v['token_hint'] = r.token_hint;
    v['token_updated_at'] = r.token_updated_at;
  }
  return v;
}

interface Pending {
  sender: UserRow;
  level: string;
  content: string;
  at: string;
  answer(id: number): void;
}

// Group commit: rows posted during one event-loop turn share one transaction.
let pending: Pending[] = [];
const commit = db.transaction((batch: Pending[]) =>
  batch.map((p) => {
    const payload = JSON.stringify({ level: p.level, content: p.content });
    return Number(insertMessage.run('SYSTEM_LOG', p.sender.id, p.sender.username, p.sender.role, null, payload, p.level, p.content, p.at).lastInsertRowid);
  }),
);
function flush() {
  const batch = pending;
  pending = [];
  const ids = commit(batch);
  batch.forEach((p, i) => p.answer(ids[i]!));
}

// threads: 0, as the hub: no file-serving worker threads.
const app = express({ threads: 0 });
app.use(express.json());

app.get('/ping', (_req, res) => {
  res.send('ok');
});

app.get('/api/users/agents', (req, res) => {
  const caller = userById.get(Number(req.query['uid']));
  if (!caller) return void res.status(401).json({ error: 'invalid token' });
  const limit = 1000;
  const { v, c } = changeMark.get()!;
  const mark = `${v}:${c}`;
  if (page?.mark !== mark) {
    const rows = agents.all('AGENT', 'BUTLER', limit, 0);
    page = { mark, rows, total: rows.length < limit ? rows.length : countAgents.get('AGENT', 'BUTLER')!.n };
  }
  res.setHeader('X-Total-Count', String(page.total));
  res.json(page.rows.map(view));
});

app.post('/api/messages', (req, res) => {
  const sender = userById.get(Number(req.query['uid']));
  if (!sender) return void res.status(401).json({ error: 'invalid token' });
  const body = req.body as { level?: unknown; content?: unknown };
  if (typeof body.level !== 'string' || typeof body.content !== 'string') return void res.status(400).json({ error: 'level and content are required' });
  const at = new Date().toISOString();
  const { level, content } = body;
  if (pending.length === 0) setImmediate(flush);
  pending.push({
    sender,
    level,
    content,
    at,
    answer: (id) =>
      res.status(201).json({
        id,
        sender_id: sender.id,
        sender_name: sender.username,
        sender_role: sender.role,
        type: 'SYSTEM_LOG',
        payload: { level, content },
        timestamp: at,
        agent_id: sender.username,
        level,
        content,
      }),
  });
});

app.listen(Number(values.port), values.host, () => undefined);
