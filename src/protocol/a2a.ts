// The wire shapes of the hub's A2A side that are ours, not the A2A specification's: the skills an
// admin declares for an agent (the card's `skills`), the body that changes an agent's card, and the
// catalogue of cards (A2A has no registry API). A2A's own messages are validated by its SDK.
import * as z from 'zod';

const text = (max: number) => z.string().trim().min(1).max(max);

/** One skill of an agent's card (A2A AgentSkill, the fields an admin writes). */
export const agentSkill = z.object({
  id: text(64).regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, underscore and dash only'),
  name: text(128),
  description: text(1024),
  tags: z.array(text(64)).max(20).default([]),
  examples: z.array(text(512)).max(20).default([]),
});
export type AgentSkill = z.infer<typeof agentSkill>;
export const agentSkills = z
  .array(agentSkill)
  .max(32)
  .refine((skills) => new Set(skills.map((s) => s.id)).size === skills.length, 'skill ids must be unique');

/** `PATCH /api/users/agents/:id/card`: a field left out stays; `null` clears it. */
export const updateAgentCardBody = z
  .object({
    description: z.string().trim().max(1024).nullable().optional(),
    skills: agentSkills.nullable().optional(),
  })
  .refine((b) => b.description !== undefined || b.skills !== undefined, 'give description or skills');

export const usernameParams = z.object({ username: z.string().min(1).max(64) });

/** One entry of `GET /a2a/agents`: a card the caller may use, and where it is. */
export const catalogueEntry = z.object({
  name: z.string(),
  description: z.string(),
  /** Butler (the hub's own card) or an agent. */
  kind: z.enum(['butler', 'agent']),
  online: z.boolean(),
  card_url: z.string(),
  endpoint_url: z.string(),
});
export type CatalogueEntry = z.infer<typeof catalogueEntry>;
