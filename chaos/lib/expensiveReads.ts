// The expensive reads a signed-in member may call, with the settings that read the most rows: what the
// read checks hammer.
import { int } from '../../bench/lib/stats.js';
import type { HammerResult } from '../gen/readHammer.js';
import { SEED_WORD } from './seedMessages.js';

/** Every expensive read a member may call, with the settings that read the most rows. */
export function heavyPaths(seedSender: string): string[] {
  return [
    '/api/messages',
    `/api/messages?q=${SEED_WORD}`,
    '/api/messages?q=no-row-has-this-text',
    '/api/messages?level=ERROR&limit=200',
    '/api/stats/messages?minutes=60&bucket_minutes=1',
    `/api/stats/messages?minutes=60&bucket_minutes=1&q=row`,
    '/api/stats/reports?minutes=1440',
    `/api/stats/report-fields?agent_id=${encodeURIComponent(seedSender)}&type=CODE_REVIEW&limit=1000`,
    '/api/stats/unanswered',
  ];
}

/** How many of the hammered reads were answered with `status`, over every route. */
export function answeredWith(hammered: HammerResult, status: number): number {
  return Object.entries(hammered.statuses).reduce((n, [key, count]) => (key.endsWith(` ${status}`) ? n + count : n), 0);
}

/** The report's notes: the answers by route and status, and the reads that got none. */
export function hammerNotes(hammered: HammerResult): string[] {
  const byRoute = Object.entries(hammered.statuses)
    .sort()
    .map(([key, n]) => `${key}: ${int(n)}`)
    .join(', ');
  return [`- answers by route: ${byRoute}`, ...hammered.failureSamples.map((f) => `- no answer: ${f}`)];
}
