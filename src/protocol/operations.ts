// Zod schemas of the operations routes' inputs: actor inspection's query and path.
import * as z from 'zod';
import { id } from './http.js';

const emptyAsAbsent = (v: unknown) => (v === '' ? undefined : v);

export const actorsQuery = z.object({
  user_id: z.preprocess(emptyAsAbsent, id.optional()).meta({ description: "only this user's connection actors in `items`" }),
  limit: z.coerce.number().int().min(1).max(1000).default(100).meta({ description: 'most actors listed per section' }),
});

/** `router`, `connection-12`, and the ids Butler and the connector give their actors. */
export const actorParams = z.object({ actor_id: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'must be an actor id such as router or connection-12') });
