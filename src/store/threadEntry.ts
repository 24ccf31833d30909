// Starting and stopping the store's worker threads. Each starts from a small bootstrap that imports the
// thread's module (the compiled file, or from TypeScript sources in development and tests through tsx)
// and then says it has loaded. Stopping waits for that: a thread terminated while better-sqlite3's
// native module registers itself kills the whole process (`FATAL ERROR: Error::New
// napi_get_last_error_info`), which a hub stopped right after it started used to do.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, Worker, type Transferable } from 'node:worker_threads';

export interface StoreThread {
  readonly worker: Worker;
  /** Resolves when the thread's module has loaded (its connection is open), or with `ended` when the thread ended first. */
  readonly loaded: Promise<'loaded' | 'ended'>;
  /** Terminates the thread once its module has loaded (or at once if it already ended); resolves when it has exited. */
  stop(): Promise<void>;
}

/** Past this, a thread still loading is terminated anyway: a stop must end. Loading takes well under a second. */
const LOAD_LIMIT_MS = 30_000;

/** The key of `workerData` that carries the port the bootstrap says "loaded" on. */
const LOADED_PORT = '__loaded';

/** `name`: the thread module's file name without extension, beside this file. */
function bootstrap(name: string): string {
  const say = `require('node:worker_threads').workerData.${LOADED_PORT}`;
  const loaded = `() => { const port = ${say}; port.postMessage(null); port.close(); }`;
  if (!fileURLToPath(import.meta.url).endsWith('.ts')) {
    return `import(${JSON.stringify(new URL(`./${name}.js`, import.meta.url).href)}).then(${loaded});`;
  }
  // Loader hooks given with --import do not reach worker threads on Node 20; register them in the thread.
  // The ESM build of tsx's API (require.resolve would give the CommonJS one, which cannot register from here).
  const tsxApi = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const thread = new URL(`./${name}.ts`, import.meta.url).href;
  return `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(thread)}); }).then(${loaded});`;
}

/** Starts the thread module `name` with `workerData` (an object; the ports in `transferList` move to it). */
export function startThread(name: string, workerData: object, transferList: readonly Transferable[] = []): StoreThread {
  const { port1, port2 } = new MessageChannel();
  // No flags of the parent's (such as --cpu-prof or --import) reach the thread.
  const worker = new Worker(bootstrap(name), {
    workerData: { ...workerData, [LOADED_PORT]: port2 },
    transferList: [...transferList, port2],
    eval: true,
    execArgv: [],
  });
  const loaded = new Promise<'loaded' | 'ended'>((resolve) => {
    port1.once('message', () => resolve('loaded'));
    worker.once('exit', () => resolve('ended'));
  }).finally(() => port1.close());
  // Waiting to hear it must not keep the process alive.
  port1.unref();

  let stopping: Promise<void> | undefined;
  return {
    worker,
    loaded,
    stop() {
      stopping ??= (async () => {
        // A thread still loading keeps the process alive until it is stopped: an unref'd one would let it exit mid-stop.
        worker.ref();
        let limit: NodeJS.Timeout | undefined;
        await Promise.race([loaded, new Promise<unknown>((resolve) => (limit = setTimeout(resolve, LOAD_LIMIT_MS).unref()))]);
        clearTimeout(limit);
        await worker.terminate();
      })();
      return stopping;
    },
  };
}
