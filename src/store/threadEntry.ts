// Starting one of the store's worker threads: the compiled module, or (from TypeScript sources, in
// development and tests) a bootstrap that registers tsx in the thread first.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type Transferable } from 'node:worker_threads';

/** `name`: the thread module's file name without extension, beside this file. */
function threadEntry(name: string): { entry: URL | string; eval: boolean } {
  if (!fileURLToPath(import.meta.url).endsWith('.ts')) return { entry: new URL(`./${name}.js`, import.meta.url), eval: false };
  // Loader hooks given with --import do not reach worker threads on Node 20; register them in the thread.
  // The ESM build of tsx's API (require.resolve would give the CommonJS one, which cannot register from here).
  const tsxApi = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const thread = new URL(`./${name}.ts`, import.meta.url).href;
  return {
    entry: `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(thread)}); })`,
    eval: true,
  };
}

/** Starts the thread module `name` with `workerData` (and the ports in `transferList` moved to it). */
export function startThread(name: string, workerData: unknown, transferList: readonly Transferable[] = []): Worker {
  const { entry, eval: isEval } = threadEntry(name);
  // No flags of the parent's (such as --cpu-prof or --import) reach the thread.
  return new Worker(entry, { workerData, transferList: [...transferList], eval: isEval, execArgv: [] });
}
