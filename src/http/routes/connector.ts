// The chat-platform connector, admin only, under /api/integrations/chatplatform and its alias
// /api/integrations/feishu (the older dashboards use it); both answer the same.
import { z } from 'zod';
import { ConnectorActions, ConnectorStates } from '../../connector/machine.js';
import { connectorFieldsBody, enableBody, expectedVersionBody, logsQuery, snakeCaseBody, testMessageBody } from '../../protocol/connector.js';
import { idParams } from '../../protocol/http.js';
import type { ConnectorService } from '../../connector/service.js';
import { inputReader, routeGroup } from '../route.js';
import { parseBody } from '../validate.js';

export interface ConnectorDeps {
  connector: Pick<ConnectorService, 'current' | 'machine' | 'create' | 'update' | 'verify' | 'testMessage' | 'setEnabled' | 'logs'>;
}

export const CONNECTOR_PREFIXES = ['/api/integrations/chatplatform', '/api/integrations/feishu'] as const;

// What the API answers, for the OpenAPI document (secrets masked, never in the clear).
const connectorView = connectorFieldsBody.extend({
  id: z.number().int(),
  has_app_secret: z.boolean(),
  has_verification_token: z.boolean(),
  has_encrypt_key: z.boolean(),
  state: z.enum(ConnectorStates),
  enabled: z.boolean(),
  callback_verified: z.boolean(),
  status: z.enum(['connected', 'not_connected']),
  last_verified_at: z.string().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
  version: z.number().int(),
  allowed_actions: z.array(z.enum(ConnectorActions)),
  is_current: z.boolean(),
});
const outcome = z.object({ ok: z.boolean(), message: z.string() }).loose();
const logPage = z.object({
  items: z.array(
    z.object({ id: z.string(), level: z.string(), action: z.string(), detail: z.string(), trace_id: z.string().optional(), timestamp: z.string() }),
  ),
  cursor: z.string().describe('pass back for the next page; "" on the last page'),
});
const conn = (description: string) => ({ 200: { description, schema: connectorView } });

/** A body whose camelCase keys are renamed before it is parsed, so a 400 names the snake_case field. */
const snakeCased = <S extends z.ZodType>(schema: S) => inputReader(schema, (raw) => parseBody(schema, snakeCaseBody(raw)));

/** A change: `version` (the one the change was made from) is read first, then the fields. */
const changeBody = inputReader(connectorFieldsBody.extend({ version: z.number().int().min(1).optional() }), (raw) => {
  const body = snakeCaseBody(raw);
  const { version } = parseBody(expectedVersionBody, body);
  return { fields: parseBody(connectorFieldsBody, body), version };
});

const route = routeGroup<ConnectorDeps>('connector');

/** Both prefixes answer the same, so both are mounted and documented. */
export const connectorRoutes = CONNECTOR_PREFIXES.flatMap((base) => [
  route({
    method: 'GET',
    path: base,
    access: 'admin',
    summary: 'The current connector (secrets masked), or the defaults with id 0',
    responses: conn('the connector'),
    handler: (_input, { connector }) => connector.current(),
  }),
  route({
    method: 'GET',
    path: `${base}/machine`,
    access: 'admin',
    summary: "The connector's lifecycle as data (states and transitions), for a dashboard to draw",
    responses: { 200: { description: 'states and transitions' } },
    handler: (_input, { connector }) => connector.machine(),
  }),
  route({
    method: 'POST',
    path: base,
    access: 'admin',
    summary: 'Create a connector in draft; it becomes the current one (the previous one is stopped and kept)',
    body: snakeCased(connectorFieldsBody),
    responses: { 201: { description: 'the connector', schema: connectorView } },
    handler: ({ body }, { connector }) => connector.create(body),
  }),
  route({
    method: 'PATCH',
    path: `${base}/:id`,
    access: 'admin',
    summary:
      'Change fields; changing credentials sends a verified, enabled or disabled connector back to draft. With `version` (the one the change was made from), a connector changed since answers 409',
    params: idParams,
    body: changeBody,
    responses: conn('the connector'),
    errors: { 404: 'no such connector', 409: 'changed by someone else meanwhile (or since `version`)' },
    handler: ({ params, body }, { connector }) => connector.update(params.id, body.fields, body.version),
  }),
  route({
    method: 'POST',
    path: `${base}/:id/verify-callback`,
    access: 'admin',
    summary: "Ask the platform's auth API whether the credentials work",
    params: idParams,
    responses: { 200: { description: '{ok:true, message, verified_at, connector} or {ok:false, message, detail?}', schema: outcome } },
    errors: { 404: 'no such connector' },
    handler: ({ params }, { connector }) => connector.verify(params.id),
  }),
  route({
    method: 'POST',
    path: `${base}/:id/test-message`,
    access: 'admin',
    summary: 'Log a test message, and send it when the connector is enabled',
    params: idParams,
    body: snakeCased(testMessageBody),
    responses: { 200: { description: '{ok, message, trace_id}', schema: outcome } },
    errors: { 404: 'no such connector' },
    handler: ({ params, body }, { connector }) => connector.testMessage(params.id, body),
  }),
  route({
    method: 'PATCH',
    path: `${base}/:id/enable`,
    access: 'admin',
    summary: 'Enable or disable; enabling needs a verified connector',
    params: idParams,
    body: enableBody,
    responses: conn('the connector'),
    errors: { 404: 'no such connector', 409: 'connector must be verified before enabling' },
    handler: ({ params, body }, { connector }) => connector.setEnabled(params.id, body.enabled),
  }),
  route({
    method: 'GET',
    path: `${base}/:id/logs`,
    access: 'admin',
    summary: "The connector's log, newest first, by opaque cursor",
    params: idParams,
    query: logsQuery,
    responses: { 200: { description: 'a page', schema: logPage } },
    errors: { 404: 'no such connector' },
    handler: ({ params, query }, { connector }) => connector.logs(params.id, query),
  }),
]);
