// Human users: list and create (admin), detail (any user, scoped), role/password change and
// deletion (admin).

import { createUserBody, idParams, listUsersQuery, updateUserBody } from '../../protocol/http.js';
import { toUserView } from '../../protocol/objects.js';
import type { UsersService } from '../../services/users.js';
import type { Access } from '../auth.js';
import { callerOf, route, type Routes } from '../context.js';
import { parseBody, parseWith } from '../validate.js';

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
      res.json(await users.update(id, parseBody(updateUserBody, req.body)));
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
