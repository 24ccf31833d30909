// Login and self-registration (public).
import { loginBody, registerBody } from '../../protocol/http.js';
import { authOptionsBody, sessionBody } from '../../protocol/responses.js';
import type { AuthService } from '../../auth/service.js';
import { route, type Routes } from '../context.js';
import { routeDocs } from '../routeDocs.js';
import { parseBody } from '../validate.js';

export const authRouteDocs = routeDocs('auth', {
  'GET /api/auth/options': {
    access: 'public',
    summary: 'How one may sign in here: whether self-registration is open (a login page reads it)',
    responses: { 200: { description: 'the options', schema: authOptionsBody } },
  },
  'POST /api/auth/login': {
    access: 'public',
    summary: 'Log in as a human; agents and Butler cannot',
    body: loginBody,
    responses: { 200: { description: 'a JWT and the user', schema: sessionBody } },
    errors: { 401: 'invalid credentials', 429: 'too many failed logins for this name from this address, or from this address on any names (Retry-After)' },
  },
  'POST /api/auth/register': {
    access: 'public',
    summary: 'Self-registration as a MEMBER, when ALLOW_SELF_REGISTRATION=true',
    body: registerBody,
    responses: { 201: { description: 'a JWT and the new user', schema: sessionBody } },
    errors: { 403: 'self-registration is disabled on this hub', 409: 'username already exists' },
  },
});

export function authRoutes(app: Routes, deps: { auth: AuthService }): void {
  app.get('/api/auth/options', (_req, res) => {
    res.json({ self_registration: deps.auth.selfRegistration });
  });

  app.post(
    '/api/auth/login',
    route(async (req, res) => {
      const body = parseBody(loginBody, req.body);
      res.json(await deps.auth.login(body.username, body.password, req.ip ?? 'unknown'));
    }),
  );

  app.post(
    '/api/auth/register',
    route(async (req, res) => {
      const body = parseBody(registerBody, req.body);
      res.status(201).json(await deps.auth.register(body.username, body.password));
    }),
  );
}
