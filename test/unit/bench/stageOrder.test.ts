// A scenario that fails (a generator's status call timing out, say) must have its error printed with
// its stack before anything is stopped, its processes stopped next, and what they use (the scratch
// database) dropped only then: the scale runs dropped their database under live nodes from the
// scenario's own clean-up, and the error that started it was never printed.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Live } from '../../../bench/lib/context.js';
import { runStage } from '../../../bench/lib/lifecycle.js';
import { RpcClient } from '../../../bench/lib/rpc.js';
import { stopChild } from '../../../bench/lib/spawn.js';

/** A real child process standing in for a hub node, tracked as the bench tracks its servers. */
function startNode(live: Live, events: string[]) {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  live.servers.add({
    async stop() {
      await stopChild(child, 5_000);
      events.push('node stopped');
    },
  });
  return { alive: () => child.exitCode === null && child.signalCode === null };
}

describe('runStage', () => {
  it('prints the error with its stack, then stops the nodes, then runs the clean-ups (last registered first)', async () => {
    const live = new Live();
    const events: string[] = [];
    const node = startNode(live, events);
    live.afterStop(async () => void events.push(node.alive() ? 'store dropped under a live node' : 'store dropped'));
    live.afterStop(async () => void events.push(node.alive() ? 'redis stopped under a live node' : 'redis stopped'));

    const failure = new Error('scale0.status timed out after 30000 ms');
    const outcome = await runStage(
      'scale',
      async () => {
        throw failure;
      },
      { live, log: (line) => events.push(line) },
    );

    expect(outcome.error).toBe(failure);
    expect(outcome.cleanUpError).toBeUndefined();
    expect(events).toHaveLength(4);
    expect(events[0]).toMatch(/^!!! scale: Error: scale0\.status timed out after 30000 ms\n\s+at /);
    expect(events.slice(1)).toEqual(['node stopped', 'redis stopped', 'store dropped']);
    expect(node.alive()).toBe(false);
  });

  it('runs every clean-up when one fails, and reports the failure apart from the scenario’s result', async () => {
    const live = new Live();
    const events: string[] = [];
    startNode(live, events);
    live.afterStop(async () => void events.push('store dropped'));
    live.afterStop(async () => {
      throw new Error('redis-server did not exit');
    });

    const outcome = await runStage('scale', async () => 'report', { live, log: (line) => events.push(line) });

    expect(outcome.value).toBe('report');
    expect(outcome.error).toBeUndefined();
    expect(String(outcome.cleanUpError)).toContain('redis-server did not exit');
    expect(events).toHaveLength(3);
    expect(events.slice(0, 2)).toEqual(['node stopped', 'store dropped']);
    expect(events[2]).toMatch(/^!!! scale: stopping what it started: AggregateError: clean-up failed: redis-server did not exit/);
  });
});

describe('Live.stopAll called again while it runs', () => {
  it('returns only once the first call has stopped everything and run its clean-ups', async () => {
    const live = new Live();
    const events: string[] = [];
    const node = startNode(live, events);
    let finishDrop!: () => void;
    const dropping = new Promise<void>((resolve) => (finishDrop = resolve));
    live.afterStop(async () => {
      events.push('dropping the store');
      await dropping;
      events.push('store dropped');
    });

    const first = live.stopAll();
    const second = live.stopAll().then(() => events.push('second call returned'));
    await until(() => events.includes('dropping the store'));
    expect(node.alive()).toBe(false);
    finishDrop();
    await Promise.all([first, second]);
    expect(events).toEqual(['node stopped', 'dropping the store', 'store dropped', 'second call returned']);
  });
});

describe('RpcClient', () => {
  it('fails a call to a child that has exited instead of raising an error nobody handles', async () => {
    const child = spawn(process.execPath, ['-e', 'process.on("message", () => {})'], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    const rpc = new RpcClient(child, 'scale1');
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;

    await expect(rpc.call('status', {}, 5_000)).rejects.toThrow(/^scale1\.status could not be sent: /);
  });
});

/** Resolves once `done()` holds, checked on each turn of the event loop. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}
