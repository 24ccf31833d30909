// The client must bundle for a browser (a dashboard builds it with Vite): bundling its entry for the
// browser platform fails on any Node built-in it reaches, and `ws` must resolve to its browser stub.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { describeCredential } from '../../../src/client/credential.js';
import { httpBase, socketUrl } from '../../../src/client/transport.js';

describe('client in a browser', () => {
  it('bundles for the browser with no Node built-in in its import graph', async () => {
    const result = await build({
      entryPoints: ['src/client/index.ts'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((p) => p.startsWith('src/') && !p.startsWith('src/client/') && !p.startsWith('src/protocol/'))).toEqual([]);
    expect(inputs.some((p) => p.endsWith('ws/browser.js'))).toBe(true);
    expect(result.outputFiles[0]!.text).not.toMatch(/from\s*["']node:/);
  });

  it('stays small: zod without its 60-odd other locales, under 60 KB gzipped', async () => {
    const result = await build({
      stdin: { contents: "import { HubClient } from './src/client/index.ts'; globalThis.hub = HubClient;", resolveDir: process.cwd(), loader: 'ts' },
      bundle: true,
      minify: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    // What ends up in the bundle (metafile.inputs also lists what was read and then dropped).
    const output = Object.values(result.metafile.outputs)[0]!;
    const inputs = Object.entries(output.inputs).flatMap(([path, { bytesInOutput }]) => (bytesInOutput > 0 ? [path] : []));
    // `import { z } from 'zod'` anywhere the client reaches keeps zod's whole namespace (114 KB gzipped in all).
    expect(inputs.filter((p) => /zod\/v4\/locales\/(?!en\.js)/.test(p))).toEqual([]);
    expect(gzipSync(result.outputFiles[0]!.contents).length).toBeLessThan(60 * 1024);
  });
});

describe('client addresses and credentials', () => {
  it.each([
    ['http://hub:8080', 'http://hub:8080'],
    ['http://hub:8080/', 'http://hub:8080'],
    ['ws://hub:8080/api/ws', 'http://hub:8080'],
    ['wss://hub.example/base/api/ws?token=x', 'https://hub.example/base'],
    ['https://hub.example/base/', 'https://hub.example/base'],
  ])('%s → %s', (url, base) => {
    expect(httpBase(url)).toBe(base);
  });

  it('refuses other schemes', () => {
    expect(() => httpBase('ftp://hub')).toThrow('hub URL must start with http://, https://, ws:// or wss:// (got ftp:)');
  });

  it('puts the token and the resume point in the socket URL', () => {
    expect(socketUrl('https://hub.example/base', 'a b&c', 41)).toBe('wss://hub.example/base/api/ws?token=a+b%26c&since=41');
    expect(socketUrl('http://hub:8080', 't', undefined)).toBe('ws://hub:8080/api/ws?token=t');
  });

  it('reads who a JWT names, and takes anything else for an agent token', () => {
    const claims = Buffer.from(JSON.stringify({ sub: '7', username: 'ana', role: 'MEMBER' })).toString('base64url');
    expect(describeCredential(`eyJhbGciOiJIUzI1NiJ9.${claims}.sig`)).toEqual({ kind: 'human', userId: 7, username: 'ana' });
    expect(describeCredential('a.%%%.c')).toEqual({ kind: 'machine' });
    expect(describeCredential('abc.def.ghi')).toEqual({ kind: 'human' });
    expect(describeCredential('x9Yq_3-random-agent-token')).toEqual({ kind: 'machine' });
  });
});
