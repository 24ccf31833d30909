// Login and self-registration (public).
import { loginBody, registerBody } from '../../protocol/http.js';
import type { AuthService } from '../../services/auth.js';
import { route, type Routes } from '../context.js';
import { parseBody } from '../validate.js';

export function authRoutes(app: Routes, deps: { auth: AuthService }): void {
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
