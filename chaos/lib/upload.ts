// A chunked upload that never ends on its own: chunks are written until the hub answers (or drops
// the connection) or `totalBytes` have gone. The hub must refuse early, not buffer it.
import http from 'node:http';

export interface UploadResult {
  status: number | undefined;
  /** Bytes written before the answer or the drop. */
  writtenBytes: number;
  error?: string;
  ms: number;
}

export function chunkedUpload(url: string, auth: string, totalBytes: number, chunkBytes = 64 * 1024): Promise<UploadResult> {
  const t0 = performance.now();
  const chunk = Buffer.alloc(chunkBytes, 'x');
  return new Promise((resolve) => {
    let written = 0;
    let done = false;
    const finish = (status: number | undefined, error?: string) => {
      if (done) return;
      done = true;
      req.destroy();
      resolve({ status, writtenBytes: written, error, ms: performance.now() - t0 });
    };
    const req = http.request(url, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      timeout: 120_000,
    });
    req.on('response', (res) => {
      res.resume();
      finish(res.statusCode);
    });
    req.on('error', (err) => finish(undefined, err.message));
    req.on('timeout', () => finish(undefined, 'timed out'));
    const pump = () => {
      while (!done && written < totalBytes) {
        written += chunk.length;
        if (!req.write(written === chunk.length ? Buffer.concat([Buffer.from('{"content":"'), chunk]) : chunk)) return void req.once('drain', pump);
      }
      if (!done) req.end();
    };
    pump();
  });
}
