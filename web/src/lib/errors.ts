// Every failure the dashboard shows, in one readable line: the hub's own `{"error"}` text where
// there is one, otherwise what went wrong in words a user can act on.
import { ClientStoppedError, describeAnswer, FrameRefusedError, HubRequestError, OutboxFullError } from '@hub/client';

export function describeError(err: unknown): string {
  if (err instanceof HubRequestError) {
    if (err.status === 403) return `Not allowed: ${err.message}`;
    if (err.status === 429) return `Too many requests: ${err.message}`;
    // A balancer's or proxy's own page: say who answered, not that its text was not JSON.
    if (!err.fromHub) return `${capitalized(describeAnswer(err.answer))}. Try again in a moment.`;
    if (err.status >= 500) return `The hub failed to answer (${err.status}): ${err.message}`;
    return err.message;
  }
  if (err instanceof FrameRefusedError) return `The hub refused the message: ${err.message}`;
  if (err instanceof ClientStoppedError) return `Not sent: ${err.message}`;
  if (err instanceof OutboxFullError) return 'Too many messages are waiting for the connection; try again when it is back.';
  // fetch rejects with a TypeError when the hub cannot be reached at all.
  if (err instanceof TypeError) return 'The hub could not be reached. Check your connection; the page retries as soon as it is back.';
  if (err instanceof Error) return err.message;
  return String(err);
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
