// CHAT frames for the application: to its chat handlers, or, when they are Butler's
// `[DIRECTIVE] <command>` and a directive handler is set, to that handler, whose text goes back to
// Butler as the answer (wire.md §5 Authorization).
import type { ChatFrameIn, ServerFrame } from '../protocol/serverFrames.js';
import { errorText } from './clientErrors.js';
import type { Listeners } from './listeners.js';
import type { Receipt } from './outbox.js';

export const DIRECTIVE_PREFIX = '[DIRECTIVE]';

export interface Directive {
  /** The text after `[DIRECTIVE]`. */
  command: string;
  frame: ChatFrameIn;
}

type DirectiveHandler = (directive: Directive) => string | Promise<string>;

export function isDirective(frame: ServerFrame): frame is ChatFrameIn {
  return frame.type === 'CHAT' && frame.sender_role === 'BUTLER' && frame.payload.startsWith(DIRECTIVE_PREFIX);
}

export interface ChatDispatchDeps {
  listeners: Listeners;
  /** The user this client is, when its credential tells: its own echoes are not for its handlers. */
  self(): number | undefined;
  reply(to: ChatFrameIn, text: string): Promise<Receipt>;
}

export class ChatDispatch {
  private readonly chatHandlers = new Set<(frame: ChatFrameIn) => unknown>();
  private directiveHandler: DirectiveHandler | undefined;

  constructor(private readonly deps: ChatDispatchDeps) {}

  onChat(handler: (frame: ChatFrameIn) => unknown): () => void {
    this.chatHandlers.add(handler);
    return () => this.chatHandlers.delete(handler);
  }

  onDirective(handler: DirectiveHandler): () => void {
    this.directiveHandler = handler;
    return () => {
      if (this.directiveHandler === handler) this.directiveHandler = undefined;
    };
  }

  dispatch(frame: ChatFrameIn): void {
    const self = this.deps.self();
    if (self !== undefined && frame.sender_id === self) return;
    const directive = this.directiveHandler;
    if (directive && isDirective(frame)) {
      void this.answerDirective(directive, frame);
      return;
    }
    for (const handler of this.chatHandlers) this.deps.listeners.guard('a chat handler', () => handler(frame));
  }

  private async answerDirective(handler: DirectiveHandler, frame: ChatFrameIn): Promise<void> {
    const { listeners } = this.deps;
    const command = frame.payload.slice(DIRECTIVE_PREFIX.length).trim();
    let answer: string;
    try {
      answer = await handler({ command, frame });
    } catch (err) {
      // Butler always gets an answer, also when the work failed.
      answer = `directive failed: ${errorText(err)}`;
      listeners.warn(`the directive "${command.slice(0, 80)}" failed: ${errorText(err)}`);
    }
    await this.deps.reply(frame, answer).catch((err: unknown) => listeners.warn(`could not answer the directive: ${errorText(err)}`));
  }
}
