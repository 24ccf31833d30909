// What a test reads off a client: every frame it received, in order, and `expect` / `expectNothing`
// on them. Errors list the frames seen, and the actor trace when the hub records one.
import type { FrameOf, HubClient, ServerFrame, ServerFrameType } from '../client/index.js';
import { toMs, type Duration } from './duration.js';
import { describeMatcher, matches, truncate, type Matcher } from './match.js';

export type FrameMatcher = Matcher<ServerFrame>;

export interface FrameProbe {
  /** Every frame this client received, in order. */
  readonly frames: readonly ServerFrame[];
  /**
   * The first frame matching `matcher` after the one the previous `expect` returned (frames already
   * received count); waits up to `within` (default 5 s) for it, and throws listing the frames seen.
   * A matcher naming the `type` resolves with a frame of that type.
   */
  expect<K extends ServerFrameType>(matcher: { type: K } & Record<string, unknown>, options?: { within?: Duration }): Promise<FrameOf<K>>;
  expect(matcher: FrameMatcher, options?: { within?: Duration }): Promise<ServerFrame>;
  /** Throws if a frame matching `matcher` arrives (or arrived after the last `expect`) within `for` (default 300 ms). */
  expectNothing(matcher: FrameMatcher, options?: { for?: Duration }): Promise<void>;
}

const SHOWN_FRAMES = 40;

export function attachProbe(client: HubClient, options: { name: string; explain: () => string }): FrameProbe {
  const frames: ServerFrame[] = [];
  /** Index of the first frame `expect` has not looked past. */
  let cursor = 0;
  const listeners = new Set<() => void>();
  client.on('frame', (frame) => {
    frames.push(frame);
    for (const listener of [...listeners]) listener();
  });

  const seen = (from: number) => {
    const shown = frames.slice(Math.max(from, frames.length - SHOWN_FRAMES));
    const skipped = frames.length - from - shown.length;
    const lines = shown.map((f, i) => `  #${frames.length - shown.length + i} ${f.type} ${truncate(JSON.stringify(f), 240)}`);
    return [
      `frames ${options.name} received after the last expect (${frames.length - from}${skipped > 0 ? `, the last ${shown.length} shown` : ''}):`,
      ...(lines.length > 0 ? lines : ['  (none)']),
    ].join('\n');
  };
  const failure = (text: string, from: number) => {
    const explained = options.explain();
    return new Error([text, seen(from), ...(explained ? [explained] : [])].join('\n'));
  };

  const probe = {
    frames,
    expect(matcher: FrameMatcher, { within = 5000 }: { within?: Duration } = {}): Promise<ServerFrame> {
      const ms = toMs(within, 'within');
      const from = cursor;
      return new Promise((resolve, reject) => {
        let scanned = from;
        const check = () => {
          for (; scanned < frames.length; scanned++) {
            if (!matches(frames[scanned], matcher)) continue;
            done();
            cursor = scanned + 1;
            resolve(frames[scanned]!);
            return;
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(failure(`${options.name} received no frame matching ${describeMatcher(matcher)} within ${ms} ms`, from));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    expectNothing(matcher: FrameMatcher, options_: { for?: Duration } = {}): Promise<void> {
      const ms = toMs(options_.for ?? 300, 'for');
      const from = cursor;
      return new Promise((resolve, reject) => {
        const check = () => {
          const index = frames.findIndex((f, i) => i >= from && matches(f, matcher));
          if (index < 0) return;
          done();
          reject(failure(`${options.name} received frame #${index} matching ${describeMatcher(matcher)}, expected none within ${ms} ms`, from));
        };
        const timer = setTimeout(() => {
          done();
          resolve();
        }, ms);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
  };
  return probe as FrameProbe;
}
