// Code loaded on demand (each page, the charts' uPlot) is fetched again when a fetch fails, so a
// network that drops for a moment does not leave a page broken until a reload. Vite's loader
// remembers every stylesheet it has tried and never adds one again, so the stylesheets whose load
// failed are fetched here before the next attempt, and an attempt whose styles still fail does not
// run the code (the page would render unstyled). A failed link cannot be told apart afterwards
// (Chromium gives it an empty sheet), so failures are marked as they happen (`watchStylesheetFailures`).
import { lazy, type ComponentType } from 'react';

export interface RetrySettings {
  /** The wait before each new attempt (ms); after the last the load fails for good. */
  delaysMs: readonly number[];
  sleep(ms: number): Promise<void>;
  /** Resolves once the browser believes it is online again. */
  online(): Promise<void>;
  /** Fetches again the stylesheets whose load failed: true once all of them are in force. */
  refetchStyles(): Promise<boolean>;
}

export async function retryImport<T>(load: () => Promise<T>, settings: RetrySettings): Promise<T> {
  let failure: unknown;
  for (let attempt = 0; attempt <= settings.delaysMs.length; attempt++) {
    if (attempt > 0) {
      await settings.sleep(settings.delaysMs[attempt - 1]!);
      await settings.online();
      if (!(await settings.refetchStyles())) continue;
    }
    try {
      return await load();
    } catch (err) {
      failure = err;
    }
  }
  throw failure;
}

/** About 15 s of attempts, then the page's error (with its "Reload the page"). */
const DELAYS_MS = [500, 1000, 2000, 4000, 8000];

/** The browser's side: timers, the online event, and the document's stylesheet links. */
const BROWSER: RetrySettings = {
  delaysMs: DELAYS_MS,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  online: () => (navigator.onLine ? Promise.resolve() : new Promise((resolve) => window.addEventListener('online', () => resolve(), { once: true }))),
  async refetchStyles() {
    // A link is replaced once (marked `data-refetched`); a replacement that fails is replaced in turn.
    const failed = new Map<string, HTMLLinkElement>();
    for (const link of document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"][data-failed]:not([data-refetched])')) failed.set(link.href, link);
    const loads = [...failed].map(
      ([href, old]) =>
        new Promise<boolean>((resolve) => {
          old.dataset['refetched'] = '';
          const link = document.createElement('link');
          link.rel = 'stylesheet';
          link.crossOrigin = old.crossOrigin;
          link.href = href;
          link.addEventListener('load', () => resolve(true));
          link.addEventListener('error', () => resolve(false));
          old.after(link);
        }),
    );
    return (await Promise.all(loads)).every(Boolean);
  },
};

/**
 * Marks each stylesheet link whose load fails (`data-failed`), for `refetchStyles`. Error events of
 * links do not bubble, but the window sees them while they are captured. Called once, at start.
 */
export function watchStylesheetFailures(target: Window): void {
  target.addEventListener(
    'error',
    (event) => {
      const element = event.target;
      if (element instanceof HTMLLinkElement && element.rel === 'stylesheet') element.dataset['failed'] = '';
    },
    true,
  );
}

/** React's `lazy`, with the fetch made again as `retryImport` says. */
export function lazyWithRetry<P extends object>(load: () => Promise<{ default: ComponentType<P> }>) {
  return lazy(() => retryImport(load, BROWSER));
}
