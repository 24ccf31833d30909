// Users for a check, set up over the hub's HTTP API with the bench's helpers; every credential
// handed out is entered in the run's secret book, so the scan knows what must never leak.
import { createCast, HubApi, MEMBER_PASSWORD, type Cast } from '../../bench/lib/api.js';
import { ADMIN, type Hub } from '../../bench/lib/servers.js';
import type { ChaosContext } from './check.js';

export interface Crew extends Cast {
  api: HubApi;
  adminToken: string;
}

export async function crew(ctx: ChaosContext, hub: Hub, prefix: string, humans: number, agents: number): Promise<Crew> {
  const api = new HubApi(hub.baseUrl);
  const { token: adminToken } = await api.login(ADMIN.username, ADMIN.password);
  ctx.secrets.add('password', ADMIN.password);
  ctx.secrets.add('password', MEMBER_PASSWORD);
  const cast = await createCast(api, adminToken, prefix, humans, agents);
  for (const a of cast.agents) ctx.secrets.add('api_token', a.api_token);
  return { ...cast, api, adminToken };
}
