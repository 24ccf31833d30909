// The lifecycle actions: verify the credentials with the platform, enable or disable, and send a
// test message. A button is on only when the hub lists its action in `allowed_actions`, and says
// why not otherwise. Every answer is shown where the button is; afterwards the page re-reads the
// connector, so the status and the diagram follow.
import type { ConnectorAction, ConnectorOutcome, ConnectorView } from '@hub/client';
import { useState, type FormEvent, type ReactNode } from 'react';
import { useHub } from '../../app/context';
import { Badge, Button, Card, CopyButton, ErrorNote, Time } from '../../components/ui';
import { whyNot } from './hints';

/** An action's answer, with when it came (it stays shown while the connector moves on). */
type Result = ({ kind: 'outcome'; outcome: ConnectorOutcome } | { kind: 'error'; error: unknown }) & { at: string };
const now = () => new Date().toISOString();

interface Props {
  view: ConnectorView;
  /** Unsaved edits in the form: the actions work on what is saved. */
  unsaved: boolean;
  /** Re-reads the connector and its log; `enabled` asks to follow the connection coming up. */
  onDone(after: { enabled?: boolean; traceId?: string }): Promise<void>;
}

export function ActionsPanel({ view, unsaved, onDone }: Props) {
  const { api } = useHub();
  const [busy, setBusy] = useState<'verify' | 'enable' | 'disable' | 'test_message'>();
  const [verifyResult, setVerifyResult] = useState<Result>();
  const [switchError, setSwitchError] = useState<unknown>();
  const [testResult, setTestResult] = useState<Result>();
  const [chatId, setChatId] = useState('');
  const [text, setText] = useState('');
  const allowed = (a: ConnectorAction) => view.allowed_actions.includes(a);
  const off = (a: ConnectorAction) => !allowed(a) || busy !== undefined;

  async function run<T>(
    action: NonNullable<typeof busy>,
    call: () => Promise<T>,
    done: (value: T) => void,
    failed: (err: unknown) => void,
    after: { enabled?: boolean; traceId?: (value: T) => string | undefined } = {},
  ) {
    setBusy(action);
    let value: T | undefined;
    try {
      value = await call();
      done(value);
    } catch (err) {
      failed(err);
    } finally {
      setBusy(undefined);
    }
    await onDone({ enabled: after.enabled && value !== undefined, traceId: value !== undefined ? after.traceId?.(value) : undefined });
  }

  const verify = () =>
    run(
      'verify',
      () => api.connector.verify(view.id),
      (outcome) => setVerifyResult({ kind: 'outcome', outcome, at: now() }),
      (error) => setVerifyResult({ kind: 'error', error, at: now() }),
    );

  const setEnabled = (enabled: boolean) => {
    setSwitchError(undefined);
    return run(
      enabled ? 'enable' : 'disable',
      () => api.connector.enable(view.id, enabled),
      () => undefined,
      setSwitchError,
      { enabled },
    );
  };

  function sendTest(e: FormEvent) {
    e.preventDefault();
    const body = { ...(chatId.trim() ? { target_chat_id: chatId.trim() } : {}), ...(text.trim() ? { text: text.trim() } : {}) };
    void run(
      'test_message',
      () => api.connector.testMessage(view.id, body),
      (outcome) => setTestResult({ kind: 'outcome', outcome, at: now() }),
      (error) => setTestResult({ kind: 'error', error, at: now() }),
      { traceId: (o) => o.trace_id },
    );
  }

  const defaultChat = view.allowed_chat_ids[0];
  return (
    <Card title="Actions" className="cx-actions">
      {unsaved ? <p className="cx-warning">The form has unsaved changes: these actions use the saved settings.</p> : null}

      <section className="cx-action" aria-labelledby="cx-verify-title">
        <h3 id="cx-verify-title">Verify credentials</h3>
        <p className="muted">
          Asks the platform whether the app ID and secret are accepted. Last verified: <Time iso={view.last_verified_at} />.
        </p>
        <ActionButton action="verify" view={view} busy={busy === 'verify'} disabled={off('verify')} onClick={() => void verify()}>
          Verify
        </ActionButton>
        <VerifyAnswer result={verifyResult} />
      </section>

      <section className="cx-action" aria-labelledby="cx-switch-title">
        <h3 id="cx-switch-title">Enable or disable</h3>
        <p className="muted">Enabled, the connector passes platform messages to Butler and sends its answers back.</p>
        <div className="cx-buttons">
          <ActionButton action="enable" view={view} variant="primary" busy={busy === 'enable'} disabled={off('enable')} onClick={() => void setEnabled(true)}>
            Enable
          </ActionButton>
          <ActionButton action="disable" view={view} busy={busy === 'disable'} disabled={off('disable')} onClick={() => void setEnabled(false)}>
            Disable
          </ActionButton>
        </div>
        <ErrorNote error={switchError} />
      </section>

      <section className="cx-action" aria-labelledby="cx-test-title">
        <h3 id="cx-test-title">Send a test message</h3>
        {view.id !== 0 && view.state !== 'enabled' ? <p className="muted">The connector is not enabled: a test message is only logged, not sent.</p> : null}
        <form className="cx-test-form" onSubmit={sendTest} aria-labelledby="cx-test-title">
          <label htmlFor="cx-test-chat">
            Target chat ID
            <input
              id="cx-test-chat"
              value={chatId}
              spellCheck={false}
              autoComplete="off"
              placeholder={defaultChat ? `default: ${defaultChat}` : 'oc_…'}
              aria-describedby="cx-test-chat-help"
              onChange={(e) => setChatId(e.target.value)}
            />
          </label>
          <small id="cx-test-chat-help" className="cx-help">
            {defaultChat ? 'Empty sends to the first allowed chat.' : 'Required to send: no allowed chat is set to fall back on.'}
          </small>
          <label htmlFor="cx-test-text">
            Text
            <textarea
              id="cx-test-text"
              rows={2}
              value={text}
              placeholder="default: a test message with its trace ID"
              onChange={(e) => setText(e.target.value)}
            />
          </label>
          <ActionButton action="test_message" view={view} type="submit" busy={busy === 'test_message'} disabled={off('test_message')}>
            Send test message
          </ActionButton>
        </form>
        <TestAnswer result={testResult} />
      </section>
    </Card>
  );
}

interface ActionButtonProps {
  action: ConnectorAction;
  view: ConnectorView;
  busy: boolean;
  disabled: boolean;
  variant?: 'primary' | 'secondary';
  type?: 'button' | 'submit';
  onClick?(): void;
  children: ReactNode;
}

/** A button with the reason it is off underneath (and tied to it for screen readers). */
function ActionButton({ action, view, busy, disabled, variant, type = 'button', onClick, children }: ActionButtonProps) {
  const reason = whyNot(action, view);
  const hintId = `cx-why-${action}`;
  return (
    <span className="cx-action-button">
      <Button
        type={type}
        variant={variant}
        busy={busy}
        disabled={disabled}
        onClick={onClick}
        aria-describedby={reason ? hintId : undefined}
        data-action={action}
      >
        {children}
      </Button>
      {reason ? (
        <small id={hintId} className="cx-why">
          {reason}
        </small>
      ) : null}
    </span>
  );
}

function VerifyAnswer({ result }: { result: Result | undefined }) {
  if (!result) return null;
  if (result.kind === 'error') return <ErrorNote error={result.error} />;
  const { outcome } = result;
  return (
    <div className={`cx-answer ${outcome.ok ? 'cx-answer-ok' : 'cx-answer-bad'}`} role="status" data-testid="verify-answer" data-ok={outcome.ok}>
      <Badge tone={outcome.ok ? 'ok' : 'bad'}>{outcome.ok ? 'accepted' : 'failed'}</Badge>
      <span>
        {capitalise(outcome.message)}
        {outcome.detail ? `: ${outcome.detail}` : ''}.
      </span>
      <span className="muted cx-answer-time">
        <Time iso={result.at} />
      </span>
    </div>
  );
}

function TestAnswer({ result }: { result: Result | undefined }) {
  if (!result) return null;
  if (result.kind === 'error') return <ErrorNote error={result.error} />;
  const { outcome } = result;
  return (
    <div className={`cx-answer ${outcome.ok ? 'cx-answer-ok' : 'cx-answer-bad'}`} role="status" data-testid="test-answer" data-ok={outcome.ok}>
      <Badge tone={outcome.ok ? 'ok' : 'bad'}>{outcome.ok ? 'ok' : 'failed'}</Badge>
      <span>{capitalise(outcome.message)}.</span>
      <span className="muted cx-answer-time">
        <Time iso={result.at} />
      </span>
      {outcome.trace_id ? (
        <span className="cx-trace">
          Trace <code data-testid="test-trace">{outcome.trace_id}</code> <CopyButton text={outcome.trace_id} label="Copy trace ID" />
        </span>
      ) : null}
      {outcome.platform_message_id ? <span className="muted">Platform message {outcome.platform_message_id}</span> : null}
    </div>
  );
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
