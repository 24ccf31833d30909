// How long the disk takes to make a small write durable, sampled while a run is measured. The hub's
// store commits every group of messages with an fsync (SQLite synchronous=FULL), so when other
// processes load the disk its latency follows this, whatever the CPU figures say.
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sleep } from './net.js';

const BLOCK = Buffer.alloc(4096, 1);

/** Writes 4 KB and fdatasyncs it every `everyMs` in `dir` (the filesystem the hub's SQLite file is on). */
export function fsyncSampler(dir: string, everyMs = 100): { stop(): Promise<number[]> } {
  const samples: number[] = [];
  let running = true;
  const path = join(dir, `hub-bench-fsync-${process.pid}`);
  const done = (async () => {
    const file = await open(path, 'w');
    try {
      while (running) {
        const t0 = performance.now();
        await file.write(BLOCK, 0, BLOCK.length, 0);
        await file.datasync();
        samples.push(performance.now() - t0);
        await sleep(everyMs);
      }
    } finally {
      await file.close();
      await rm(path, { force: true });
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      return samples;
    },
  };
}
