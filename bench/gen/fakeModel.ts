// Load generator child that is a fake language model: an OpenAI-compatible `POST /v1/chat/completions`
// answering every request with a Server-Sent Events stream of `deltas` deltas, `delayMs` apart. Each
// delta carries the time it was written (`⟨<ms>⟩`), so the receiving side measures what the hub
// added between the model and the asker.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '../lib/rpc.js';
import { now } from './common.js';
import type { FakeModelParams } from './protocol.js';

let requests = 0;

serve({
  hello: () => ({}),
  async start(raw: unknown): Promise<{ port: number }> {
    const p = raw as FakeModelParams;
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
        const chunk = (delta: object, finish: string | null = null) =>
          `data: ${JSON.stringify({ id: 'bench', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        let sent = 0;
        const next = () => {
          if (res.destroyed) return;
          if (sent === p.deltas) {
            res.end(`${chunk({}, 'stop')}data: [DONE]\n\n`);
            return;
          }
          sent++;
          res.write(chunk({ content: `⟨${now().toFixed(3)}⟩` }));
          setTimeout(next, p.delayMs);
        };
        res.write(chunk({ role: 'assistant', content: '' }));
        setTimeout(next, p.delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port };
  },
  stats: () => ({ requests }),
});
