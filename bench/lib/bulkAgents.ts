// Agents registered in bulk, straight into a PostgreSQL store the hub has migrated: the rows the
// hub's own registration writes (users, machine_credentials with the token's HMAC lookup and
// AES-GCM copy from the hub's token vault), a few thousand per statement. Registering 100,000
// agents over HTTP one by one would take minutes of the hub's CPU that the scale run is not about.
import pg from 'pg';
import { createTokenVault } from '../../src/auth/agentTokens.js';

export interface BulkAgent {
  id: number;
  token: string;
}

const CHUNK = 5_000;

/** Inserts `count` agents named `<prefix>-<i>`; `tokenSecret` must be the hubs' TOKEN_SECRET. */
export async function insertAgents(databaseUrl: string, tokenSecret: string, prefix: string, count: number): Promise<BulkAgent[]> {
  const vault = createTokenVault(tokenSecret);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const agents: BulkAgent[] = [];
  try {
    const now = new Date().toISOString();
    for (let from = 0; from < count; from += CHUNK) {
      const names: string[] = [];
      const tokens: string[] = [];
      for (let i = from; i < Math.min(count, from + CHUNK); i++) {
        names.push(`${prefix}-${i}`);
        tokens.push(vault.generate());
      }
      const sealed = tokens.map((t) => vault.seal(t));
      await client.query('BEGIN');
      const { rows } = await client.query<{ id: string; username: string }>(
        `INSERT INTO users (username, role, actor_type, agent_kind, runtime_kind, status, online, created_at, updated_at)
         SELECT u, 'AGENT', 'SYSTEM', 'bench', 'bench', 'OFFLINE', 0, $2, $2 FROM unnest($1::text[]) AS u
         RETURNING id, username`,
        [names, now],
      );
      const idOf = new Map(rows.map((r) => [r.username, Number(r.id)]));
      const ids = names.map((n) => idOf.get(n)!);
      await client.query(
        `INSERT INTO machine_credentials (user_id, token_lookup, token_cipher, token_hint, token_updated_at)
         SELECT * , $5 FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])`,
        [ids, sealed.map((s) => s.lookup), sealed.map((s) => s.cipher), sealed.map((s) => s.hint), now],
      );
      await client.query('COMMIT');
      ids.forEach((id, k) => agents.push({ id, token: tokens[k]! }));
    }
  } finally {
    await client.end();
  }
  return agents;
}
