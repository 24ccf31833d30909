// Public liveness probe kept for the older clients.
import type { Routes } from '../context.js';

export function systemRoutes(app: Routes): void {
  app.get('/api/ping', (_req, res) => {
    res.json({ message: 'pong' });
  });
}
