// Human users: list and create (admin), detail (any user, scoped), role/password change and
// deletion (admin).
import { z } from 'zod';
import { createUserBody, idParams, listUsersQuery, updateUserBody } from '../../protocol/http.js';
import { okBody, userView } from '../../protocol/responses.js';
import type { UsersService } from '../../services/users.js';
import { toUserView } from '../../services/views.js';
import { routeGroup } from '../route.js';

export interface UserDeps {
  users: Pick<UsersService, 'list' | 'createHuman' | 'get' | 'update' | 'deleteHuman'>;
}

const route = routeGroup<UserDeps>('users');

export const userRoutes = [
  route({
    method: 'GET',
    path: '/api/users',
    access: 'admin',
    summary: 'Users of every role',
    query: listUsersQuery,
    responses: { 200: { description: 'the page', schema: z.array(userView), headers: { 'X-Total-Count': 'matching users before paging' } } },
    handler: async ({ query, res }, { users }) => {
      const { items, total } = await users.list(query);
      res.setHeader('X-Total-Count', String(total));
      return items;
    },
  }),
  route({
    method: 'POST',
    path: '/api/users',
    access: 'admin',
    summary: 'Create a human user (role MEMBER unless given); with a password they can log in',
    body: createUserBody,
    responses: { 201: { description: 'the user', schema: userView } },
    errors: { 409: 'username already exists' },
    handler: async ({ body }, { users }) => toUserView(await users.createHuman(body)),
  }),
  route({
    method: 'GET',
    path: '/api/users/:id',
    access: 'authenticated',
    summary: 'One user: admins see everyone, others see machines and themselves',
    params: idParams,
    responses: { 200: { description: 'the user', schema: userView } },
    errors: { 404: 'no such user, or not visible to the caller' },
    handler: ({ params, caller }, { users }) => users.get(params.id, caller),
  }),
  route({
    method: 'PATCH',
    path: '/api/users/:id',
    access: 'admin',
    summary: "Change a human's role or password (the last admin cannot be demoted); their sockets close with 4005 on a role change",
    params: idParams,
    body: updateUserBody,
    responses: { 200: { description: 'the user', schema: userView } },
    errors: { 403: 'the caller stopped being an admin meanwhile', 404: 'no such user', 409: 'the last admin cannot be demoted' },
    handler: ({ params, body, caller }, { users }) => users.update(params.id, body, caller),
  }),
  route({
    method: 'DELETE',
    path: '/api/users/:id',
    access: 'admin',
    summary: 'Delete a human user (not yourself, not the last admin)',
    params: idParams,
    responses: { 200: { description: 'deleted', schema: okBody } },
    errors: { 403: 'the caller stopped being an admin meanwhile', 404: 'no such user', 409: 'your own account, or the last admin' },
    handler: async ({ params, caller }, { users }) => {
      await users.deleteHuman(params.id, caller);
      return { ok: true };
    },
  }),
];
