// The cards the A2A routes serve: the hub's own (Butler), one per agent looked up by name, and the
// catalogue of those a caller may use. Each card is built for the origin the caller used.
import { Errors } from '../errors.js';
import type { CatalogueEntry } from '../protocol/a2a.js';
import { BUTLER_USERNAME } from '../protocol/roles.js';
import type { UsersRepo } from '../store/repositories/users.js';
import type { UserRow } from '../store/schema.js';
import { skillsOf } from '../services/agents.js';
import { agentCard, butlerCard, CARD_PATH, endpointPath } from './cards.js';
import { isCardSubject, mayUse } from './peers.js';

export interface CardServiceDeps {
  users: Pick<UsersRepo, 'findByUsername' | 'list'>;
  /** Whether the endpoints take push-notification configs (cards say so). */
  pushNotifications: boolean;
}

/** The most agents the catalogue lists (one page of the store's machine users). */
const CATALOGUE_LIMIT = 1000;

export function createCardService(deps: CardServiceDeps) {
  const { users } = deps;

  function cardOf(row: UserRow, origin: string): Record<string, unknown> {
    const options = { origin, pushNotifications: deps.pushNotifications };
    if (row.role === 'BUTLER') return butlerCard(row.username, options);
    return agentCard(
      { username: row.username, description: row.description, agentKind: row.agent_kind, runtimeKind: row.runtime_kind, skills: skillsOf(row) },
      options,
    );
  }

  /** The agent or Butler named `username`; anyone else (a human, nobody) is not found. */
  async function subject(username: string): Promise<UserRow> {
    const row = await users.findByUsername(username);
    if (!row || !isCardSubject(row)) throw Errors.notFound('agent');
    return row;
  }

  return {
    subject,

    async hubCard(origin: string): Promise<Record<string, unknown>> {
      return cardOf(await subject(BUTLER_USERNAME), origin);
    },

    async agentCard(username: string, origin: string): Promise<Record<string, unknown>> {
      return cardOf(await subject(username), origin);
    },

    /** Butler first, then the agents by id: those `caller` may send tasks to. */
    async catalogue(caller: UserRow, origin: string): Promise<CatalogueEntry[]> {
      const { rows } = await users.list({ roles: ['BUTLER', 'AGENT'], offset: 0, limit: CATALOGUE_LIMIT });
      const usable = rows.filter((row) => mayUse(caller, row)).sort((a, b) => Number(b.role === 'BUTLER') - Number(a.role === 'BUTLER'));
      return usable.map((row) => {
        const card = cardOf(row, origin);
        return {
          name: row.username,
          description: String(card['description']),
          kind: row.role === 'BUTLER' ? 'butler' : 'agent',
          online: row.role === 'BUTLER' || row.online === 1,
          card_url: `${origin}${endpointPath(row.username)}${CARD_PATH}`,
          endpoint_url: `${origin}${endpointPath(row.username)}`,
        };
      });
    },
  };
}
export type CardService = ReturnType<typeof createCardService>;
