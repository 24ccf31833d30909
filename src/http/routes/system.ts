// Public liveness probe kept for the older clients, and a clear answer for a plain HTTP request to
// the WebSocket endpoint (upgrades never reach Express: the uWS WebSocket route takes them).
import { Errors } from '../../errors.js';
import type { Routes } from '../context.js';

export function systemRoutes(app: Routes): void {
  app.get('/api/ping', (_req, res) => {
    res.json({ message: 'pong' });
  });
  app.get('/api/ws', (_req, res, next) => {
    res.setHeader('Upgrade', 'websocket');
    next(Errors.upgradeRequired());
  });
}
