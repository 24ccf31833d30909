// The dashboard's chart series (GET /api/stats/...): their queries and answers. Series are columnar
// (one `times` axis, one array of values per series), the shape a chart draws without reshaping.
import * as z from 'zod';
import { memberOf } from './memberOf.js';
import { LogLevels, ReportTypes, TelemetryTypes, type TelemetryType } from './messages.js';

const emptyAsAbsent = (v: unknown) => (v === '' ? undefined : v);
const optionalText = (max: number) => z.preprocess(emptyAsAbsent, z.string().max(max).optional());
const whole = (min: number, max: number, fallback: number) => z.coerce.number().int().min(min).max(max).default(fallback);
const iso = z.string().meta({ description: 'ISO 8601 UTC' });

/** The types `GET /api/stats/reports` tallies: SYSTEM_LOG by level, CODE_REVIEW by verdict, SECURITY_ALERT by severity. */
export const TalliedTypes = ['SYSTEM_LOG', 'CODE_REVIEW', 'SECURITY_ALERT'] as const satisfies readonly TelemetryType[];
export type TalliedType = (typeof TalliedTypes)[number];
export const isTalliedType = memberOf(TalliedTypes);

/** Buckets one series may have: a day by the minute would be 1440 numbers per sender. */
export const MAX_BUCKETS = 360;
const fewBuckets = (q: { minutes: number; bucket_minutes: number }, ctx: z.RefinementCtx) => {
  if (Math.ceil(q.minutes / q.bucket_minutes) > MAX_BUCKETS)
    ctx.addIssue({
      code: 'custom',
      path: ['bucket_minutes'],
      message: `must be at least ${Math.ceil(q.minutes / MAX_BUCKETS)} for ${q.minutes} minutes (at most ${MAX_BUCKETS} buckets)`,
    });
};

export const messageRateQuery = z
  .object({
    minutes: whole(1, 1440, 60).meta({ description: 'how far back the window reaches' }),
    bucket_minutes: whole(1, 60, 1).meta({ description: 'width of one bucket' }),
    agent_id: optionalText(64).meta({ description: "only this sender's messages (username)" }),
    level: z.preprocess(emptyAsAbsent, z.enum(LogLevels).optional()),
    type: z.preprocess(emptyAsAbsent, z.enum(TelemetryTypes).optional()),
    q: optionalText(200).meta({ description: 'only messages whose text contains this' }),
  })
  .superRefine(fewBuckets);
export type MessageRateQuery = z.output<typeof messageRateQuery>;

export const reportTallyQuery = z.object({ minutes: whole(1, 10_080, 1440) });

export const reportFieldsQuery = z.object({
  agent_id: z.string().min(1).max(64).meta({ description: 'the sender (username)' }),
  type: z.enum(ReportTypes),
  minutes: whole(1, 10_080, 1440),
  limit: whole(1, 1000, 300).meta({ description: 'most reports read, the newest' }),
});
export type ReportFieldsQuery = z.output<typeof reportFieldsQuery>;

export const presenceQuery = z.object({ hours: whole(1, 24, 6) });
export const connectorOutcomesQuery = z.object({ minutes: whole(1, 1440, 60), bucket_minutes: whole(1, 60, 1) }).superRefine(fewBuckets);

export const countSeries = z
  .object({
    from: iso,
    to: iso,
    bucket_seconds: z.number().int(),
    times: z.array(iso).meta({ description: 'the start of each bucket, oldest first' }),
    series: z.array(z.object({ name: z.string(), counts: z.array(z.number().int()) })),
    total: z.array(z.number().int()).meta({ description: 'all series summed, per bucket' }),
  })
  .meta({ id: 'CountSeries' });
export type CountSeries = z.output<typeof countSeries>;

export const reportTallies = z
  .object({
    from: iso,
    to: iso,
    levels: z.record(z.string(), z.number().int()).meta({ description: 'SYSTEM_LOG by level' }),
    verdicts: z.record(z.string(), z.number().int()).meta({ description: 'CODE_REVIEW by verdict' }),
    severities: z.record(z.string(), z.number().int()).meta({ description: 'SECURITY_ALERT by severity' }),
  })
  .meta({ id: 'ReportTallies' });
export type ReportTallies = z.output<typeof reportTallies>;

export const reportFields = z
  .object({
    from: iso,
    to: iso,
    series: z.array(
      z.object({
        name: z.string().meta({ description: '`field`, or `location · field` for weather' }),
        points: z.array(z.object({ t: iso, v: z.number() })),
      }),
    ),
  })
  .meta({ id: 'ReportFields', description: 'numeric fields of one sender’s reports over time (findings counted)' });
export type ReportFields = z.output<typeof reportFields>;

export const presenceStrips = z
  .object({
    from: iso,
    to: iso,
    known_from: iso.meta({ description: 'since when this hub node has watched presence; before it, unknown' }),
    agents: z.array(
      z.object({
        id: z.number().int(),
        username: z.string(),
        online: z.array(z.object({ from: iso, to: iso.nullable().meta({ description: 'null: still online' }) })),
      }),
    ),
  })
  .meta({ id: 'PresenceStrips' });
export type PresenceStrips = z.output<typeof presenceStrips>;

export const agentCounts = z
  .object({
    total: z.number().int().meta({ description: 'registered agents (role AGENT; Butler is not counted)' }),
    online: z.number().int(),
    offline: z.number().int(),
    by_status: z.array(z.object({ status: z.string(), count: z.number().int() })).meta({ description: 'most first' }),
    by_kind: z.array(z.object({ kind: z.string(), count: z.number().int() })).meta({ description: 'most first' }),
  })
  .meta({ id: 'AgentCounts' });
export type AgentCounts = z.output<typeof agentCounts>;

export const onlineSeriesQuery = z.object({ minutes: whole(1, 1440, 60).meta({ description: 'how far back the series reaches' }) });
export const onlineSeries = z
  .object({
    interval_ms: z.number().int(),
    known_from: iso.meta({ description: 'since when this hub node has sampled; before it, unknown' }),
    times: z.array(iso),
    online: z.array(z.number().int()).meta({ description: 'agents online at each time' }),
    registered: z.array(z.number().int()).meta({ description: 'agents registered at each time' }),
  })
  .meta({ id: 'OnlineSeries', description: 'agents online over time, sampled by the hub node; the last point is now' });
export type OnlineSeries = z.output<typeof onlineSeries>;

export const runtimeSamples = z
  .object({
    interval_ms: z.number().int(),
    samples: z.array(
      z.object({
        t: iso,
        sockets: z.number().int(),
        queue_depth: z.number().int().meta({ description: 'messages and presence changes waiting for the group commit' }),
        loop_lag_ms: z.number().meta({ description: 'the longest event-loop delay since the previous sample' }),
      }),
    ),
  })
  .meta({ id: 'RuntimeSamples' });
export type RuntimeSamples = z.output<typeof runtimeSamples>;

export const unansweredSummary = z
  .object({
    oldest: z
      .object({ peer_id: z.number().int(), id: z.number().int(), text: z.string(), timestamp: iso })
      .nullable()
      .meta({ description: "the caller's oldest message to an agent or Butler with no reply from it since" }),
    conversations: z.number().int().meta({ description: 'peers with at least one message waiting' }),
    by_peer: z.array(z.object({ peer_id: z.number().int(), id: z.number().int(), timestamp: iso, waiting: z.number().int() })),
  })
  .meta({ id: 'UnansweredSummary' });
export type UnansweredSummary = z.output<typeof unansweredSummary>;
