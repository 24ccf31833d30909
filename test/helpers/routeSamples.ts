// A valid request for each route, so a caller who is let in reaches the handler: the body a route
// with required fields needs (keyed "METHOD /pattern"); routes not listed take `{}`.
export const SAMPLE_BODIES: Record<string, unknown> = {
  'POST /api/auth/login': { username: 'admin', password: 'admin-password' },
  'POST /api/auth/register': { username: 'someone', password: 'long-enough' },
  'POST /api/auth/access-tokens': { name: 'access check' },
  'POST /api/messages': { level: 'INFO', content: 'access check' },
  'POST /api/users': { username: 'newbie' },
  'POST /api/users/agents': { username: 'bot-1' },
  'POST /api/users/agents/test-connection': { api_token: 'some-token' },
  'POST /api/chat/threads': { peer_id: 4 },
  'POST /api/chat/auth/response': { action_id: 'act-1', approved: true },
  'POST /api/dev/mock/chat': { sender_username: 'admin', receiver_username: 'agent-1', content: 'hello' },
  'POST /api/dev/mock/feishu-log': { level: 'info', action: 'seed', detail: 'a seeded entry' },
  'POST /api/dev/mock/ops-task': { task: 'inspect_service_status' },
  'POST /api/users/ops/ssh-keys': { name: 'bastion', private_key: 'key material (the service reads it)' },
  'PATCH /api/users/ops/ssh-keys/:id': { name: 'bastion' },
  'POST /api/users/ops/nodes': { name: 'web-01', host: '10.0.0.1', ssh_user: 'ubuntu', ssh_key_id: 1 },
  'PATCH /api/users/ops/nodes/:id': { name: 'web-01', host: '10.0.0.1', ssh_user: 'ubuntu', ssh_key_id: 1 },
  'PATCH /api/integrations/chatplatform/:id/enable': { enabled: true },
  'PATCH /api/users/agents/:id/card': { description: 'answers questions about the weather' },
  'PATCH /api/integrations/feishu/:id/enable': { enabled: true },
};

/** The query string a GET route with required query fields needs (keyed "METHOD /pattern"). */
export const SAMPLE_QUERIES: Record<string, string> = {
  'GET /api/stats/report-fields': '?agent_id=agent-1&type=WEATHER_UPDATE',
};

/** What an admin gets from a route when let in with a valid request, where it is not a 2xx. */
export const NON_SUCCESS_ANSWERS: Record<string, number> = {
  'GET /api/ws': 426,
};
