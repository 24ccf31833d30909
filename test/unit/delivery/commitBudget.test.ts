// The commit order's bound on what is in flight: at most `writeDepth` batches and, across them,
// `writeBudget` rows and bytes (one batch always goes, however large), so the SQLite writer can
// group everything that waited without the queue handing it an unbounded amount.
import pino from 'pino';
import { expect, it } from 'vitest';
import { createCommitOrder, type CommitJob } from '../../../src/delivery/commit.js';
import type { MessageInsert } from '../../../src/store/batchWriter.js';
import { FakeStore } from '../../helpers/deliveryFakes.js';

const silent = pino({ level: 'silent' });
const meter = { committed: () => undefined, failed: () => undefined };

const rows = (count: number, text = 'x'): MessageInsert[] =>
  Array.from({ length: count }, () => ({
    type: 'SYSTEM_LOG',
    sender_id: 1,
    sender_name: 'a',
    sender_role: 'AGENT',
    target_id: null,
    target_role: null,
    payload: text,
    level: 'INFO',
    content: text,
    local_id: null,
    conversation_id: null,
    stream_id: null,
    created_at: '',
  }));

const job = (messages: MessageInsert[], log: string[], name: string): CommitJob => ({
  write: { messages, presence: [], threads: [] },
  size: messages.length,
  needsWrite: true,
  complete: () => void log.push(name),
});

function harness(budget: { rows: number; bytes: number }) {
  const store = Object.assign(new FakeStore(64), { writeBudget: budget });
  store.hold = true;
  const commits = createCommitOrder({ store, meter, logger: silent });
  return { store, commits };
}

/** Whether `promise` has settled once everything already queued has run. */
async function settledNow(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

it('hands batches over while their rows fit the budget, then waits for the oldest to commit', async () => {
  const { store, commits } = harness({ rows: 100, bytes: Infinity });
  const log: string[] = [];
  await commits.commit(job(rows(40), log, 'a'));
  await commits.commit(job(rows(40), log, 'b'));
  // 120 rows in flight with the third: the caller waits until the first has committed.
  const third = commits.commit(job(rows(40), log, 'c'));
  expect(await settledNow(third)).toBe(false);
  expect(store.writes).toHaveLength(3);
  store.pending[0]!.settle();
  await third;
  expect(log).toEqual(['a']);
  store.pending[1]!.settle();
  store.pending[2]!.settle();
  await commits.last;
  expect(log).toEqual(['a', 'b', 'c']);
});

it('bounds bytes as well as rows, and always lets one batch through however large', async () => {
  const { store, commits } = harness({ rows: Infinity, bytes: 10_000 });
  const log: string[] = [];
  const huge = commits.commit(job(rows(1, 'y'.repeat(50_000)), log, 'huge'));
  // The one batch in flight is over budget on its own: it is handed over, and the caller waits.
  expect(store.writes).toHaveLength(1);
  expect(await settledNow(huge)).toBe(false);
  store.pending[0]!.settle();
  await huge;
  await commits.commit(job(rows(10), log, 'small'));
  expect(store.writes).toHaveLength(2);
  store.pending[1]!.settle();
  await commits.last;
  expect(log).toEqual(['huge', 'small']);
});
