// Why a socket did not open. Where the client could read the upgrade's answer (Node's `ws`), that
// answer says who refused it: the hub, or a balancer in front of it. A browser cannot read it, so the
// hub is also asked over HTTP: a refused credential stops the client; anything else is worth another
// try, described by whoever answered.
import { describeAnswer, type HttpAnswer } from './answers.js';
import type { ProbeResult } from './connectionMachine.js';
import { HubRequestError, type RestClient } from './rest.js';
import { networkCause } from './unreachable.js';

export async function probeHub(rest: RestClient, base: string, upgrade?: HttpAnswer): Promise<ProbeResult> {
  if (upgrade?.status === 401 && upgrade.hubError !== undefined) return { verdict: 'refused', message: `the hub refused the token (${upgrade.hubError})` };
  try {
    await rest.agents.butler();
    // The hub answers over HTTP (through a balancer, perhaps another node): the upgrade's own answer is the news.
    if (upgrade) return { verdict: 'retry', message: describeAnswer(upgrade) };
    return { verdict: 'retry', message: `the hub at ${base} accepts the credential but the WebSocket did not open` };
  } catch (err) {
    if (err instanceof HubRequestError) {
      if (err.status === 401 && err.fromHub) return { verdict: 'refused', message: `the hub refused the token (${err.message})` };
      return { verdict: 'retry', message: describeAnswer(upgrade ?? err.answer) };
    }
    if (upgrade) return { verdict: 'retry', message: describeAnswer(upgrade) };
    return { verdict: 'unreachable', message: `the hub at ${base} is unreachable (${networkCause(err)})` };
  }
}
