// Why a socket did not open, asked over HTTP (a browser cannot read an upgrade refusal's status): a
// refused credential stops the client; anything else is worth another try.
import type { ProbeResult } from './connectionMachine.js';
import { HubRequestError, type RestClient } from './rest.js';
import { networkCause } from './unreachable.js';

export async function probeHub(rest: RestClient, base: string): Promise<ProbeResult> {
  try {
    await rest.agents.butler();
    return { verdict: 'retry', message: `the hub at ${base} accepts the credential but the WebSocket did not open` };
  } catch (err) {
    if (err instanceof HubRequestError) {
      if (err.status === 401) return { verdict: 'refused', message: `the hub refused the token (${err.message})` };
      return { verdict: 'retry', message: `the hub answered ${err.status} (${err.message})` };
    }
    return { verdict: 'unreachable', message: `the hub at ${base} is unreachable (${networkCause(err)})` };
  }
}
