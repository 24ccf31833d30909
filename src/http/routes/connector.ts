// The chat-platform connector, admin only, under /api/integrations/chatplatform and its alias
// /api/integrations/feishu (the older dashboards use it); both answer the same.
import { connectorFieldsBody, enableBody, logsQuery, snakeCaseBody, testMessageBody } from '../../protocol/connector.js';
import { idParams } from '../../protocol/http.js';
import type { ConnectorService } from '../../services/connector/service.js';
import type { Access } from '../auth.js';
import { route, type Routes } from '../context.js';
import { parseBody, parseWith } from '../validate.js';

export const CONNECTOR_PREFIXES = ['/api/integrations/chatplatform', '/api/integrations/feishu'] as const;

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
        res.json(await connector.update(id, parseBody(connectorFieldsBody, snakeCaseBody(req.body))));
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
