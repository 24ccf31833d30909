// Chat over HTTP: history with a peer (any user), a human's conversation threads (humans only,
// owner-scoped), and the Butler↔agent monitor history (admin).
import { agentParams, createThreadBody, historyPageQuery, listThreadsQuery, peerParams, updateThreadBody } from '../../protocol/chat.js';
import { Errors } from '../../errors.js';
import { idParams } from '../../protocol/http.js';
import { isMachineRole } from '../../protocol/roles.js';
import { authRequestsQuery, authResponseBody } from '../../protocol/butler.js';
import type { Authorizations } from '../../services/butler/authorizations.js';
import type { ChatService } from '../../services/chat.js';
import { toPrincipal } from '../../services/directory.js';
import type { Access } from '../auth.js';
import { callerOf, route, type Handler, type Routes } from '../context.js';
import { parseBody, parseWith } from '../validate.js';

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
