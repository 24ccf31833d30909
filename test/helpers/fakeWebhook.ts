// A push-notification receiver on loopback, speaking plain HTTP as a webhook does: it records every
// POST (headers and JSON body), answers with the statuses a test gives in turn (then 200), can hang
// instead of answering, and lets a test wait for the request that matches a condition.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookCall {
  headers: IncomingHttpHeaders;
  body: any;
}

export interface FakeWebhook {
  url: string;
  calls: WebhookCall[];
  /** Statuses to answer the next calls with, in order (200 after them). */
  answerWith(...statuses: number[]): void;
  /** Never answers (until close). */
  hang(): void;
  waitFor(predicate: (call: WebhookCall) => boolean, description: string, timeoutMs?: number): Promise<WebhookCall>;
  close(): Promise<void>;
}

export async function startFakeWebhook(): Promise<FakeWebhook> {
  const calls: WebhookCall[] = [];
  const statuses: number[] = [];
  const hanging: ServerResponse[] = [];
  let hang = false;
  let waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown = undefined;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      calls.push({ headers: req.headers, body });
      for (const w of waiters.splice(0)) w();
      if (hang) return void hanging.push(res);
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    calls,
    answerWith: (...s) => void statuses.push(...s),
    hang: () => void (hang = true),
    waitFor(predicate, description, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${description}; calls: ${JSON.stringify(calls.map((c) => c.body))}`)),
          timeoutMs,
        );
        const check = () => {
          const found = calls.find(predicate);
          if (found) {
            clearTimeout(timer);
            resolve(found);
          } else waiters.push(check);
        };
        check();
      });
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      waiters = [];
    },
  };
}
