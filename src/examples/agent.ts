// What every example agent does the same way: announce itself with SYSTEM_LOG when it connects,
// report failures as SYSTEM_LOG ERROR, answer Butler's directives (`help` and `status` for all),
// hand chat to the agent with its failures caught, and say goodbye with SYSTEM_LOG on shutdown.
import type { HubClient } from '../client/index.js';
import type { ChatFrameIn } from '../protocol/serverFrames.js';

export interface AgentTools {
  client: HubClient;
  /** A progress line for the operator (stderr in the CLI). */
  progress(line: string): void;
  /** Reports a failure to the dashboards (SYSTEM_LOG ERROR) and the operator. */
  fail(what: string, err: unknown): void;
}

export interface ExampleAgent {
  kind: string;
  /** One line about what it does, for its announcement and `help`. */
  description: string;
  /** The directive commands it knows besides `help` and `status`, for `help`. */
  commands: string[];
  onChat(frame: ChatFrameIn, tools: AgentTools): Promise<void> | void;
  /** Answers a directive it knows; throwing answers Butler with the failure. */
  onDirective(command: string, tools: AgentTools): Promise<string> | string;
  status(): string;
  start?(tools: AgentTools): void;
  stop?(): void;
}

export interface RunningAgent {
  /** Says goodbye (SYSTEM_LOG) and closes the connection. */
  stop(): Promise<void>;
  /** Resolves when the client stops for good (closed, or a reason of the hub's). */
  stopped: Promise<void>;
}

/** How long the goodbye may take before the agent closes anyway (the hub may be gone). */
const GOODBYE_MS = 2000;

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The first word of a command and the rest (`audit ./src` → ['audit', './src']). */
export function splitCommand(text: string): [string, string] {
  const trimmed = text.trim();
  const space = trimmed.search(/\s/);
  return space < 0 ? [trimmed.toLowerCase(), ''] : [trimmed.slice(0, space).toLowerCase(), trimmed.slice(space + 1).trim()];
}

/** Reads `<verb> <argument>` chat: the argument, or undefined when the text is not that command. */
export const verbArgument =
  (verb: string) =>
  (text: string): string | undefined => {
    const [first, rest] = splitCommand(text);
    return first === verb ? rest : undefined;
  };

/**
 * A chat handler for one command: runs it and replies with its text; other chat gets `hint`; a
 * failure is reported (SYSTEM_LOG ERROR) and the asker told.
 */
export function chatCommand(command: {
  parse(text: string): string | undefined;
  hint: string;
  /** What failed, for the log and the reply ("the audit failed"). */
  failure: string;
  run(argument: string, tools: AgentTools): Promise<string>;
}): ExampleAgent['onChat'] {
  return async (frame, tools) => {
    const argument = command.parse(frame.payload);
    if (argument === undefined) {
      await tools.client.reply(frame, command.hint);
      return;
    }
    try {
      await tools.client.reply(frame, await command.run(argument, tools));
    } catch (err) {
      tools.fail(command.failure, err);
      await tools.client.reply(frame, `Sorry, ${command.failure}: ${errorMessage(err)}`);
    }
  };
}

export async function runAgent(client: HubClient, agent: ExampleAgent, progress: (line: string) => void = () => undefined): Promise<RunningAgent> {
  const tools: AgentTools = {
    client,
    progress,
    fail(what, err) {
      const line = `${what}: ${errorMessage(err)}`;
      progress(line);
      client.log('ERROR', line).catch((e: unknown) => progress(`could not report the error: ${errorMessage(e)}`));
    },
  };
  let announced = false;
  client.on('status', (status) => {
    progress(status.message);
    if (status.state !== 'open') return;
    // wire.md: an agent announces itself with a SYSTEM_LOG after connecting (each time).
    const line = announced ? `${agent.kind} agent reconnected` : `${agent.kind} agent online: ${agent.description}`;
    announced = true;
    client.log('SUCCESS', line).catch((err: unknown) => progress(`could not announce: ${errorMessage(err)}`));
  });
  client.on('warning', progress);
  client.onChat(async (frame) => {
    try {
      await agent.onChat(frame, tools);
    } catch (err) {
      tools.fail(`handling a chat from ${frame.sender_name} failed`, err);
    }
  });
  client.onDirective(({ command }) => {
    const [verb] = splitCommand(command);
    if (verb === 'help') return `${agent.kind} agent: ${agent.description}. Directives: ${['help', 'status', ...agent.commands].join(', ')}`;
    if (verb === 'status') return agent.status();
    return agent.onDirective(command, tools);
  });

  await client.connect();
  agent.start?.(tools);
  let stopping: Promise<void> | undefined;
  return {
    stopped: client.stopped(),
    stop: () =>
      (stopping ??= (async () => {
        agent.stop?.();
        if (client.state === 'open') {
          const goodbye = client
            .log('INFO', `${agent.kind} agent shutting down`)
            .catch((err: unknown) => progress(`could not say goodbye: ${errorMessage(err)}`));
          await Promise.race([goodbye, new Promise((resolve) => setTimeout(resolve, GOODBYE_MS).unref?.())]);
        }
        await client.close();
      })()),
  };
}
