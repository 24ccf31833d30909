// The bus journal's bookkeeping: what a node has heard of the durable bus messages, on a journal whose
// ids can commit out of order (a sequence hands them out before the rows commit). Each message reaches
// the node's subscribers once, whether it came on Redis, from the store, or both; a hole in the ids is
// waited for, then skipped; this node's own rows are not handed back to it.
import { describe, expect, it } from 'vitest';
import { createBusJournal } from '../../../src/cluster/bus/journal.js';
import type { JournalRow } from '../../../src/store/repositories/cluster.js';

/** The journal table in memory: `commit` makes a row visible, in any order of ids. */
function table() {
  const rows: Array<JournalRow & { at: number }> = [];
  let nextId = 0;
  let failing = false;
  return {
    rows,
    /** Takes an id now; the row becomes visible when `commit` is called. */
    reserve: (node: string, kind: string, body: unknown) => {
      const row = { id: ++nextId, node, kind, body: JSON.stringify(body), at: 0 };
      return { id: row.id, commit: () => rows.push(row) };
    },
    fail(on: boolean) {
      failing = on;
    },
    repo: {
      async journal(entry: { node: string; kind: string; body: string; at: number }) {
        const row = { id: ++nextId, ...entry };
        rows.push(row);
        return row.id;
      },
      async journalAfter(afterId: number, limit: number) {
        if (failing) throw new Error('connection refused');
        return rows
          .filter((r) => r.id > afterId)
          .sort((a, b) => a.id - b.id)
          .slice(0, limit);
      },
      async journalNewest() {
        return rows.reduce((max, r) => Math.max(max, r.id), 0);
      },
      async pruneJournal() {
        return 0;
      },
    },
  };
}

function journalOn(t: ReturnType<typeof table>, clock = { ms: 0 }) {
  const heard: Array<{ kind: string; body: unknown }> = [];
  const warnings: string[] = [];
  const journal = createBusJournal({
    nodeId: 'n2',
    repo: t.repo,
    deliver: (kind, body) => heard.push({ kind, body }),
    log: { warn: (_o: unknown, msg: string) => void warnings.push(msg), info: () => undefined } as never,
    now: () => clock.ms,
  });
  return { journal, heard, warnings, clock };
}

describe('the bus journal', () => {
  it('starts after the rows written before it and hands over what other nodes write later, once', async () => {
    const t = table();
    t.reserve('n1', 'close-user', { userId: 1 }).commit();
    const { journal, heard } = journalOn(t);
    await journal.start();
    t.reserve('n1', 'close-user', { userId: 2 }).commit();
    await journal.poll();
    await journal.poll();
    expect(heard).toEqual([{ kind: 'close-user', body: { userId: 2 } }]);
  });

  it('runs a message heard on Redis once, when the store brings it too (and the other way round)', async () => {
    const t = table();
    const { journal, heard } = journalOn(t);
    await journal.start();
    const a = t.reserve('n1', 'decided', { actionId: 'a' });
    a.commit();
    expect(journal.heard(a.id)).toBe(true);
    await journal.poll();
    expect(heard).toEqual([]);
    const b = t.reserve('n1', 'decided', { actionId: 'b' });
    b.commit();
    await journal.poll();
    expect(journal.heard(b.id)).toBe(false);
    expect(heard).toEqual([{ kind: 'decided', body: { actionId: 'b' } }]);
  });

  it('waits for an id that commits after a higher one, and skips a hole that outlives 10 s of reads', async () => {
    const t = table();
    const { journal, heard, clock } = journalOn(t);
    await journal.start();
    const slow = t.reserve('n1', 'close-user', { userId: 1 });
    t.reserve('n3', 'close-user', { userId: 2 }).commit();
    await journal.poll();
    expect(journal.state()).toEqual({ through: 0, heardAbove: 1 });
    clock.ms += 5_000;
    slow.commit();
    await journal.poll();
    expect(heard.map((h) => h.body)).toEqual([{ userId: 2 }, { userId: 1 }]);
    expect(journal.state()).toEqual({ through: 2, heardAbove: 0 });

    t.reserve('n1', 'close-user', { userId: 3 }); // never commits
    t.reserve('n1', 'close-user', { userId: 4 }).commit();
    await journal.poll();
    clock.ms += 9_999;
    await journal.poll();
    expect(journal.state().through).toBe(2);
    clock.ms += 1;
    await journal.poll();
    expect(journal.state()).toEqual({ through: 4, heardAbove: 0 });
  });

  it('never hands a node its own rows, and keeps what it wrote from coming back', async () => {
    const t = table();
    const { journal, heard } = journalOn(t);
    await journal.start();
    const id = await journal.write('close-user', JSON.stringify({ userId: 9 }));
    expect(id).toBe(1);
    t.reserve('n2', 'close-all', {}).commit(); // written by this node's id another way (a restart)
    await journal.poll();
    expect(heard).toEqual([]);
    expect(journal.state()).toEqual({ through: 2, heardAbove: 0 });
  });

  it('says once that the store cannot be read, and catches up when it can', async () => {
    const t = table();
    const { journal, heard, warnings } = journalOn(t);
    await journal.start();
    t.fail(true);
    t.reserve('n1', 'connector-changed', {}).commit();
    await journal.poll();
    await journal.poll();
    expect(warnings).toEqual(['could not read the bus journal: durable bus messages wait for the store']);
    t.fail(false);
    await journal.poll();
    expect(heard).toEqual([{ kind: 'connector-changed', body: {} }]);
  });
});
