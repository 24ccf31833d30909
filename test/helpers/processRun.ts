// A child process as a person runs it: its output by line, waits on a line or the exit (never on a
// timer). Shared by the tests of the hub-agent command and of the packed client.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

export interface ProcessRun {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  /** Resolves with the first line (seen or to come) on the stream that matches. */
  line(stream: 'stdout' | 'stderr', pattern: RegExp, timeoutMs?: number): Promise<string>;
  exit(timeoutMs?: number): Promise<number | null>;
}

/** `input`: written to the process's stdin, which is then closed (no input: stdin is /dev/null). */
export function startProcess(command: string, args: string[], options: SpawnOptions & { input?: string } = {}): ProcessRun {
  const { input, ...spawnOptions } = options;
  const child = spawn(command, args, { ...spawnOptions, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (input !== undefined) child.stdin!.end(input);
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  const waiters: Array<() => void> = [];
  let exitCode: number | null | undefined;
  for (const name of ['stdout', 'stderr'] as const) {
    let partial = '';
    child[name]!.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop()!;
      lines[name].push(...parts);
      for (const wake of waiters.splice(0)) wake();
    });
  }
  // 'close', not 'exit': the output is all read by then.
  child.on('close', (code) => {
    exitCode = code;
    for (const wake of waiters.splice(0)) wake();
  });
  const wait = <T>(check: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${what}; stdout: ${JSON.stringify(lines.stdout)}; stderr: ${JSON.stringify(lines.stderr)}`)),
        timeoutMs,
      );
      const attempt = () => {
        const value = check();
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
        } else waiters.push(attempt);
      };
      attempt();
    });
  const run: ProcessRun = {
    child,
    ...lines,
    line: (stream, pattern, timeoutMs = 15_000) => wait(() => lines[stream].find((l) => pattern.test(l)), `${stream} line ${pattern}`, timeoutMs),
    exit: (timeoutMs = 15_000) => wait(() => (exitCode === undefined ? undefined : { code: exitCode }), 'the exit', timeoutMs).then((e) => e.code),
  };
  return run;
}
