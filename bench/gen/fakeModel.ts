// Load generator child that is a fake language model: an OpenAI-compatible `POST /v1/chat/completions`
// answering every request with a Server-Sent Events stream of `deltas` deltas, `delayMs` apart. Each
// delta carries the time it was written (`⟨<ms>⟩`), so the receiving side measures what the hub
// added between the model and the asker.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '../lib/rpc.js';
import { percentiles, Samples } from '../lib/stats.js';
import { now } from './common.js';
import type { FakeModelParams, FakeModelStats } from './protocol.js';

let requests = 0;
/** How long each answer's stream took, request read → last byte written (ms). */
const streamMs = new Samples();

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
        const startedAt = now();
        // Delta k is due k × delayMs after the start, so a timer that fires late (a thousand streams
        // share this process's loop) does not push every later delta back, and the finish follows the
        // last delta at once, as a model's does: the stream takes the `deltas × delayMs` the ideal
        // assumes, not that plus every timer's lateness.
        const next = () => {
          if (res.destroyed) return;
          sent++;
          const delta = chunk({ content: `⟨${now().toFixed(3)}⟩` });
          if (sent < p.deltas) {
            res.write(delta);
            setTimeout(next, Math.max(0, startedAt + (sent + 1) * p.delayMs - now()));
            return;
          }
          res.end(`${delta}${chunk({}, 'stop')}data: [DONE]\n\n`);
          streamMs.push(now() - startedAt);
        };
        res.write(chunk({ role: 'assistant', content: '' }));
        setTimeout(next, p.delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port };
  },
  stats: (): FakeModelStats => ({ requests, streamMs: percentiles(streamMs.view().slice()) }),
});
