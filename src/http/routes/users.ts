// Human users: list and create (admin), detail (any user, scoped), role/password change and
// deletion (admin).

import { z } from 'zod';
import { createUserBody, idParams, listUsersQuery, updateUserBody } from '../../protocol/http.js';
import { okBody, userView } from '../../protocol/responses.js';
import type { UsersService } from '../../services/users.js';
import type { Access } from '../auth.js';
import { callerOf, route, type Routes } from '../context.js';
import { routeDocs } from '../routeDocs.js';
import { parseBody, parseWith } from '../validate.js';
import { toUserView } from '../../services/views.js';

export const userRouteDocs = routeDocs('users', {
  'GET /api/users': {
    access: 'admin',
    summary: 'Users of every role',
    query: listUsersQuery,
    responses: { 200: { description: 'the page', schema: z.array(userView), headers: { 'X-Total-Count': 'matching users before paging' } } },
  },
  'POST /api/users': {
    access: 'admin',
    summary: 'Create a human user (role MEMBER unless given); with a password they can log in',
    body: createUserBody,
    responses: { 201: { description: 'the user', schema: userView } },
    errors: { 409: 'username already exists' },
  },
  'GET /api/users/:id': {
    access: 'authenticated',
    summary: 'One user: admins see everyone, others see machines and themselves',
    params: idParams,
    responses: { 200: { description: 'the user', schema: userView } },
    errors: { 404: 'no such user, or not visible to the caller' },
  },
  'PATCH /api/users/:id': {
    access: 'admin',
    summary: "Change a human's role or password (the last admin cannot be demoted); their sockets close with 4005 on a role change",
    params: idParams,
    body: updateUserBody,
    responses: { 200: { description: 'the user', schema: userView } },
    errors: { 403: 'the caller stopped being an admin meanwhile', 404: 'no such user', 409: 'the last admin cannot be demoted' },
  },
  'DELETE /api/users/:id': {
    access: 'admin',
    summary: 'Delete a human user (not yourself, not the last admin)',
    params: idParams,
    responses: { 200: { description: 'deleted', schema: okBody } },
    errors: { 403: 'the caller stopped being an admin meanwhile', 404: 'no such user', 409: 'your own account, or the last admin' },
  },
});

export function userRoutes(app: Routes, deps: { access: Access; users: UsersService }): void {
  const { access, users } = deps;

  app.get(
    '/api/users',
    ...access.admin,
    route(async (req, res) => {
      const query = parseWith(listUsersQuery, req.query);
      const { items, total } = await users.list(query);
      res.setHeader('X-Total-Count', String(total));
      res.json(items);
    }),
  );

  app.post(
    '/api/users',
    ...access.admin,
    route(async (req, res) => {
      const body = parseBody(createUserBody, req.body);
      res.status(201).json(toUserView(await users.createHuman(body)));
    }),
  );

  app.get(
    '/api/users/:id',
    ...access.authenticated,
    route(async (req, res) => {
      const { id } = parseWith(idParams, req.params);
      res.json(await users.get(id, callerOf(res)));
    }),
  );

  app.patch(
    '/api/users/:id',
    ...access.admin,
    route(async (req, res) => {
      const { id } = parseWith(idParams, req.params);
      res.json(await users.update(id, parseBody(updateUserBody, req.body), callerOf(res)));
    }),
  );

  app.delete(
    '/api/users/:id',
    ...access.admin,
    route(async (req, res) => {
      const { id } = parseWith(idParams, req.params);
      await users.deleteHuman(id, callerOf(res));
      res.json({ ok: true });
    }),
  );
}
