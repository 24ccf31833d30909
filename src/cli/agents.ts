// Builds an example agent from the environment, with each agent's settings checked by zod so a
// missing key is named before the agent connects.
import * as z from 'zod';
import { createCodeReviewAgent } from '../examples/codeReview.js';
import { createEchoAgent } from '../examples/echo.js';
import type { ExampleAgent } from '../examples/agent.js';
import { createSecurityAuditAgent } from '../examples/securityAudit.js';
import { createWeatherAgent } from '../examples/weather.js';
import { formatZodError } from '../protocol/validation.js';
import type { AgentKind } from './options.js';

const emptyAsAbsent = (v: unknown) => (v === '' ? undefined : v);
const optional = z.preprocess(emptyAsAbsent, z.string().optional());
const optionalUrl = z.preprocess(emptyAsAbsent, z.url().optional());

const weatherEnv = z.object({
  WEATHER_API_KEY: z.preprocess(emptyAsAbsent, z.string()),
  WEATHER_LOCATION: z.string().min(1).default('London'),
  WEATHER_API_URL: optionalUrl,
  WEATHER_INTERVAL: z.coerce.number().int().min(0).max(86_400).default(600),
});
const codeReviewEnv = z.object({
  CODE_REVIEW_API_KEY: optional,
  CODE_REVIEW_BASE_URL: optionalUrl,
  CODE_REVIEW_MODEL: optional,
});
const securityEnv = z.object({
  SECURITY_API_KEY: optional,
  SECURITY_AUDIT_ROOT: optional,
  SECURITY_ADVISORY_FILE: optional,
  SECURITY_ADVISORY_URL: optionalUrl,
});

function parseEnv<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.output<S> {
  const result = schema.safeParse(env);
  // An empty variable counts as unset, in the message too (`X is required`).
  if (!result.success) throw new Error(formatZodError(result.error, Object.fromEntries(Object.entries(env).filter(([, v]) => v !== ''))));
  return result.data;
}

export function agentFromEnv(kind: AgentKind, env: Record<string, string | undefined>, cwd: string): ExampleAgent {
  switch (kind) {
    case 'echo':
      return createEchoAgent();
    case 'weather': {
      const e = parseEnv(weatherEnv, env);
      return createWeatherAgent({ apiKey: e.WEATHER_API_KEY, location: e.WEATHER_LOCATION, apiUrl: e.WEATHER_API_URL, intervalSeconds: e.WEATHER_INTERVAL });
    }
    case 'code-review': {
      const e = parseEnv(codeReviewEnv, env);
      return createCodeReviewAgent({ apiKey: e.CODE_REVIEW_API_KEY, baseUrl: e.CODE_REVIEW_BASE_URL, model: e.CODE_REVIEW_MODEL });
    }
    case 'security-audit': {
      const e = parseEnv(securityEnv, env);
      return createSecurityAuditAgent({
        root: e.SECURITY_AUDIT_ROOT ?? cwd,
        advisoryFile: e.SECURITY_ADVISORY_FILE,
        advisoryUrl: e.SECURITY_ADVISORY_URL,
        apiKey: e.SECURITY_API_KEY,
      });
    }
  }
}
