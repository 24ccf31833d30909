// A small JSON client for tests: real HTTP over loopback, answers with status, body and headers.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is (for malformed or oversized bodies). */
  rawBody?: string;
  headers?: Record<string, string>;
}

/**
 * The same client sending from another loopback address (127.0.0.2, ...), so the hub sees a second
 * client machine (per-address limits). Over node:http: fetch cannot choose its local address.
 */
export function apiClientFrom(baseUrl: string, localAddress: string) {
  const { hostname, port } = new URL(baseUrl);
  return {
    post<T = any>(path: string, body: unknown): Promise<ApiResponse<T>> {
      const text = JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = httpRequest(
          {
            host: hostname,
            port,
            localAddress,
            method: 'POST',
            path,
            agent: false,
            headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              const raw = Buffer.concat(chunks).toString('utf8');
              const headers = new Headers();
              for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
              resolve({ status: res.statusCode ?? 0, body: (raw === '' ? undefined : JSON.parse(raw)) as T, headers });
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(text);
      });
    },
  };
}

export function apiClient(baseUrl: string) {
  async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers['Authorization'] = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined && method !== 'GET' && method !== 'HEAD') body = JSON.stringify(options.body);
    if (body !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // keep the raw text: a test asserting JSON will fail on it with the text visible
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }
  return {
    request,
    get: <T = any>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
    post: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, { ...options, body }),
    patch: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PATCH', path, { ...options, body }),
    delete: <T = any>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes as they came: not decompressed. */
  body: Buffer;
}

/**
 * One request with the path sent exactly as given (fetch would resolve `..` and `%2e%2e` first) and
 * the answer's bytes untouched (fetch would decompress them).
 */
export function rawRequest(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}
