// The echo agent: sends every CHAT back to its sender. Humans get it streamed (word by word, then the
// whole text, then the end marker), as a language-model agent would answer; machines get one CHAT.
import { isMachineRole } from '../protocol/roles.js';
import { splitCommand, type ExampleAgent } from './agent.js';

/** The chunks of a streamed echo: words with the space after them, so they add up to the text. */
export function chunksOf(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

export function createEchoAgent(): ExampleAgent {
  let echoed = 0;
  return {
    kind: 'echo',
    description: 'sends every chat message back to its sender',
    commands: ['echo <text>'],
    async onChat(frame, { client }) {
      echoed++;
      if (isMachineRole(frame.sender_role)) {
        await client.reply(frame, frame.payload);
        return;
      }
      const stream = client.stream(frame);
      for (const chunk of chunksOf(frame.payload)) await stream.write(chunk);
      await stream.end(frame.payload);
    },
    onDirective(command) {
      const [verb, rest] = splitCommand(command);
      if (verb === 'echo') return rest;
      throw new Error(`unknown directive "${verb}"; try help`);
    },
    status: () => `echo agent: ${echoed} message${echoed === 1 ? '' : 's'} echoed`,
  };
}
