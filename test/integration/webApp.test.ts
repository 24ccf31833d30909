// The dashboard at `/`: a fake Vite build served from memory by a real hub, its headers, encodings and
// revalidation, the single-page-app fallback, the API left as it was, and no way out of WEB_DIR.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEB_CSP } from '../../src/config.js';
import { startTestHub, type TestHub } from '../helpers/hub.js';
import { rawRequest } from '../helpers/http.js';
import { scrape, valueOf } from '../helpers/metrics.js';

const INDEX_HTML =
  '<!doctype html>\n<html lang="en"><head><meta charset="UTF-8"><title>Hub</title>' +
  '<script type="module" crossorigin src="/assets/index-abc123.js"></script>' +
  '<link rel="stylesheet" crossorigin href="/assets/index-abc123.css"></head>' +
  '<body><div id="root"></div></body></html>\n';
// Large and repetitive enough that both encodings make it smaller.
const APP_JS = Array.from({ length: 200 }, (_, i) => `export function view${i}(props) { return { type: "div", props, key: ${i} }; }\n`).join('');
const APP_CSS = Array.from({ length: 100 }, (_, i) => `.row-${i} { display: flex; padding: ${i}px; color: #333; }\n`).join('');
const FAVICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7"/></svg>';
/** Beside WEB_DIR, where no request may reach. */
const SECRET = 'secret-beside-the-build-7f3a';

function fakeBuild(): { root: string; web: string } {
  const root = mkdtempSync(join(tmpdir(), 'hub-web-'));
  const web = join(root, 'web');
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(join(web, 'index.html'), INDEX_HTML);
  writeFileSync(join(web, 'assets', 'index-abc123.js'), APP_JS);
  writeFileSync(join(web, 'assets', 'index-abc123.css'), APP_CSS);
  writeFileSync(join(web, 'favicon.svg'), FAVICON);
  writeFileSync(join(root, 'secret.txt'), SECRET);
  writeFileSync(join(root, 'package.json'), SECRET);
  return { root, web };
}

describe('the dashboard', () => {
  let t: TestHub;
  let root: string;
  const get = (path: string, headers: Record<string, string> = {}) => rawRequest(t.url, 'GET', path, headers);
  beforeAll(async () => {
    const build = fakeBuild();
    root = build.root;
    t = await startTestHub('sqlite', { WEB_DIR: build.web });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves index.html at / with the security headers, revalidated on every load', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toBe(INDEX_HTML);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(INDEX_HTML)));
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(DEFAULT_WEB_CSP);
    expect(DEFAULT_WEB_CSP).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws: wss:; base-uri 'self'; frame-ancestors 'none'; object-src 'none'",
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['etag']).toMatch(/^"[\w-]+"$/);
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('answers the app’s own routes (deep links) with index.html', async () => {
    const index = await get('/');
    for (const path of ['/chat/5', '/chat/5/', '/agents?tab=online', '/settings/connector', '/index.html']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.body.toString('utf8'), path).toBe(INDEX_HTML);
      expect(res.headers['cache-control'], path).toBe('no-cache');
      expect(res.headers['content-security-policy'], path).toBe(DEFAULT_WEB_CSP);
      expect(res.headers['etag'], path).toBe(index.headers['etag']);
    }
  });

  it('serves hashed assets as immutable, and a top-level file as revalidated', async () => {
    const js = await get('/assets/index-abc123.js');
    expect(js.status).toBe(200);
    expect(js.body.toString('utf8')).toBe(APP_JS);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.headers['x-content-type-options']).toBe('nosniff');
    // The policy belongs to documents; a script does not need it.
    expect(js.headers['content-security-policy']).toBeUndefined();
    const css = await get('/assets/index-abc123.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body.toString('utf8')).toBe(APP_CSS);
    const icon = await get('/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(icon.headers['cache-control']).toBe('no-cache');
    expect(icon.body.toString('utf8')).toBe(FAVICON);
  });

  it('answers with brotli or gzip as Accept-Encoding asks, each decompressing to the file', async () => {
    const cases: Array<[string, string | undefined]> = [
      ['gzip, deflate, br', 'br'],
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['*', 'br'],
      ['*;q=0', undefined],
      ['identity', undefined],
      ['deflate', undefined],
    ];
    for (const [accept, expected] of cases) {
      const res = await get('/assets/index-abc123.js', { 'Accept-Encoding': accept });
      expect(res.status, accept).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(expected);
      expect(res.headers['vary'], accept).toMatch(/Accept-Encoding/i);
      expect(res.headers['content-length'], accept).toBe(String(res.body.byteLength));
      const plain = expected === 'br' ? brotliDecompressSync(res.body) : expected === 'gzip' ? gunzipSync(res.body) : res.body;
      expect(plain.toString('utf8'), accept).toBe(APP_JS);
      if (expected) expect(res.body.byteLength, accept).toBeLessThan(Buffer.byteLength(APP_JS));
    }
    const etags = await Promise.all(
      ['br', 'gzip', 'identity'].map(async (e) => (await get('/assets/index-abc123.js', { 'Accept-Encoding': e })).headers['etag']),
    );
    expect(new Set(etags).size).toBe(3);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    for (const [path, accept] of [
      ['/', 'identity'],
      ['/chat/5', 'br'],
      ['/assets/index-abc123.js', 'gzip'],
    ] as const) {
      const got = await get(path, { 'Accept-Encoding': accept });
      const head = await rawRequest(t.url, 'HEAD', path, { 'Accept-Encoding': accept });
      expect(head.status, path).toBe(200);
      expect(head.body.byteLength, path).toBe(0);
      for (const name of ['content-type', 'content-length', 'content-encoding', 'etag', 'cache-control', 'content-security-policy']) {
        expect(head.headers[name], `${path} ${name}`).toBe(got.headers[name]);
      }
    }
  });

  it('answers a matching If-None-Match with 304 and no body', async () => {
    for (const path of ['/', '/chat/5', '/assets/index-abc123.js']) {
      const first = await get(path, { 'Accept-Encoding': 'br' });
      const etag = first.headers['etag']!;
      const again = await get(path, { 'Accept-Encoding': 'br', 'If-None-Match': etag });
      expect(again.status, path).toBe(304);
      expect(again.body.byteLength, path).toBe(0);
      expect(again.headers['etag'], path).toBe(etag);
      expect(again.headers['cache-control'], path).toBe(first.headers['cache-control']);
      expect((await get(path, { 'Accept-Encoding': 'br', 'If-None-Match': `"other", W/${etag}` })).status, path).toBe(304);
      expect((await get(path, { 'Accept-Encoding': 'br', 'If-None-Match': '"other"' })).status, path).toBe(200);
    }
  });

  it('answers a missing file with the JSON 404', async () => {
    for (const path of ['/assets/missing.js', '/missing.png', '/chat/5.json']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body.toString('utf8')), path).toEqual({ error: 'not found' });
    }
  });

  it('leaves /api and /metrics as they were', async () => {
    expect(await t.api.get('/api/ping')).toMatchObject({ status: 200, body: { message: 'pong' } });
    for (const path of ['/api/nope', '/api', '/api/chat/5', '/api%2Fchat', '/api/%E0%A4%A']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toMatch(/^application\/json/);
      expect(JSON.parse(res.body.toString('utf8')), path).toEqual({ error: 'not found' });
    }
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body.toString('utf8')).toContain('hub_http_requests_total');
    expect((await get('/metrics/x')).status).toBe(404);
  });

  it('answers other methods on the dashboard’s paths with the usual 404', async () => {
    for (const [method, path] of [
      ['POST', '/'],
      ['PUT', '/chat/5'],
      ['DELETE', '/assets/index-abc123.js'],
      ['PATCH', '/index.html'],
    ] as const) {
      const res = await t.api.request(method, path, { body: {} });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body, `${method} ${path}`).toEqual({ error: 'not found' });
    }
  });

  it('never serves a file from outside WEB_DIR', async () => {
    const attempts = [
      '/../secret.txt',
      '/../package.json',
      '/%2e%2e/secret.txt',
      '/%2e%2e/package.json',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/..%2f..%2fpackage.json',
      '/assets/../../secret.txt',
      '/..%5csecret.txt',
      '/%2e%2e%2f%2e%2e%2fpackage.json',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      `/${encodeURIComponent(join(root, 'secret.txt'))}`,
      '/secret.txt%00.js',
    ];
    for (const path of attempts) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.toString('utf8'), path).not.toContain(SECRET);
    }
    // A path with no extension gets the app, never a file from outside.
    for (const path of ['/..', '/%2e%2e', '/assets/..%2f..%2f']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.body.toString('utf8'), path).toBe(INDEX_HTML);
    }
  });

  it('answers a malformed %-escape with 400', async () => {
    for (const path of ['/%E0%A4%A', '/chat/%', '/assets/%zz.js']) {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body.toString('utf8')), path).toEqual({ error: 'the URL path has a malformed %-escape' });
    }
  });

  it('counts its answers under the route dashboard and logs them at debug', async () => {
    const before = await scrape(t);
    await get('/assets/index-abc123.js');
    await get('/chat/77');
    await get('/assets/missing-91.js');
    const after = await scrape(t);
    const delta = (labels: Record<string, string | number>) =>
      valueOf(after, 'hub_http_requests_total', labels) - valueOf(before, 'hub_http_requests_total', labels);
    expect(delta({ method: 'GET', route: 'dashboard', status: 200 })).toBe(2);
    expect(delta({ method: 'GET', route: 'unmatched', status: 404 })).toBe(1);
    const lines = t.logs.filter((l) => l['msg'] === 'request' && l['method'] === 'GET').map((l) => l['path']);
    expect(lines).toContain('/assets/missing-91.js');
    expect(lines).not.toContain('/chat/77');
    expect(lines).not.toContain('/assets/index-abc123.js');
  });
});

describe('a hub without a built dashboard', () => {
  let t: TestHub;
  let missing: string;
  beforeAll(async () => {
    missing = join(mkdtempSync(join(tmpdir(), 'hub-web-')), 'not-built');
    t = await startTestHub('sqlite', { WEB_DIR: missing });
  });
  afterAll(() => t.stop());

  it('says so at /, and on the app’s other routes, and logs one warning naming the folder', async () => {
    for (const path of ['/', '/chat/5']) {
      const res = await t.api.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toEqual({ error: 'the dashboard is not built: run `npm run build`, then restart the hub' });
    }
    expect((await t.api.get('/assets/index-abc123.js')).body).toEqual({ error: 'not found' });
    expect((await t.api.get('/api/ping')).status).toBe(200);
    const warnings = t.logs.filter((l) => l['level'] === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ dir: missing });
    expect(warnings[0]!['msg']).toContain(missing);
  });
});

describe('a hub with WEB_DIR empty', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub('sqlite', { WEB_DIR: '' });
  });
  afterAll(() => t.stop());

  it('serves no dashboard and says why', async () => {
    const res = await t.api.get('/');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'this hub serves no dashboard (WEB_DIR is empty)' });
    expect(t.logs.filter((l) => l['level'] === 'warn')).toEqual([]);
  });
});

describe('a hub serving another dashboard with its own WEB_CSP', () => {
  // The older dashboards run an inline theme script and load web fonts.
  const POLICY =
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline' https://fonts.googleapis.com; font-src 'self' https://fonts.gstatic.com; connect-src 'self' ws: wss:";
  let t: TestHub;
  let root: string;
  beforeAll(async () => {
    const build = fakeBuild();
    root = build.root;
    t = await startTestHub('sqlite', { WEB_DIR: build.web, WEB_CSP: ` ${POLICY} ` });
  });
  afterAll(async () => {
    await t.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('sends that policy on its pages, and none on other files', async () => {
    for (const path of ['/', '/chat/5']) {
      const res = await rawRequest(t.url, 'GET', path, {});
      expect(res.status, path).toBe(200);
      expect(res.headers['content-security-policy'], path).toBe(POLICY);
    }
    const script = await rawRequest(t.url, 'GET', '/assets/index-abc123.js', {});
    expect(script.headers['content-security-policy']).toBeUndefined();
  });
});
