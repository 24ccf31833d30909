// Chat over HTTP: history with a peer (any user), a human's conversation threads (humans only,
// owner-scoped), and the Butler↔agent monitor history (admin).
import { z } from 'zod';
import { agentParams, createThreadBody, historyPageQuery, listThreadsQuery, peerParams, updateThreadBody } from '../../protocol/chat.js';
import type { Authorizations } from '../../butler/authorizations.js';
import { authorizationView, authRequestsQuery, authResponseBody, authResponseResult } from '../../protocol/butler.js';
import { idParams } from '../../protocol/http.js';
import { chatMessageView, threadView } from '../../protocol/responses.js';
import type { ChatService } from '../../services/chat.js';
import { toPrincipal } from '../../delivery/directory.js';
import { routeGroup } from '../route.js';

export interface ChatDeps {
  chat: Pick<ChatService, 'history' | 'listThreads' | 'createThread' | 'updateThread' | 'threadMessages' | 'butlerAgentHistory'>;
  authorizations: Pick<Authorizations, 'respond' | 'list'>;
}

// A machine is refused before its input is read, as the admin check is: the answer is about who is
// asking, whatever they sent. The services check again (the threads' text is ChatService.ensureHuman's).
const THREADS_REFUSAL = 'only human users have conversation threads';
const APPROVERS_REFUSAL = 'only human users answer authorization requests';

const messages = (description: string) => ({ 200: { description, schema: z.array(chatMessageView) } });

const route = routeGroup<ChatDeps>('chat');

export const chatRoutes = [
  route({
    method: 'GET',
    path: '/api/chat/history/:peer_id',
    access: 'authenticated',
    summary: 'Chat between the caller and a peer: the newest `limit` before `before_id`, oldest first',
    params: peerParams,
    query: historyPageQuery,
    responses: messages('the page, oldest first'),
    handler: ({ params, query, caller }, { chat }) => chat.history(caller, params.peer_id, query),
  }),
  route({
    method: 'GET',
    path: '/api/chat/threads',
    access: 'human',
    machineRefusal: THREADS_REFUSAL,
    summary: "The caller's conversation threads; a read never makes one (the first chat message with a peer makes the default thread)",
    query: listThreadsQuery,
    responses: { 200: { description: 'threads', schema: z.array(threadView) } },
    errors: { 404: 'no such peer' },
    handler: ({ query, caller }, { chat }) => chat.listThreads(caller, query),
  }),
  route({
    method: 'POST',
    path: '/api/chat/threads',
    access: 'human',
    machineRefusal: THREADS_REFUSAL,
    summary: 'Start a conversation thread with a machine peer',
    body: createThreadBody,
    responses: { 201: { description: 'the thread', schema: threadView } },
    errors: { 404: 'no such peer' },
    handler: ({ body, caller }, { chat }) => chat.createThread(caller, body),
  }),
  route({
    method: 'PATCH',
    path: '/api/chat/threads/:id',
    access: 'human',
    machineRefusal: THREADS_REFUSAL,
    summary: 'Rename, summarise, pin or archive one of your threads',
    params: idParams,
    body: updateThreadBody,
    responses: { 200: { description: 'the thread', schema: threadView } },
    errors: { 404: 'no such thread of yours' },
    handler: ({ params, body, caller }, { chat }) => chat.updateThread(caller, params.id, body),
  }),
  route({
    method: 'GET',
    path: '/api/chat/threads/:id/messages',
    access: 'human',
    machineRefusal: THREADS_REFUSAL,
    summary: "One of your threads' messages: the newest `limit` before `before_id`, oldest first",
    params: idParams,
    query: historyPageQuery,
    responses: messages('the page, oldest first'),
    errors: { 404: 'no such thread of yours' },
    handler: ({ params, query, caller }, { chat }) => chat.threadMessages(caller, params.id, query),
  }),
  route({
    method: 'GET',
    path: '/api/chat/butler-agent/:agent_id',
    access: 'admin',
    summary: 'The stored conversation between Butler and an agent (the monitor view)',
    params: agentParams,
    query: historyPageQuery,
    responses: messages('the page, oldest first'),
    errors: { 404: 'no such agent' },
    handler: ({ params, query }, { chat }) => chat.butlerAgentHistory(params.agent_id, query),
  }),
  // Butler's authorization requests: answered by the human they were sent to, or an admin.
  route({
    method: 'POST',
    path: '/api/chat/auth/response',
    access: 'human',
    machineRefusal: APPROVERS_REFUSAL,
    summary: "Approve or reject one of Butler's authorization requests (the human it was sent to, or an admin)",
    body: authResponseBody,
    responses: { 200: { description: 'the decision is stored; an approved command is on its way to the agent', schema: authResponseResult } },
    errors: { 403: 'sent to another user (or only an admin may answer it)', 404: 'no such request', 409: 'already decided or expired' },
    handler: ({ body, caller }, { authorizations }) => authorizations.respond(toPrincipal(caller), body),
  }),
  route({
    method: 'GET',
    path: '/api/chat/auth/requests',
    access: 'human',
    machineRefusal: APPROVERS_REFUSAL,
    summary: 'Authorization requests you asked for or may answer (admins: all), newest first',
    query: authRequestsQuery,
    responses: { 200: { description: 'requests', schema: z.array(authorizationView) } },
    handler: ({ query, caller }, { authorizations }) => authorizations.list(toPrincipal(caller), query),
  }),
];
