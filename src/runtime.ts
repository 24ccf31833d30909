// Which Node.js the hub runs on, checked before anything native loads: an unsupported line stops the hub
// with one sentence naming what is missing, instead of a stack trace from deep inside a native module.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The oldest Node the hub supports: 22.12 (require(esm) unflagged; better-sqlite3 13 needs 22). */
export const MIN_NODE = { major: 22, minor: 12 } as const;
/** Node lines the hub is tested on; 24 is the one CI runs the whole suite on. */
export const TESTED_LINES = [22, 24] as const;

export interface Runtime {
  /** e.g. '24.22.3' (process.versions.node). */
  version: string;
  /** The native-module ABI, e.g. '137' (process.versions.modules). */
  abi: string;
  platform: string;
  arch: string;
}

export function currentRuntime(): Runtime {
  return { version: process.versions.node, abi: process.versions.modules, platform: process.platform, arch: process.arch };
}

/** The WebSocket server's binary for this runtime, as uWebSockets.js names it. */
export function uwsBinaryName(runtime: Runtime): string {
  return `uws_${runtime.platform}_${runtime.arch}_${runtime.abi}.node`;
}

/**
 * Why the hub cannot run on `runtime`, or undefined when it can. `hasUwsBinary` says whether the installed
 * uWebSockets.js ships a binary for the runtime's ABI (passed in so the rule is testable without the files).
 */
export function runtimeProblem(runtime: Runtime, hasUwsBinary: (name: string) => boolean): string | undefined {
  const [major = 0, minor = 0] = runtime.version.split('.').map(Number);
  if (major < MIN_NODE.major || (major === MIN_NODE.major && minor < MIN_NODE.minor)) {
    return `Node.js ${runtime.version} is too old: the hub needs Node.js ${MIN_NODE.major}.${MIN_NODE.minor} or newer (Node.js 24 LTS recommended).`;
  }
  const binary = uwsBinaryName(runtime);
  if (!hasUwsBinary(binary)) {
    return (
      `Node.js ${runtime.version} (ABI ${runtime.abi}) is not supported yet: the installed uWebSockets.js has no ${binary}. ` +
      `Run the hub on Node.js 24 LTS or 22.`
    );
  }
  return undefined;
}

/** Looks for the binary beside the installed uWebSockets.js package (true when the package cannot be found, so its own error shows). */
export function installedUwsBinary(name: string): boolean {
  let dir: string;
  try {
    dir = path.dirname(createRequire(import.meta.url).resolve('uWebSockets.js'));
  } catch {
    return true;
  }
  return fs.existsSync(path.join(dir, name));
}
