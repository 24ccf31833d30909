// Why an action's button is off, in words an admin can act on. The hub's `allowed_actions` decides
// whether it is on; this only explains a "no" by the connector's state.
import type { ConnectorAction, ConnectorView } from '@hub/client';

export function whyNot(action: ConnectorAction, view: Pick<ConnectorView, 'id' | 'state' | 'allowed_actions'>): string | undefined {
  if (view.allowed_actions.includes(action)) return undefined;
  if (view.id === 0) return 'Create the connector first: fill in the settings and save.';
  switch (action) {
    case 'enable':
      if (view.state === 'enabled') return 'Already enabled.';
      if (view.state === 'draft') return 'Verify the credentials first: only a verified connector can be enabled.';
      break;
    case 'disable':
      if (view.state === 'disabled') return 'Already disabled.';
      return 'Only an enabled connector can be disabled.';
    default:
      break;
  }
  return `Not possible while the connector is ${view.state}.`;
}

/** The colour a lifecycle state reads as. */
export function stateTone(state: string): 'ok' | 'info' | 'warn' | 'muted' {
  if (state === 'enabled') return 'ok';
  if (state === 'verified') return 'info';
  if (state === 'disabled') return 'warn';
  return 'muted';
}
