// The built dashboard (the `vite build` output in WEB_DIR), read into memory once at start: each file
// with its content type, cache policy, ETag, and gzip and brotli variants made in advance. Requests
// are answered from this table only, so no path a client sends ever reaches the file system.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';

export type Encoding = 'br' | 'gzip';

export interface Variant {
  /** A plain Uint8Array, not a Buffer: ultimate-express copies a Buffer on every send. */
  readonly body: Uint8Array;
  readonly etag: string;
}

export interface WebFile {
  readonly contentType: string;
  readonly cacheControl: string;
  readonly isHtml: boolean;
  readonly identity: Variant;
  /** Only the encodings that came out smaller than the file. */
  readonly encoded: ReadonlyMap<Encoding, Variant>;
}

export type WebBuild =
  | { readonly state: 'loaded'; readonly dir: string; readonly files: ReadonlyMap<string, WebFile>; readonly bytes: number }
  /** The folder, or its index.html, does not exist: the dashboard was not built. */
  | { readonly state: 'missing'; readonly dir: string }
  /** `WEB_DIR=`: this hub serves no dashboard. */
  | { readonly state: 'off' };

export interface WebFilesLimits {
  maxBytes: number;
  maxFiles: number;
}

/** A Vite build is a handful of files and a few MB; far more means WEB_DIR names the wrong folder. */
export const WEB_FILES_LIMITS: WebFilesLimits = { maxBytes: 50 * 1024 * 1024, maxFiles: 2000 };

/** Content-addressed names from the bundler (`index-3fa9c1.js`): cached for a year, never revalidated. */
const IMMUTABLE_PREFIX = 'assets/';
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Stable names (index.html, favicon.svg): the browser revalidates each time, a 304 when unchanged. */
const REVALIDATE = 'no-cache';

const TYPES: Record<string, { type: string; compress: boolean }> = {
  '.html': { type: 'text/html; charset=utf-8', compress: true },
  '.js': { type: 'text/javascript; charset=utf-8', compress: true },
  '.mjs': { type: 'text/javascript; charset=utf-8', compress: true },
  '.css': { type: 'text/css; charset=utf-8', compress: true },
  '.svg': { type: 'image/svg+xml; charset=utf-8', compress: true },
  '.json': { type: 'application/json; charset=utf-8', compress: true },
  // Source maps are fetched only with a browser's developer tools open: not worth compressing (about
  // 0.4 s of every start for the dashboard's 2.8 MB of them).
  '.map': { type: 'application/json; charset=utf-8', compress: false },
  '.txt': { type: 'text/plain; charset=utf-8', compress: true },
  '.webmanifest': { type: 'application/manifest+json; charset=utf-8', compress: true },
  '.png': { type: 'image/png', compress: false },
  '.jpg': { type: 'image/jpeg', compress: false },
  '.jpeg': { type: 'image/jpeg', compress: false },
  '.gif': { type: 'image/gif', compress: false },
  '.webp': { type: 'image/webp', compress: false },
  '.avif': { type: 'image/avif', compress: false },
  '.ico': { type: 'image/x-icon', compress: false },
  '.woff2': { type: 'font/woff2', compress: false },
  '.woff': { type: 'font/woff', compress: false },
  '.ttf': { type: 'font/ttf', compress: false },
  '.wasm': { type: 'application/wasm', compress: false },
};
const UNKNOWN_TYPE = { type: 'application/octet-stream', compress: false };

/**
 * Brotli's best quality costs about a second per MB on one core: worth it for the bundle itself, not for
 * large source maps, which quality 6 compresses nearly as well at a fraction of the time.
 */
const BROTLI_MAX_QUALITY_BYTES = 1024 * 1024;
const BROTLI_LARGE_FILE_QUALITY = 6;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Reads the build in `dir` (undefined: the dashboard is off). A folder without index.html is a
 * missing build; one beyond the limits is an error that stops the hub at start.
 */
export async function loadWebFiles(dir: string | undefined, limits: WebFilesLimits = WEB_FILES_LIMITS): Promise<WebBuild> {
  if (dir === undefined) return { state: 'off' };
  if (!existsSync(join(dir, 'index.html'))) return { state: 'missing', dir };
  const found = await listFiles(dir, limits);
  // Checked on the listing too, so a loaded build always has the page the fallback answers with.
  if (!found.includes('index.html')) return { state: 'missing', dir };
  const files = new Map<string, WebFile>();
  // Compression runs on libuv's thread pool, every file at once.
  await Promise.all(found.map(async (name) => files.set(name, await prepare(name, await readFile(join(dir, ...name.split('/')))))));
  const bytes = [...files.values()].reduce((sum, f) => sum + f.identity.body.byteLength, 0);
  return { state: 'loaded', dir, files, bytes };
}

/** Names relative to `dir`, `/`-separated; throws as soon as the limits are passed. */
async function listFiles(dir: string, limits: WebFilesLimits): Promise<string[]> {
  const names: string[] = [];
  let bytes = 0;
  const pending = [''];
  while (pending.length > 0) {
    const sub = pending.pop()!;
    for (const entry of await readdir(join(dir, sub), { withFileTypes: true })) {
      // Dot-files are the build's own (Vite's manifest in .vite/), not the app's.
      if (entry.name.startsWith('.')) continue;
      const name = sub === '' ? entry.name : `${sub}/${entry.name}`;
      // Symbolic links are followed to files, never to folders (a link to a parent would loop).
      const info = entry.isSymbolicLink() ? await stat(join(dir, name)) : entry;
      if (info.isDirectory() && !entry.isSymbolicLink()) {
        pending.push(name);
      } else if (info.isFile()) {
        names.push(name);
        bytes += (await stat(join(dir, name))).size;
        const over = names.length > limits.maxFiles ? `${limits.maxFiles} files` : bytes > limits.maxBytes ? `${limits.maxBytes / 2 ** 20} MB` : undefined;
        if (over) throw new Error(`WEB_DIR ${dir} holds more than ${over}, more than the hub keeps in memory: it should name the built dashboard (dist/web)`);
      }
    }
  }
  return names;
}

async function prepare(name: string, content: Buffer): Promise<WebFile> {
  const ext = posix.extname(name).toLowerCase();
  const { type, compress } = TYPES[ext] ?? UNKNOWN_TYPE;
  const tag = createHash('sha256').update(content).digest('base64url').slice(0, 27);
  const encoded = new Map<Encoding, Variant>();
  if (compress && content.byteLength > 0) {
    const [br, gz] = await Promise.all([
      brotli(content, {
        params: {
          [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
          [zlib.BROTLI_PARAM_QUALITY]: content.byteLength <= BROTLI_MAX_QUALITY_BYTES ? zlib.BROTLI_MAX_QUALITY : BROTLI_LARGE_FILE_QUALITY,
          [zlib.BROTLI_PARAM_SIZE_HINT]: content.byteLength,
        },
      }),
      gzipAsync(content, { level: zlib.Z_BEST_COMPRESSION }),
    ]);
    // A strong ETag names one byte sequence, so each encoding has its own.
    if (br.byteLength < content.byteLength) encoded.set('br', { body: bytesOf(br), etag: `"${tag}-br"` });
    if (gz.byteLength < content.byteLength) encoded.set('gzip', { body: bytesOf(gz), etag: `"${tag}-gz"` });
  }
  return {
    contentType: type,
    cacheControl: name.startsWith(IMMUTABLE_PREFIX) ? IMMUTABLE : REVALIDATE,
    isHtml: ext === '.html',
    identity: { body: bytesOf(content), etag: `"${tag}"` },
    encoded,
  };
}

const bytesOf = (buffer: Buffer) => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
