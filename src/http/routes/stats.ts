// The dashboard's chart series: read-only, each already the numbers of one picture (never raw rows).
// Message series follow the same visibility as GET /api/messages (members: broadcast, to or from them).
import {
  connectorOutcomesQuery,
  countSeries,
  messageRateQuery,
  presenceQuery,
  presenceStrips,
  reportFields,
  reportFieldsQuery,
  reportTallies,
  reportTallyQuery,
  onlineSeries,
  onlineSeriesQuery,
  runtimeSamples,
  unansweredSummary,
} from '../../protocol/stats.js';
import type { StatsService } from '../../services/stats.js';
import { routeGroup } from '../route.js';

export interface StatsDeps {
  stats: StatsService;
}

const route = routeGroup<StatsDeps>('stats');

export const statsRoutes = [
  route({
    method: 'GET',
    path: '/api/stats/messages',
    heavyRead: true,
    access: 'authenticated',
    summary: 'Dashboard messages per time bucket per sender, with the filters of GET /api/messages',
    query: messageRateQuery,
    responses: { 200: { description: 'one series per sender', schema: countSeries } },
    handler: ({ query, caller }, { stats }) => stats.messageRate(caller, query),
  }),
  route({
    method: 'GET',
    path: '/api/stats/reports',
    heavyRead: true,
    access: 'authenticated',
    summary: 'Reports tallied: SYSTEM_LOG by level, CODE_REVIEW by verdict, SECURITY_ALERT by severity',
    query: reportTallyQuery,
    responses: { 200: { description: 'the tallies', schema: reportTallies } },
    handler: ({ query, caller }, { stats }) => stats.reportTallies(caller, query.minutes),
  }),
  route({
    method: 'GET',
    path: '/api/stats/report-fields',
    heavyRead: true,
    access: 'authenticated',
    summary: "The numeric fields of one sender's reports over time (weather per location; findings counted)",
    query: reportFieldsQuery,
    responses: { 200: { description: 'one series per field', schema: reportFields } },
    handler: ({ query, caller }, { stats }) => stats.reportFields(caller, query),
  }),
  route({
    method: 'GET',
    path: '/api/stats/presence',
    access: 'authenticated',
    summary: "Agents' online spans over the last hours, as this hub node's router saw them",
    query: presenceQuery,
    responses: { 200: { description: 'one strip per agent', schema: presenceStrips } },
    handler: ({ query }, { stats }) => stats.presence(query.hours),
  }),
  route({
    method: 'GET',
    path: '/api/stats/connector',
    heavyRead: true,
    access: 'admin',
    summary: "The current connector's outcomes per time bucket: accepted, filtered, sent, failed",
    query: connectorOutcomesQuery,
    responses: { 200: { description: 'one series per outcome (all zero without a connector)', schema: countSeries } },
    handler: ({ query }, { stats }) => stats.connectorOutcomes(query),
  }),
  route({
    method: 'GET',
    path: '/api/stats/online',
    access: 'authenticated',
    summary: 'Agents online and registered over the last minutes, sampled by the hub node once a minute (a day kept in memory)',
    query: onlineSeriesQuery,
    responses: { 200: { description: 'the series, the last point now', schema: onlineSeries } },
    handler: ({ query }, { stats }) => stats.online(query.minutes),
  }),
  route({
    method: 'GET',
    path: '/api/stats/runtime',
    access: 'admin',
    summary: 'Open sockets, the group-commit queue and event-loop lag, sampled over the last hour',
    responses: { 200: { description: 'the samples, oldest first', schema: runtimeSamples } },
    handler: (_input, { stats }) => stats.runtime(),
  }),
  route({
    method: 'GET',
    path: '/api/stats/unanswered',
    heavyRead: true,
    access: 'human',
    machineRefusal: 'only human users have conversations waiting for an answer',
    summary: "The caller's messages to agents and Butler still waiting for a reply, the oldest first",
    responses: { 200: { description: 'the oldest and one entry per waiting conversation', schema: unansweredSummary } },
    handler: ({ caller }, { stats }) => stats.unanswered(caller),
  }),
];
