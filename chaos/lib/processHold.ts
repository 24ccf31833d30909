// Holding a process's event loop from outside: SIGSTOP, then SIGCONT, as a GC pause, a starved CPU or a
// paused VM would. A stop that finds the main thread waiting in epoll holds a loop with nothing under
// way; one that finds it running holds the loop inside a run, which is where a GC pause or a
// preemption lands and where work of the run goes on after the hold before any socket is read again.
import { readFileSync } from 'node:fs';
import { sleep } from './poll.js';

/** The main thread waits for events: epoll_wait, epoll_pwait, epoll_pwait2 (x86-64: 232, 281, 441; arm64: 22, 441). */
const WAITING_SYSCALLS = new Set(['232', '281', '441', '22']);

/** The main thread's state letter (R, S, T...), from /proc. */
const state = (pid: number) =>
  readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .charAt(0);

/** Stops `pid` and resolves once it is stopped. */
async function stop(pid: number): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  while (state(pid) !== 'T') await sleep(1);
}

/** Whether the stopped main thread of `pid` was running a callback (not waiting for events). */
function insideRun(pid: number): boolean {
  const syscall = readFileSync(`/proc/${pid}/syscall`, 'utf8').trim().split(' ')[0]!;
  return !WAITING_SYSCALLS.has(syscall);
}

/**
 * Stops `pid` again and again (letting it run `gapMs` between tries) until the stop finds it inside
 * a run, then holds it `ms`. Answers the tries it took, or undefined when none of `tries` found it
 * running (it was left running).
 */
export async function holdInsideRun(pid: number, ms: number, tries: number, gapMs: number): Promise<number | undefined> {
  for (let attempt = 1; attempt <= tries; attempt++) {
    await stop(pid);
    if (insideRun(pid)) {
      await sleep(ms);
      process.kill(pid, 'SIGCONT');
      return attempt;
    }
    process.kill(pid, 'SIGCONT');
    await sleep(gapMs);
  }
  return undefined;
}
