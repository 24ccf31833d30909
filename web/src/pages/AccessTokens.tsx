// Access tokens: a person's long-lived tokens for MCP clients (JWTs expire; a client's configuration
// should not). Mint one with a name (the token is shown once, with the line that adds the hub to a
// client), see the rest by name and hint, revoke behind a confirmation: it stops working at once.
import type { AccessTokenView } from '@hub/client';
import { useState, type FormEvent } from 'react';
import { useHub } from '../app/context';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Button, Card, CopyButton, Empty, ErrorNote, Loading, PageHeader, Time } from '../components/ui';
import { useRequest } from '../hooks/useRequest';
import './Agents.css';

interface Minted {
  name: string;
  token: string;
  hint: string;
}

export default function AccessTokens() {
  const { api, toasts } = useHub();
  const list = useRequest(() => api.accessTokens.list(), [api]);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [minted, setMinted] = useState<Minted | null>(null);
  const [pending, setPending] = useState<AccessTokenView | null>(null);
  const [revoking, setRevoking] = useState(false);
  const [revokeError, setRevokeError] = useState<unknown>();

  async function mint(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const made = await api.accessTokens.mint(name.trim());
      setMinted({ name: made.name, token: made.token, hint: made.token_hint });
      setName('');
      void list.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  async function revoke() {
    if (!pending) return;
    setRevoking(true);
    setRevokeError(undefined);
    try {
      await api.accessTokens.revoke(pending.id);
      toasts.success(`“${pending.name}” was revoked.`);
      setPending(null);
      void list.reload();
    } catch (err) {
      setRevokeError(err);
    } finally {
      setRevoking(false);
    }
  }

  const url = `${window.location.origin}/mcp`;
  return (
    <div className="agents-page">
      <PageHeader title="Access tokens" />
      <p className="muted">
        A personal access token lets an MCP client (a coding agent, a desktop chat app) act as you on this hub, with exactly your access. It does not expire:
        revoke it here when the client no longer needs it.
      </p>
      {minted ? (
        <section className="card ag-token-reveal" aria-labelledby="pat-reveal-title" data-testid="pat-reveal">
          <h2 id="pat-reveal-title">Token “{minted.name}”</h2>
          <p className="ag-token-warning">
            <strong>Copy this token now: you will not see it again.</strong> The hub stores only a digest and its hint ({minted.hint}).
          </p>
          <div className="ag-token-box">
            <code className="ag-token-value" data-testid="pat-value">
              {minted.token}
            </code>
            <CopyButton text={minted.token} label="Copy token" />
          </div>
          <p className="muted">Add the hub to a coding agent:</p>
          <div className="ag-token-box">
            <code className="ag-token-value">{`claude mcp add --transport http hub ${url} --header "Authorization: Bearer ${minted.token}"`}</code>
            <CopyButton text={`claude mcp add --transport http hub ${url} --header "Authorization: Bearer ${minted.token}"`} label="Copy command" />
          </div>
          <div className="ag-actions-row">
            <Button onClick={() => setMinted(null)}>I have saved it</Button>
          </div>
        </section>
      ) : null}
      <Card title="New token">
        <form className="agent-form" onSubmit={(e) => void mint(e)} aria-label="New access token">
          <label>
            Name
            <input
              name="name"
              required
              maxLength={100}
              autoComplete="off"
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="e.g. laptop: coding agent"
            />
          </label>
          <ErrorNote error={error} />
          <div className="ag-actions-row">
            <Button type="submit" variant="primary" busy={busy}>
              Create token
            </Button>
          </div>
        </form>
      </Card>
      <ErrorNote error={list.error} retry={() => void list.reload()} />
      {!list.data && !list.error ? <Loading what="access tokens" /> : null}
      {list.data && list.data.length === 0 ? <Empty>You have no access tokens.</Empty> : null}
      {list.data && list.data.length > 0 ? (
        <Card title="Your tokens">
          <table aria-label="Access tokens">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Token</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.map((t) => (
                <tr key={t.id} data-testid="pat-row">
                  <td>{t.name}</td>
                  <td>
                    <code>{t.token_hint}</code>
                  </td>
                  <td>
                    <Time iso={t.created_at} />
                  </td>
                  <td>
                    <Button
                      className="btn-small"
                      onClick={() => {
                        setRevokeError(undefined);
                        setPending(t);
                      }}
                    >
                      Revoke
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Card>
      ) : null}
      <ConfirmDialog
        open={pending !== null}
        title={`Revoke “${pending?.name ?? ''}”?`}
        confirmLabel="Revoke token"
        danger
        busy={revoking}
        onConfirm={() => void revoke()}
        onCancel={() => setPending(null)}
      >
        <p>The token stops working at once, and calls a client is making with it end. This cannot be undone.</p>
        <ErrorNote error={revokeError} />
      </ConfirmDialog>
    </div>
  );
}
