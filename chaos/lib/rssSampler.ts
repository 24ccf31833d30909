// Samples a process's resident memory from /proc while a phase runs: the peak, and a guard that
// fires once when it passes a bound (so a leaking hub cannot take the shared machine down).
import { rssKb } from '../../bench/lib/procfs.js';

export interface RssSampler {
  stop(): { peakMb: number; lastMb: number; guardFired: boolean };
}

export function sampleRss(pid: number, everyMs: number, guardMb: number, onGuard: () => void): RssSampler {
  let peakKb = 0;
  let lastKb = 0;
  let guardFired = false;
  const read = () => {
    try {
      lastKb = rssKb(pid);
    } catch {
      return; // the process is gone; the check sees that elsewhere
    }
    peakKb = Math.max(peakKb, lastKb);
    if (!guardFired && lastKb / 1024 > guardMb) {
      guardFired = true;
      onGuard();
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      return { peakMb: peakKb / 1024, lastMb: lastKb / 1024, guardFired };
    },
  };
}
