// Patterns of committed secrets, shared by the security audit (files) and the code review (added
// lines). Each names the kind of credential; a match is reported with the secret masked, never whole.
import type { AlertSeverity } from '../protocol/reports.js';

export interface SecretRule {
  id: string;
  severity: AlertSeverity;
  pattern: RegExp;
  /** Index of the capture group holding the secret (0: the whole match). */
  group?: number;
}

export const SECRET_RULES: readonly SecretRule[] = [
  { id: 'private-key', severity: 'critical', pattern: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/ },
  { id: 'aws-access-key-id', severity: 'critical', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { id: 'github-token', severity: 'high', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/ },
  { id: 'slack-token', severity: 'high', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/ },
  { id: 'google-api-key', severity: 'high', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { id: 'api-secret-key', severity: 'high', pattern: /\bsk[-_](?:live[-_]|proj-)?[A-Za-z0-9_-]{20,}\b/ },
  {
    id: 'hardcoded-credential',
    severity: 'medium',
    pattern: /\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)["']?\s*[:=]\s*["']([^"'\s]{8,})["']/i,
    group: 1,
  },
];

/** Values that are obviously not real credentials (examples, placeholders, references). */
const PLACEHOLDER = /^(?:x+|\*+|\.+|changeme|change-me|example.*|your[-_].*|<.*>|\$\{.*\}|\{\{.*\}\}|process\.env.*|dummy.*|test.*|placeholder.*)$/i;

export interface SecretMatch {
  rule: SecretRule;
  /** The line with the secret masked. */
  excerpt: string;
}

function mask(line: string, secret: string): string {
  const shown = secret.slice(0, 4);
  return line
    .replace(secret, `${shown}${'*'.repeat(Math.min(12, Math.max(4, secret.length - 4)))}`)
    .trim()
    .slice(0, 200);
}

/** The secrets in one line of text, at most one per rule. */
export function findSecrets(line: string): SecretMatch[] {
  if (line.length > 4000) line = line.slice(0, 4000);
  const found: SecretMatch[] = [];
  for (const rule of SECRET_RULES) {
    const match = rule.pattern.exec(line);
    if (!match) continue;
    const secret = match[rule.group ?? 0] ?? match[0];
    if (rule.group !== undefined && PLACEHOLDER.test(secret)) continue;
    // A private key's header is not itself secret; everything else is masked.
    found.push({ rule, excerpt: rule.id === 'private-key' ? match[0] : mask(line, secret) });
  }
  return found;
}
