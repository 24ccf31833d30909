// Serves the dashboard, a single-page app, from the files loaded at start: a GET or HEAD for one of
// its files gets that file; any other path without a file extension gets index.html, so the app's own
// routes (`/chat/5`) load on a reload or a shared link. `/api` and `/metrics` are never touched: their
// unknown paths keep the JSON 404. Other methods pass on to the 404 as well.
import { posix } from 'node:path';
import { Errors } from '../errors.js';
import { DASHBOARD_ROUTE } from './metrics.js';
import type { Handler, Request, Response } from './context.js';
import { logAtDebug } from './requestLog.js';
import { tagRoute } from './routeTable.js';
import type { Encoding, WebBuild, WebFile } from './webFiles.js';

const INDEX = 'index.html';

/** `contentSecurityPolicy`: the header of the HTML pages (WEB_CSP). */
export function webApp(build: WebBuild, contentSecurityPolicy: string): Handler {
  const files = build.state === 'loaded' ? build.files : new Map<string, WebFile>();
  return (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isServerPath(req.path)) return next();
    let path: string;
    try {
      path = decodeURIComponent(req.path);
    } catch {
      return next(Errors.malformedPath());
    }
    // `/api%2Fusers` is still the API's.
    if (isServerPath(path)) return next();
    const file = files.get(path.slice(1));
    if (file) return serve(req, res, file, contentSecurityPolicy);
    if (posix.extname(path.slice(path.lastIndexOf('/') + 1)) !== '') return next();
    if (build.state === 'missing') return next(Errors.dashboardNotBuilt());
    if (build.state === 'off') return next(Errors.dashboardOff());
    serve(req, res, files.get(INDEX)!, contentSecurityPolicy);
  };
}

function isServerPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/') || path === '/metrics' || path.startsWith('/metrics/');
}

function serve(req: Request, res: Response, file: WebFile, contentSecurityPolicy: string): void {
  tagRoute(res, DASHBOARD_ROUTE);
  logAtDebug(res);
  const encoding = pickEncoding(req.headers['accept-encoding'], [...file.encoded.keys()]);
  const variant = encoding ? file.encoded.get(encoding)! : file.identity;
  res.setHeader('Cache-Control', file.cacheControl);
  res.setHeader('ETag', variant.etag);
  if (file.encoded.size > 0) res.vary('Accept-Encoding');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (file.isHtml) {
    res.setHeader('Content-Security-Policy', contentSecurityPolicy);
    res.setHeader('Referrer-Policy', 'no-referrer');
  }
  if (matchesEtag(req.headers['if-none-match'], variant.etag)) {
    // uWS adds `Content-Length: 0` to this 304; browsers keep the cached length, as they ignore it on a 304.
    res.status(304).end();
    return;
  }
  res.setHeader('Content-Type', file.contentType);
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.setHeader('Content-Length', String(variant.body.byteLength));
  // ultimate-express answers a HEAD with the Content-Length set and no body.
  if (req.method === 'HEAD') res.end();
  else res.end(variant.body);
}

/** If-None-Match (weak comparison, as RFC 9110 asks for it): `*` or any listed tag. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

/** Server preference when the client weighs them the same: brotli is the smaller. */
const PREFERENCE: readonly Encoding[] = ['br', 'gzip'];
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The content coding to answer with, from Accept-Encoding and the encodings a file has: the highest
 * q-value above 0 (an explicit entry, else `*`), brotli before gzip on a tie; undefined: the file as it is.
 */
export function pickEncoding(header: string | undefined, available: readonly Encoding[]): Encoding | undefined {
  if (!header || available.length === 0) return undefined;
  const weights = new Map<string, number>();
  for (const entry of header.split(',')) {
    const [coding, ...params] = entry.split(';');
    const name = coding!.trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value = ''] = param.split('=');
      // A q-value that does not parse makes the coding unacceptable, the safe reading.
      if (key!.trim().toLowerCase() === 'q') q = QVALUE.test(value.trim()) ? Number(value.trim()) : 0;
    }
    weights.set(name, q);
  }
  let best: Encoding | undefined;
  let bestWeight = 0;
  for (const encoding of PREFERENCE) {
    if (!available.includes(encoding)) continue;
    const weight = weights.get(encoding) ?? (encoding === 'gzip' ? weights.get('x-gzip') : undefined) ?? weights.get('*') ?? 0;
    if (weight > bestWeight) {
      best = encoding;
      bestWeight = weight;
    }
  }
  return best;
}
