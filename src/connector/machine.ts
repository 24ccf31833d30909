// Lifecycle of a chat-platform connector (hub-spec §3) as a pure machine: draft → verified →
// enabled ⇄ disabled. The store row is the truth: a service restores the row's state, asks the
// pure `transition()` what follows, persists it with a version check, then runs the named effects
// the transition returned (start or stop the live connection). No I/O happens in here.
import { assertEvent, setup, transition, type SnapshotFrom } from 'xstate';
import { ConnectorActions, ConnectorStates, type ConnectorAction, type ConnectorState, type MachineDescription } from '../protocol/connector.js';

// The names are wire values (the client and the dashboard read them), so protocol defines them.
export { ConnectorActions, ConnectorStates, type ConnectorAction, type ConnectorState, type MachineDescription };

export type ConnectorEvent =
  /** Fields changed; `credentials` when app_id, app_secret, verification_token or encrypt_key did. */
  | { type: 'UPDATE'; credentials: boolean }
  /** The platform's auth API accepted the credentials. */
  | { type: 'VERIFIED' }
  | { type: 'ENABLE' }
  | { type: 'DISABLE' }
  | { type: 'TEST_MESSAGE' };

/** Effects a transition can ask for; the service runs them after the row is written. */
export type ConnectorEffect = 'applyChanges' | 'startConnection' | 'stopConnection' | 'markVerified' | 'sendTestMessage' | 'logTestMessage';

const noop = () => undefined;

export const connectorMachine = setup({
  types: {
    events: {} as ConnectorEvent,
  },
  guards: {
    changesCredentials: ({ event }) => {
      assertEvent(event, 'UPDATE');
      return event.credentials;
    },
  },
  // Declared here, carried out by the service: a transition lists them, it never runs them.
  actions: {
    applyChanges: noop,
    startConnection: noop,
    stopConnection: noop,
    markVerified: noop,
    /** Only an enabled connector really sends; in any other state the request is logged only. */
    sendTestMessage: noop,
    logTestMessage: noop,
  },
}).createMachine({
  id: 'connector',
  initial: 'draft',
  states: {
    draft: {
      on: {
        UPDATE: { actions: 'applyChanges' },
        VERIFIED: { target: 'verified', actions: 'markVerified' },
        TEST_MESSAGE: { actions: 'logTestMessage' },
      },
    },
    verified: {
      on: {
        UPDATE: [{ guard: 'changesCredentials', target: 'draft', actions: 'applyChanges' }, { actions: 'applyChanges' }],
        VERIFIED: { actions: 'markVerified' },
        ENABLE: { target: 'enabled' },
        TEST_MESSAGE: { actions: 'logTestMessage' },
      },
    },
    enabled: {
      // The live connection runs exactly while the connector is enabled.
      entry: 'startConnection',
      exit: 'stopConnection',
      on: {
        UPDATE: [{ guard: 'changesCredentials', target: 'draft', actions: 'applyChanges' }, { actions: 'applyChanges' }],
        VERIFIED: { actions: 'markVerified' },
        DISABLE: { target: 'disabled' },
        TEST_MESSAGE: { actions: 'sendTestMessage' },
      },
    },
    disabled: {
      on: {
        UPDATE: [{ guard: 'changesCredentials', target: 'draft', actions: 'applyChanges' }, { actions: 'applyChanges' }],
        VERIFIED: { actions: 'markVerified' },
        // Still verified: credentials changes would have sent it back to draft.
        ENABLE: { target: 'enabled' },
        TEST_MESSAGE: { actions: 'logTestMessage' },
      },
    },
  },
});

export type ConnectorSnapshot = SnapshotFrom<typeof connectorMachine>;

/** The snapshot of a connector whose row says `state`. */
export function snapshotOf(state: ConnectorState): ConnectorSnapshot {
  return connectorMachine.resolveState({ value: state, context: undefined });
}

/** The event each client action sends (update is probed as a change of credentials). */
const probe: Record<ConnectorAction, ConnectorEvent> = {
  verify: { type: 'VERIFIED' },
  update: { type: 'UPDATE', credentials: true },
  enable: { type: 'ENABLE' },
  disable: { type: 'DISABLE' },
  test_message: { type: 'TEST_MESSAGE' },
};

export function allowedActions(state: ConnectorState): ConnectorAction[] {
  const snapshot = snapshotOf(state);
  return ConnectorActions.filter((action) => snapshot.can(probe[action]));
}

export type ConnectorStep = { ok: true; state: ConnectorState; effects: ConnectorEffect[] } | { ok: false; state: ConnectorState };

/** What `event` does to a connector in `state`: the next state and its effects, or a refusal. */
export function step(state: ConnectorState, event: ConnectorEvent): ConnectorStep {
  const snapshot = snapshotOf(state);
  if (!snapshot.can(event)) return { ok: false, state };
  const [next, actions] = transition(connectorMachine, snapshot, event);
  return { ok: true, state: next.value as ConnectorState, effects: actions.map((a) => a.type as ConnectorEffect) };
}

/** The machine as data, for a dashboard to draw: read off the definition, so it cannot drift. */
export function describeMachine(): MachineDescription {
  const transitions: MachineDescription['transitions'] = [{ from: null, event: 'CREATE', to: 'draft', effects: [] }];
  for (const from of ConnectorStates) {
    const node = connectorMachine.states[from]!;
    for (const [event, candidates] of node.transitions) {
      for (const t of candidates) {
        const to = (t.target?.[0]?.key as ConnectorState | undefined) ?? from;
        const guard = typeof t.guard === 'string' ? t.guard : undefined;
        const effects = [
          ...(to !== from ? node.exit.map(actionName) : []),
          ...t.actions.map(actionName),
          ...(to !== from ? connectorMachine.states[to]!.entry.map(actionName) : []),
        ];
        transitions.push({ from, event, to, ...(guard ? { guard } : {}), effects });
      }
    }
  }
  return { id: connectorMachine.id, initial: 'draft', states: [...ConnectorStates], transitions, actions: ConnectorActions };
}

function actionName(action: unknown): string {
  if (typeof action === 'string') return action;
  return (action as { type?: string }).type ?? 'anonymous';
}
