// Whether a token belongs to an agent: the hub's own answer, word for word.
import type { ConnectionCheck } from '@hub/client';
import { useState, type FormEvent } from 'react';
import { useHub } from '../../app/context';
import { Button, Card, ErrorNote } from '../../components/ui';

export function TestConnection({ onClose }: { onClose(): void }) {
  const { api } = useHub();
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ConnectionCheck>();
  const [error, setError] = useState<unknown>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await api.agents.testConnection(token.trim()));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title="Test a connection">
      <form className="agent-form" onSubmit={(e) => void submit(e)} aria-label="Test a connection">
        <p className="muted ag-hint">Paste an agent’s token to check that the hub accepts it.</p>
        <label>
          Agent token
          <input
            name="test_token"
            type="password"
            required
            autoFocus
            autoComplete="off"
            spellCheck={false}
            maxLength={256}
            value={token}
            onChange={(e) => (setToken(e.target.value), setResult(undefined))}
          />
        </label>
        <ErrorNote error={error} />
        {result ? (
          <p className={`ag-test ${result.ok ? 'ag-test-ok' : 'ag-test-bad'}`} role="status" data-testid="test-result">
            <span aria-hidden>{result.ok ? '✓' : '✗'}</span>
            <span>
              {result.ok ? 'OK: ' : 'Refused: '}
              {result.message}
            </span>
          </p>
        ) : null}
        <div className="ag-actions-row">
          <Button onClick={onClose}>Close</Button>
          <Button type="submit" variant="primary" busy={busy} disabled={token.trim() === ''}>
            Test connection
          </Button>
        </div>
      </form>
    </Card>
  );
}
