// Butler's wire shapes (wire.md §5): authorization requests and answers, directives, and the
// arguments of the tools the language model may call (names fixed: prompts and tests rely on them).
import * as z from 'zod';

export const AuthorizationStatuses = ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED'] as const;
export type AuthorizationStatusName = (typeof AuthorizationStatuses)[number];

/** `POST /api/chat/auth/response` and the payload of an `AUTH_RESPONSE` frame. */
/** Longest note a human may leave with a decision. */
export const MAX_DECISION_NOTE = 2000;

/** A decision's note: optional and trimmed (an empty one is stored as no note). */
export const decisionNote = z.string().trim().max(MAX_DECISION_NOTE).optional();

/** `POST /api/chat/auth/response` and the payload of an `AUTH_RESPONSE` frame (`note`: an addition, optional). */
export const authResponseBody = z.object({
  action_id: z.string().trim().min(1, 'action_id is required').max(128),
  approved: z.boolean(),
  note: decisionNote,
});
export type AuthResponseInput = z.infer<typeof authResponseBody>;

export const authResponseResult = z.object({
  status: z.literal('processed'),
  action_id: z.string(),
  result: z.string().describe('what happens next, in words'),
});

/** An authorization request as `GET /api/chat/auth/requests` lists it. */
export const authorizationView = z.object({
  action_id: z.string(),
  requester_id: z.number().int(),
  conversation_id: z.number().int().nullable(),
  approver_id: z.number().int().nullable().describe('the human who must answer; null: any admin'),
  target_agent_id: z.number().int(),
  target_agent_name: z.string(),
  command: z.string(),
  reason: z.string(),
  status: z.enum(AuthorizationStatuses),
  decided_by: z.number().int().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
  decided_at: z.string().nullable(),
  decision_note: z.string().nullable().describe('what the human who decided wrote with their decision'),
});

export const authRequestsQuery = z.object({
  status: z.enum(AuthorizationStatuses).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** `created_at` of the last request of the previous page. */
  before: z.string().max(64).optional(),
  /** With `before`: that request's `action_id`, so requests created in the same instant are neither skipped nor repeated. */
  before_action_id: z.string().max(128).optional(),
});
export type AuthRequestsQuery = z.infer<typeof authRequestsQuery>;

/** The payload of an AUTH_REQUEST frame and chat row. */
export interface AuthRequestPayload {
  action_id: string;
  target_agent_id: number;
  target_agent_name: string;
  command: string;
  reason: string;
  status: AuthorizationStatusName;
}

/** A command to an agent is a CHAT with this prefix and a fresh `stream_id`. */
export const DIRECTIVE_PREFIX = '[DIRECTIVE] ';

/** Stream ids Butler makes start with this, so an agent echoing Butler's frames is never taken for a new request. */
export const BUTLER_STREAM_PREFIX = 'butler-';

/** A human stops Butler's answer in progress (and the messages queued behind it) with this. */
export const CANCEL_COMMAND = '/cancel';

export const ToolNames = ['list_agents', 'command_agent', 'ask_agent'] as const;
export type ToolName = (typeof ToolNames)[number];

// Models often send ids as strings; "12" is accepted as 12.
const agentId = z.coerce.number({ error: 'target_agent_id must be a number' }).int().positive();

export const toolArguments = {
  list_agents: z.object({}).describe('Lists every agent with its id, name, presence and last report.'),
  command_agent: z
    .object({
      target_agent_id: agentId.describe('id of the agent, from list_agents'),
      command: z.string().trim().min(1, 'command is required').max(2000).describe('the instruction the agent should carry out'),
      reasoning: z.string().trim().max(2000).default('').describe('why this command is needed; shown to the human who approves it'),
    })
    .describe('Asks an agent to carry out a command. A human must approve it first; the result follows once the agent answers.'),
  ask_agent: z
    .object({
      target_agent_id: agentId.describe('id of an online agent, from list_agents'),
      question: z.string().trim().min(1, 'question is required').max(2000).describe('a read-only question; nothing is changed by asking'),
    })
    .describe('Asks an online agent a read-only question and returns its answer.'),
} as const satisfies Record<ToolName, z.ZodType>;
