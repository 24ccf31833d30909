// The dashboard's parts without a hub: Accept-Encoding negotiation, and the table loaded from a build
// folder (types, cache policy, variants only when smaller, the size limit).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pickEncoding } from '../../../src/http/webApp.js';
import { loadWebFiles } from '../../../src/http/webFiles.js';

describe('pickEncoding', () => {
  const both = ['br', 'gzip'] as const;
  const table: Array<[string | undefined, readonly ('br' | 'gzip')[], string | undefined]> = [
    [undefined, both, undefined],
    ['', both, undefined],
    ['gzip, deflate, br, zstd', both, 'br'],
    ['br', both, 'br'],
    ['GZIP', both, 'gzip'],
    ['x-gzip', both, 'gzip'],
    ['gzip;q=1, br;q=0.8', both, 'gzip'],
    ['gzip;q=0.5, br;q=0.5', both, 'br'],
    ['br;q=0, gzip', both, 'gzip'],
    ['br; q=0.000, gzip;q=0', both, undefined],
    ['*', both, 'br'],
    ['*;q=0', both, undefined],
    ['br;q=0, *', both, 'gzip'],
    ['identity', both, undefined],
    ['identity;q=0', both, undefined],
    ['br;q=2', both, undefined],
    ['br;q=abc, gzip;q=0.1', both, 'gzip'],
    ['br', ['gzip'], undefined],
    ['gzip, br', ['gzip'], 'gzip'],
    ['gzip, br', [], undefined],
  ];
  for (const [header, available, expected] of table) {
    it(`${JSON.stringify(header)} with ${available.join('+') || 'none'} → ${expected ?? 'the file as it is'}`, () => {
      expect(pickEncoding(header, available)).toBe(expected);
    });
  }
});

describe('loadWebFiles', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function build(files: Record<string, string | Buffer>): string {
    const dir = mkdtempSync(join(tmpdir(), 'hub-web-unit-'));
    dirs.push(dir);
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), content);
    }
    return dir;
  }

  it('is off without a folder, and missing without index.html', async () => {
    expect(await loadWebFiles(undefined)).toEqual({ state: 'off' });
    const empty = build({ 'assets/index-1.js': 'x' });
    expect(await loadWebFiles(empty)).toEqual({ state: 'missing', dir: empty });
    expect(await loadWebFiles(join(empty, 'nope'))).toEqual({ state: 'missing', dir: join(empty, 'nope') });
  });

  it('keys files by their /-separated names, with type, cache policy and encodings', async () => {
    const js = 'console.log("dashboard");\n'.repeat(100);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, ...Array.from({ length: 200 }, () => 0)]);
    const dir = build({
      'index.html': '<!doctype html><p>x</p>',
      'assets/index-1.js': js,
      'assets/logo-2.png': png,
      'robots.txt': 'a',
      'data.bin': 'z',
      '.vite/manifest.json': '{}',
      '.hidden': 'h',
    });
    const loaded = await loadWebFiles(dir);
    if (loaded.state !== 'loaded') throw new Error(`not loaded: ${loaded.state}`);
    // The build's dot-files (Vite's manifest) are not served.
    expect([...loaded.files.keys()].sort()).toEqual(['assets/index-1.js', 'assets/logo-2.png', 'data.bin', 'index.html', 'robots.txt']);
    expect(loaded.bytes).toBe(Buffer.byteLength(js) + png.byteLength + 23 + 1 + 1);

    const script = loaded.files.get('assets/index-1.js')!;
    expect(script).toMatchObject({ contentType: 'text/javascript; charset=utf-8', cacheControl: 'public, max-age=31536000, immutable', isHtml: false });
    expect([...script.encoded.keys()].sort()).toEqual(['br', 'gzip']);
    expect(script.encoded.get('br')!.etag).toBe(script.identity.etag.replace(/"$/, '-br"'));

    // Images are compressed already: no variants, however well zeros compress.
    const image = loaded.files.get('assets/logo-2.png')!;
    expect(image.contentType).toBe('image/png');
    expect(image.encoded.size).toBe(0);
    // One byte of text only grows when compressed.
    expect(loaded.files.get('robots.txt')!.encoded.size).toBe(0);
    expect(loaded.files.get('robots.txt')!.cacheControl).toBe('no-cache');
    expect(loaded.files.get('data.bin')!.contentType).toBe('application/octet-stream');
    expect(loaded.files.get('index.html')).toMatchObject({ contentType: 'text/html; charset=utf-8', cacheControl: 'no-cache', isHtml: true });
  });

  it('refuses a folder beyond the limits, naming it', async () => {
    const dir = build({ 'index.html': 'x'.repeat(600 * 1024), 'assets/a.js': 'y'.repeat(600 * 1024) });
    await expect(loadWebFiles(dir, { maxBytes: 2 ** 20, maxFiles: 10 })).rejects.toThrow(
      `WEB_DIR ${dir} holds more than 1 MB, more than the hub keeps in memory: it should name the built dashboard (dist/web)`,
    );
    await expect(loadWebFiles(dir, { maxBytes: 2 ** 21, maxFiles: 1 })).rejects.toThrow(`WEB_DIR ${dir} holds more than 1 files`);
    expect((await loadWebFiles(dir, { maxBytes: 2 ** 21, maxFiles: 2 })).state).toBe('loaded');
  });
});
