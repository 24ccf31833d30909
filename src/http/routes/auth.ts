// Login and self-registration (public).
import { loginBody, registerBody } from '../../protocol/http.js';
import { authOptionsBody, sessionBody } from '../../protocol/responses.js';
import type { AuthService, Session } from '../../auth/service.js';
import { toUserView } from '../../services/views.js';
import { routeGroup } from '../route.js';

export interface AuthDeps {
  auth: Pick<AuthService, 'selfRegistration' | 'agentReplyTimeoutSeconds' | 'login' | 'register'>;
}

const route = routeGroup<AuthDeps>('auth');

/** A session as its wire body: the JWT and the user's view. */
const sessionView = ({ token, user }: Session) => ({ token, user: toUserView(user) });

export const authRoutes = [
  route({
    method: 'GET',
    path: '/api/auth/options',
    access: 'public',
    summary: "How one may sign in here (whether self-registration is open), and how long Butler waits for an agent's answer",
    responses: { 200: { description: 'the options', schema: authOptionsBody } },
    handler: (_input, { auth }) => ({ self_registration: auth.selfRegistration, agent_reply_timeout_seconds: auth.agentReplyTimeoutSeconds }),
  }),
  route({
    method: 'POST',
    path: '/api/auth/login',
    access: 'public',
    summary: 'Log in as a human; agents and Butler cannot',
    body: loginBody,
    responses: { 200: { description: 'a JWT and the user', schema: sessionBody } },
    errors: { 401: 'invalid credentials', 429: 'too many failed logins for this name from this address, or from this address on any names (Retry-After)' },
    handler: async ({ body, req }, { auth }) => sessionView(await auth.login(body.username, body.password, req.ip ?? 'unknown')),
  }),
  route({
    method: 'POST',
    path: '/api/auth/register',
    access: 'public',
    summary: 'Self-registration as a MEMBER, when ALLOW_SELF_REGISTRATION=true',
    body: registerBody,
    responses: { 201: { description: 'a JWT and the new user', schema: sessionBody } },
    errors: { 403: 'self-registration is disabled on this hub', 409: 'username already exists' },
    handler: async ({ body }, { auth }) => sessionView(await auth.register(body.username, body.password)),
  }),
];
