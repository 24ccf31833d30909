// The credentials a run hands out, and the scan of what the hub logged and answered for them.
// Logs may hold none of them, nor any JWT. Answers kept by the generators are hostile requests'
// answers: none may hold a password, the JWT secret, a password hash or another principal's token.
import { createReadStream } from 'node:fs';

export type SecretKind = 'JWT secret' | 'password' | 'api_token' | 'JWT';

/** A JWT: three base64url parts, the first two JSON objects (`{"` encodes as `eyJ`). */
const JWT = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/g;
/** 43 base64url characters: the shape of the hub's generated api_tokens (32 random bytes). */
const TOKEN_LIKE = /[A-Za-z0-9_-]{43}/g;

export class SecretBook {
  /** Few, scanned for by substring: the JWT secret and passwords. */
  private readonly literals = new Map<string, SecretKind>();
  /** Many (thousands of agents): looked up by shape. */
  private readonly tokens = new Set<string>();

  add(kind: SecretKind, value: string): void {
    if (kind === 'api_token') this.tokens.add(value);
    else this.literals.set(value, kind);
  }

  get size(): number {
    return this.literals.size + this.tokens.size;
  }

  /** Findings in one piece of text; `jwtAllowed` for answers that legitimately carry the caller's own session. */
  findIn(text: string, jwtAllowed: boolean): Finding[] {
    const found: Finding[] = [];
    for (const [value, kind] of this.literals) if (text.includes(value)) found.push({ kind, sample: mask(value) });
    for (const m of text.matchAll(TOKEN_LIKE)) if (this.tokens.has(m[0])) found.push({ kind: 'api_token', sample: mask(m[0]) });
    if (!jwtAllowed) for (const m of text.matchAll(JWT)) found.push({ kind: 'JWT', sample: mask(m[0]) });
    return found;
  }
}

export interface Finding {
  kind: SecretKind;
  /** Enough to recognise it, not enough to use it. */
  sample: string;
}

const mask = (v: string) => (v.length <= 8 ? '***' : `${v.slice(0, 4)}…${v.slice(-4)} (${v.length} chars)`);

/** Scans a file line by line (logs can be large); answers how many lines and what was found where. */
export async function scanFile(
  path: string,
  book: SecretBook,
  jwtAllowed: (line: string) => boolean,
): Promise<{ lines: number; findings: Array<Finding & { line: number }> }> {
  const findings: Array<Finding & { line: number }> = [];
  let lines = 0;
  let rest = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const parts = (rest + (chunk as string)).split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) {
      lines++;
      for (const f of book.findIn(line, jwtAllowed(line))) if (findings.length < 1000) findings.push({ ...f, line: lines });
    }
  }
  if (rest !== '') {
    lines++;
    for (const f of book.findIn(rest, jwtAllowed(rest))) findings.push({ ...f, line: lines });
  }
  return { lines, findings };
}
