// How to start one of the store's worker threads: the compiled module, or (from TypeScript sources,
// in development and tests) a bootstrap that registers tsx in the thread first.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** `name`: the thread module's file name without extension, beside this file. */
export function threadEntry(name: string): { entry: URL | string; eval: boolean } {
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
