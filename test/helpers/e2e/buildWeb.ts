// Vitest global setup: the end-to-end tests drive the built dashboard, so it is (re)built here when
// missing or older than its sources.
// @ts-expect-error: a plain ES module script without type declarations.
import { ensureWeb } from '../../../scripts/ensure-web.mjs';

export default async function setup(): Promise<void> {
  await (ensureWeb as () => Promise<boolean>)();
}
