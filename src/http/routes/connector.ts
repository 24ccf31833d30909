// The chat-platform connector, admin only, under /api/integrations/chatplatform and its alias
// /api/integrations/feishu (the older dashboards use it); both answer the same.
import { z } from 'zod';
import { ConnectorActions, ConnectorStates } from '../../connector/machine.js';
import { connectorFieldsBody, enableBody, expectedVersionBody, logsQuery, snakeCaseBody, testMessageBody } from '../../protocol/connector.js';
import { idParams } from '../../protocol/http.js';
import type { ConnectorService } from '../../connector/service.js';
import type { Access } from '../auth.js';
import { route, type Routes } from '../context.js';
import { routeDocs, type RouteDoc } from '../routeDocs.js';
import { parseBody, parseWith } from '../validate.js';

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
  items: z.array(z.object({ id: z.string(), level: z.string(), action: z.string(), detail: z.string(), trace_id: z.string().optional(), timestamp: z.string() })),
  cursor: z.string().describe('pass back for the next page; "" on the last page'),
});
const conn = (description: string) => ({ 200: { description, schema: connectorView } });

function docsFor(base: string): RouteDoc[] {
  return routeDocs('connector', {
    [`GET ${base}`]: { access: 'admin', summary: 'The current connector (secrets masked), or the defaults with id 0', responses: conn('the connector') },
    [`GET ${base}/machine`]: { access: 'admin', summary: "The connector's lifecycle as data (states and transitions), for a dashboard to draw", responses: { 200: { description: 'states and transitions' } } },
    [`POST ${base}`]: { access: 'admin', summary: 'Create a connector in draft; it becomes the current one (the previous one is stopped and kept)', body: connectorFieldsBody, responses: { 201: { description: 'the connector', schema: connectorView } } },
    [`PATCH ${base}/:id`]: { access: 'admin', summary: 'Change fields; changing credentials sends a verified, enabled or disabled connector back to draft. With `version` (the one the change was made from), a connector changed since answers 409', params: idParams, body: connectorFieldsBody.extend({ version: z.number().int().min(1).optional() }), responses: conn('the connector'), errors: { 404: 'no such connector', 409: 'changed by someone else meanwhile (or since `version`)' } },
    [`POST ${base}/:id/verify-callback`]: { access: 'admin', summary: "Ask the platform's auth API whether the credentials work", params: idParams, responses: { 200: { description: '{ok:true, message, verified_at, connector} or {ok:false, message, detail?}', schema: outcome } }, errors: { 404: 'no such connector' } },
    [`POST ${base}/:id/test-message`]: { access: 'admin', summary: 'Log a test message, and send it when the connector is enabled', params: idParams, body: testMessageBody, responses: { 200: { description: '{ok, message, trace_id}', schema: outcome } }, errors: { 404: 'no such connector' } },
    [`PATCH ${base}/:id/enable`]: { access: 'admin', summary: 'Enable or disable; enabling needs a verified connector', params: idParams, body: enableBody, responses: conn('the connector'), errors: { 404: 'no such connector', 409: 'connector must be verified before enabling' } },
    [`GET ${base}/:id/logs`]: { access: 'admin', summary: "The connector's log, newest first, by opaque cursor", params: idParams, query: logsQuery, responses: { 200: { description: 'a page', schema: logPage } }, errors: { 404: 'no such connector' } },
  } as Parameters<typeof routeDocs>[1]);
}

/** Both prefixes answer the same, so both are documented. */
export const connectorRouteDocs: RouteDoc[] = CONNECTOR_PREFIXES.flatMap(docsFor);

export function connectorRoutes(app: Routes, deps: { access: Access; connector: ConnectorService }): void {
  const { access, connector } = deps;
  for (const base of CONNECTOR_PREFIXES) {
    app.get(
      base,
      ...access.admin,
      route(async (_req, res) => {
        res.json(await connector.current());
      }),
    );

    app.get(
      `${base}/machine`,
      ...access.admin,
      route((_req, res) => {
        res.json(connector.machine());
      }),
    );

    app.post(
      base,
      ...access.admin,
      route(async (req, res) => {
        res.status(201).json(await connector.create(parseBody(connectorFieldsBody, snakeCaseBody(req.body))));
      }),
    );

    app.patch(
      `${base}/:id`,
      ...access.admin,
      route(async (req, res) => {
        const { id } = parseWith(idParams, req.params);
        const body = snakeCaseBody(req.body);
        const { version } = parseBody(expectedVersionBody, body);
        res.json(await connector.update(id, parseBody(connectorFieldsBody, body), version));
      }),
    );

    app.post(
      `${base}/:id/verify-callback`,
      ...access.admin,
      route(async (req, res) => {
        const { id } = parseWith(idParams, req.params);
        res.json(await connector.verify(id));
      }),
    );

    app.post(
      `${base}/:id/test-message`,
      ...access.admin,
      route(async (req, res) => {
        const { id } = parseWith(idParams, req.params);
        res.json(await connector.testMessage(id, parseBody(testMessageBody, snakeCaseBody(req.body))));
      }),
    );

    app.patch(
      `${base}/:id/enable`,
      ...access.admin,
      route(async (req, res) => {
        const { id } = parseWith(idParams, req.params);
        res.json(await connector.setEnabled(id, parseBody(enableBody, req.body).enabled));
      }),
    );

    app.get(
      `${base}/:id/logs`,
      ...access.admin,
      route(async (req, res) => {
        const { id } = parseWith(idParams, req.params);
        res.json(await connector.logs(id, parseWith(logsQuery, req.query)));
      }),
    );
  }
}
