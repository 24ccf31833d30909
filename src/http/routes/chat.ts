// Chat over HTTP: history with a peer (any user), a human's conversation threads (humans only,
// owner-scoped), and the Butler↔agent monitor history (admin).
import { agentParams, createThreadBody, historyPageQuery, listThreadsQuery, peerParams, updateThreadBody } from '../../protocol/chat.js';
import { z } from 'zod';
import type { Authorizations } from '../../butler/authorizations.js';
import { Errors } from '../../errors.js';
import { authorizationView, authRequestsQuery, authResponseBody, authResponseResult } from '../../protocol/butler.js';
import { idParams } from '../../protocol/http.js';
import { chatMessageView, threadView } from '../../protocol/responses.js';
import { isMachineRole } from '../../protocol/roles.js';
import type { ChatService } from '../../services/chat.js';
import { toPrincipal } from '../../delivery/directory.js';
import type { Access } from '../auth.js';
import { callerOf, route, type Handler, type Routes } from '../context.js';
import { routeDocs } from '../routeDocs.js';
import { parseBody, parseWith } from '../validate.js';

const messages = (description: string) => ({ 200: { description, schema: z.array(chatMessageView) } });

export const chatRouteDocs = routeDocs('chat', {
  'GET /api/chat/history/:peer_id': {
    access: 'authenticated',
    summary: 'Chat between the caller and a peer: the newest `limit` before `before_id`, oldest first',
    params: peerParams,
    query: historyPageQuery,
    responses: messages('the page, oldest first'),
  },
  'GET /api/chat/threads': {
    access: 'human',
    summary: "The caller's conversation threads; a read never makes one (the first chat message with a peer makes the default thread)",
    query: listThreadsQuery,
    responses: { 200: { description: 'threads', schema: z.array(threadView) } },
    errors: { 404: 'no such peer' },
  },
  'POST /api/chat/threads': {
    access: 'human',
    summary: 'Start a conversation thread with a machine peer',
    body: createThreadBody,
    responses: { 201: { description: 'the thread', schema: threadView } },
    errors: { 404: 'no such peer' },
  },
  'PATCH /api/chat/threads/:id': {
    access: 'human',
    summary: 'Rename, summarise, pin or archive one of your threads',
    params: idParams,
    body: updateThreadBody,
    responses: { 200: { description: 'the thread', schema: threadView } },
    errors: { 404: 'no such thread of yours' },
  },
  'GET /api/chat/threads/:id/messages': {
    access: 'human',
    summary: "One of your threads' messages: the newest `limit` before `before_id`, oldest first",
    params: idParams,
    query: historyPageQuery,
    responses: messages('the page, oldest first'),
    errors: { 404: 'no such thread of yours' },
  },
  'GET /api/chat/butler-agent/:agent_id': {
    access: 'admin',
    summary: 'The stored conversation between Butler and an agent (the monitor view)',
    params: agentParams,
    query: historyPageQuery,
    responses: messages('the page, oldest first'),
    errors: { 404: 'no such agent' },
  },
  'POST /api/chat/auth/response': {
    access: 'human',
    summary: "Approve or reject one of Butler's authorization requests (the human it was sent to, or an admin)",
    body: authResponseBody,
    responses: { 200: { description: 'the decision is stored; an approved command is on its way to the agent', schema: authResponseResult } },
    errors: { 403: 'sent to another user (or only an admin may answer it)', 404: 'no such request', 409: 'already decided or expired' },
  },
  'GET /api/chat/auth/requests': {
    access: 'human',
    summary: 'Authorization requests you asked for or may answer (admins: all), newest first',
    query: authRequestsQuery,
    responses: { 200: { description: 'requests', schema: z.array(authorizationView) } },
  },
});

export function chatRoutes(app: Routes, deps: { access: Access; chat: ChatService; authorizations: Authorizations }): void {
  const { access, chat, authorizations } = deps;

  // A machine is refused before its input is read, as the admin check is: the answer is about who
  // is asking, whatever they sent.
  const humansOnly: Handler = (_req, res, next) => {
    try {
      chat.ensureHuman(callerOf(res));
      next();
    } catch (err) {
      next(err);
    }
  };
  const human = [...access.authenticated, humansOnly];
  const approvers: Handler[] = [
    ...access.authenticated,
    (_req, res, next) => next(isMachineRole(callerOf(res).role) ? Errors.forbidden('only human users answer authorization requests') : undefined),
  ];

  app.get(
    '/api/chat/history/:peer_id',
    ...access.authenticated,
    route(async (req, res) => {
      const { peer_id } = parseWith(peerParams, req.params);
      res.json(await chat.history(callerOf(res), peer_id, parseWith(historyPageQuery, req.query)));
    }),
  );

  app.get(
    '/api/chat/threads',
    ...human,
    route(async (req, res) => {
      res.json(await chat.listThreads(callerOf(res), parseWith(listThreadsQuery, req.query)));
    }),
  );

  app.post(
    '/api/chat/threads',
    ...human,
    route(async (req, res) => {
      res.status(201).json(await chat.createThread(callerOf(res), parseBody(createThreadBody, req.body)));
    }),
  );

  app.patch(
    '/api/chat/threads/:id',
    ...human,
    route(async (req, res) => {
      const { id } = parseWith(idParams, req.params);
      res.json(await chat.updateThread(callerOf(res), id, parseBody(updateThreadBody, req.body)));
    }),
  );

  app.get(
    '/api/chat/threads/:id/messages',
    ...human,
    route(async (req, res) => {
      const { id } = parseWith(idParams, req.params);
      res.json(await chat.threadMessages(callerOf(res), id, parseWith(historyPageQuery, req.query)));
    }),
  );

  app.get(
    '/api/chat/butler-agent/:agent_id',
    ...access.admin,
    route(async (req, res) => {
      const { agent_id } = parseWith(agentParams, req.params);
      res.json(await chat.butlerAgentHistory(agent_id, parseWith(historyPageQuery, req.query)));
    }),
  );

  // Butler's authorization requests: answered by the human they were sent to, or an admin.
  app.post(
    '/api/chat/auth/response',
    ...approvers,
    route(async (req, res) => {
      res.json(await authorizations.respond(toPrincipal(callerOf(res)), parseBody(authResponseBody, req.body)));
    }),
  );

  app.get(
    '/api/chat/auth/requests',
    ...approvers,
    route(async (req, res) => {
      res.json(await authorizations.list(toPrincipal(callerOf(res)), parseWith(authRequestsQuery, req.query)));
    }),
  );
}
