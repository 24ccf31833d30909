// The code review agent: reviews a unified diff sent to it in chat (or as a directive `review <diff>`)
// with rule-based checks on the added lines and, when CODE_REVIEW_API_KEY is set, an OpenAI-compatible
// model; sends the result as CODE_REVIEW to the dashboards and a summary back to the sender.
import parseDiff from 'parse-diff';
import * as z from 'zod';
import { safeUrl, unreachable } from '../client/unreachable.js';
import type { CodeReviewPayload, ReviewFinding, ReviewSeverity } from '../protocol/reports.js';
import { chatCommand, splitCommand, type AgentTools, type ExampleAgent } from './agent.js';
import { findSecrets } from './secrets.js';

export interface CodeReviewOptions {
  /** Key of the OpenAI-compatible model; without it the review is rule-based only. */
  apiKey?: string;
  /** Base URL of the model's API (default: OpenAI's). */
  baseUrl?: string;
  model?: string;
  fetch?: typeof fetch;
}

/** An OpenAI-compatible Chat Completions endpoint: one POST, no streaming, so plain fetch does it. */
export interface ModelEndpoint {
  baseUrl: string;
  apiKey: string;
  model: string;
  fetch?: typeof fetch;
}

interface LineRule {
  id: string;
  severity: ReviewSeverity;
  pattern: RegExp;
  message: string;
  /** Only for files whose name matches. */
  files?: RegExp;
}

const SCRIPT = /\.(?:[cm]?[jt]sx?|vue|svelte)$/;

/** Checks on each added line. */
export const LINE_RULES: readonly LineRule[] = [
  { id: 'merge-conflict-marker', severity: 'error', pattern: /^(?:<{7}|>{7}|={7})(?:\s|$)/, message: 'merge conflict marker left in the file' },
  { id: 'no-debugger', severity: 'error', pattern: /\bdebugger\s*;?/, message: '`debugger` statement left in', files: SCRIPT },
  { id: 'no-eval', severity: 'error', pattern: /\beval\s*\(|\bnew\s+Function\s*\(/, message: 'eval()/new Function() runs arbitrary code', files: SCRIPT },
  { id: 'no-console', severity: 'warning', pattern: /\bconsole\.(?:log|debug|trace)\s*\(/, message: 'console logging left in', files: SCRIPT },
  {
    id: 'no-ts-ignore',
    severity: 'warning',
    pattern: /@ts-ignore|eslint-disable(?!-next-line\s+\S)/,
    message: 'a type or lint check is switched off without naming a rule',
    files: SCRIPT,
  },
  {
    id: 'no-sql-concat',
    severity: 'warning',
    pattern: /\b(?:SELECT|INSERT|UPDATE|DELETE)\b[^'"`]*['"`]\s*\+\s*\w|\$\{[^}]+\}[^`]*\b(?:WHERE|VALUES)\b/i,
    message: 'SQL built by string concatenation: use parameters',
  },
  { id: 'todo-left', severity: 'info', pattern: /\b(?:TODO|FIXME|XXX)\b/, message: 'a TODO is added' },
];

const MAX_FINDINGS = 200;
const MAX_DIFF_FOR_MODEL = 60_000;

export function looksLikeDiff(text: string): boolean {
  return /^(?:diff --git |--- \S)/m.test(text) && /^@@ /m.test(text);
}

/** Rule-based findings on the added lines of a unified diff. */
export function reviewDiff(diff: string): { files: number; findings: ReviewFinding[] } {
  const files = parseDiff(diff);
  const findings: ReviewFinding[] = [];
  for (const file of files) {
    const name = file.to && file.to !== '/dev/null' ? file.to : (file.from ?? 'unknown');
    for (const chunk of file.chunks) {
      for (const change of chunk.changes) {
        if (change.type !== 'add') continue;
        const text = change.content.slice(1);
        for (const rule of LINE_RULES) {
          if (rule.files && !rule.files.test(name)) continue;
          if (rule.pattern.test(text)) findings.push({ file: name, line: change.ln, severity: rule.severity, rule: rule.id, message: rule.message });
        }
        for (const secret of findSecrets(text)) {
          findings.push({
            file: name,
            line: change.ln,
            severity: 'error',
            rule: `secret/${secret.rule.id}`,
            message: `a credential is committed: ${secret.excerpt}`,
          });
        }
      }
    }
  }
  return { files: files.length, findings: findings.slice(0, MAX_FINDINGS) };
}

/** What the model is asked to answer with. */
const modelAnswer = z.object({
  summary: z.string().max(2000).optional(),
  findings: z
    .array(
      z.object({
        file: z.string().min(1).max(1024),
        line: z.number().int().min(1).optional(),
        severity: z.enum(['info', 'warning', 'error']).catch('info'),
        message: z.string().min(1).max(2000),
      }),
    )
    .max(50)
    .default([]),
});

const PROMPT = [
  'You review a unified diff. Report only real problems in the added lines: bugs, security issues, unclear code.',
  'Answer with JSON only: {"summary": "<one sentence>", "findings": [{"file": "<path>", "line": <new line number>, "severity": "info|warning|error", "message": "<what and why>"}]}.',
].join(' ');

const MODEL_TIMEOUT_MS = 60_000;
const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** The fields of a Chat Completions answer the review reads. */
const completion = z.object({ choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })) });

/** One completion's text; failures name the endpoint and the cause (or the status and the API's own message). */
async function complete(endpoint: ModelEndpoint, diff: string): Promise<string> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  let res: Response;
  try {
    res = await (endpoint.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${endpoint.apiKey}`, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({
        model: endpoint.model,
        temperature: 0,
        messages: [
          { role: 'system', content: PROMPT },
          { role: 'user', content: diff.slice(0, MAX_DIFF_FOR_MODEL) },
        ],
      }),
      signal: AbortSignal.timeout(MODEL_TIMEOUT_MS),
    });
  } catch (err) {
    throw unreachable('model API', url, err);
  }
  const body: unknown = await res.json().catch(() => undefined);
  if (!res.ok) {
    const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
    throw new Error(`the model API at ${safeUrl(url)} answered ${res.status}${typeof message === 'string' ? ` (${message})` : ''}`);
  }
  const parsed = completion.safeParse(body);
  if (!parsed.success) throw new Error(`the model API at ${safeUrl(url)} answered in an unexpected shape`);
  return parsed.data.choices[0]?.message.content ?? '';
}

/** Asks the model; its findings carry rule `model`. */
export async function modelReview(endpoint: ModelEndpoint, diff: string): Promise<{ summary?: string; findings: ReviewFinding[] }> {
  const text = await complete(endpoint, diff);
  // Models wrap JSON in code fences now and then.
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  let value: unknown;
  try {
    value = json === undefined ? undefined : JSON.parse(json);
  } catch {
    value = undefined;
  }
  const parsed = modelAnswer.safeParse(value);
  if (!parsed.success) return { summary: text.trim().slice(0, 300) || undefined, findings: [] };
  return { summary: parsed.data.summary, findings: parsed.data.findings.map((f) => ({ ...f, rule: 'model' })) };
}

function verdictOf(findings: ReviewFinding[]): CodeReviewPayload['verdict'] {
  if (findings.some((f) => f.severity === 'error')) return 'request_changes';
  return findings.some((f) => f.severity === 'warning') ? 'comment' : 'approve';
}

export function createCodeReviewAgent(options: CodeReviewOptions): ExampleAgent {
  const model = options.model ?? 'gpt-4o-mini';
  const llm: ModelEndpoint | undefined = options.apiKey
    ? { apiKey: options.apiKey, baseUrl: options.baseUrl ?? DEFAULT_BASE_URL, model, fetch: options.fetch }
    : undefined;
  let reviews = 0;

  async function review(diff: string, tools: AgentTools): Promise<CodeReviewPayload> {
    const rules = reviewDiff(diff);
    const payload: CodeReviewPayload = { verdict: 'approve', content: '', files_reviewed: rules.files, findings: rules.findings };
    let note = '';
    if (llm) {
      try {
        const answer = await modelReview(llm, diff);
        payload.findings = [...rules.findings, ...answer.findings].slice(0, MAX_FINDINGS);
        payload.model = model;
        if (answer.summary) note = ` Model: ${answer.summary}`;
      } catch (err) {
        tools.fail('the model review failed; rule-based findings only', err);
        note = ' (the model was unavailable; rule-based checks only)';
      }
    }
    const findings = payload.findings ?? [];
    payload.verdict = verdictOf(findings);
    const counts = (['error', 'warning', 'info'] as const).map((s) => [s, findings.filter((f) => f.severity === s).length] as const).filter(([, n]) => n > 0);
    const tally = counts.length === 0 ? 'no findings' : counts.map(([s, n]) => `${n} ${s}${n === 1 ? '' : 's'}`).join(', ');
    payload.content = `${payload.verdict.replace('_', ' ')}: ${tally} in ${rules.files} file${rules.files === 1 ? '' : 's'}.${note}`.slice(0, 4096);
    await tools.client.report('CODE_REVIEW', payload);
    reviews++;
    return payload;
  }

  /** The reply a person reads: the summary, then one line per finding. */
  const describe = (p: CodeReviewPayload) =>
    [p.content, ...(p.findings ?? []).slice(0, 20).map((f) => `- ${f.severity} ${f.file}${f.line ? `:${f.line}` : ''} [${f.rule}] ${f.message}`)].join('\n');

  return {
    kind: 'code-review',
    description: `reviews unified diffs with rule-based checks${llm ? ` and the model ${model}` : ''}`,
    commands: ['review <unified diff>'],
    onChat: chatCommand({
      parse: (text) => (looksLikeDiff(text) ? text : undefined),
      hint: 'Send me a unified diff (for example the output of `git diff`) and I will review it.',
      failure: 'the review failed',
      run: async (diff, tools) => describe(await review(diff, tools)),
    }),
    async onDirective(command, tools) {
      const [verb, rest] = splitCommand(command);
      if (verb !== 'review') throw new Error(`unknown directive "${verb}"; try help`);
      if (!looksLikeDiff(rest)) throw new Error('review needs a unified diff');
      return describe(await review(rest, tools));
    },
    status: () => `code review agent: ${reviews} review${reviews === 1 ? '' : 's'} done${llm ? `, model ${model}` : ', rules only'}`,
  };
}
