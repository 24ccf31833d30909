// What the hub says about its agents' presence (GET /api/users/agents/status), read with zod.
import { z } from 'zod';

const presence = z.array(z.looseObject({ id: z.number(), username: z.string(), online: z.boolean() }));

export async function presenceOf(baseUrl: string, adminToken: string): Promise<Map<number, boolean>> {
  const res = await fetch(`${baseUrl}/api/users/agents/status`, { headers: { authorization: `Bearer ${adminToken}` }, signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`GET /api/users/agents/status → ${res.status}`);
  return new Map(presence.parse(await res.json()).map((p) => [p.id, p.online]));
}
