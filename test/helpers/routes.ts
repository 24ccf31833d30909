// Every route the HTTP API serves, with its access level: the access-matrix test walks this list.
export type Access = 'public' | 'authenticated' | 'admin' | 'admin-non-production';

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  access: Access;
}

export const ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/api/ping', access: 'public' },
  { method: 'POST', path: '/api/auth/login', access: 'public' },
  { method: 'POST', path: '/api/auth/register', access: 'public' },
  { method: 'GET', path: '/api/messages', access: 'authenticated' },
  { method: 'POST', path: '/api/messages', access: 'authenticated' },
  { method: 'GET', path: '/api/users/agents', access: 'authenticated' },
  { method: 'GET', path: '/api/users/agents/status', access: 'authenticated' },
  { method: 'GET', path: '/api/users/butler', access: 'authenticated' },
  { method: 'GET', path: '/api/users/:id', access: 'authenticated' },
  { method: 'GET', path: '/api/users', access: 'admin' },
  { method: 'POST', path: '/api/users', access: 'admin' },
  { method: 'PATCH', path: '/api/users/:id', access: 'admin' },
  { method: 'DELETE', path: '/api/users/:id', access: 'admin' },
  { method: 'POST', path: '/api/users/agents', access: 'admin' },
  { method: 'DELETE', path: '/api/users/agents/:id', access: 'admin' },
  { method: 'POST', path: '/api/users/agents/test-connection', access: 'admin' },
  { method: 'PATCH', path: '/api/users/agents/:id/token', access: 'admin' },
  { method: 'POST', path: '/api/dev/mock/reset', access: 'admin-non-production' },
  { method: 'POST', path: '/api/dev/mock/chat', access: 'admin-non-production' },
  { method: 'GET', path: '/api/dev/mock/agent-token/:username', access: 'admin-non-production' },
];

/** A concrete path for a pattern; ids point at the bootstrap admin, so refusals are about access only. */
export function concrete(path: string): string {
  return path.replace(':id', '1').replace(':username', 'Butler');
}
