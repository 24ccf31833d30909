// Registers an agent: a name, what it is, and optionally a token of the operator's own (the hub
// generates one otherwise), or a remote A2A agent by its card URL (with the credential the hub sends
// it; no token then). The hub's validation (400, a refused card's reason) and conflicts (409) show
// under the form.
import type { AgentCreated } from '@hub/client';
import { useId, useState, type FormEvent } from 'react';
import { useHub } from '../../app/context';
import { Button, Card, ErrorNote } from '../../components/ui';

/** The example agents `hub-agent` runs; any other kind may be typed. */
const KNOWN_KINDS = ['echo', 'weather', 'code-review', 'security-audit'];

const blank = { username: '', description: '', agent_kind: '', runtime_kind: '', api_token: '', card_url: '', credential: '' };

export function RegisterAgentForm({ onRegistered, onClose }: { onRegistered(agent: AgentCreated): void; onClose(): void }) {
  const { api } = useHub();
  const [fields, setFields] = useState(blank);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const kinds = useId();
  const set = (name: keyof typeof blank) => (e: { target: { value: string } }) => setFields((f) => ({ ...f, [name]: e.target.value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    // Empty optional fields are left out, so the hub stores null rather than "".
    const optional = (v: string) => (v.trim() === '' ? undefined : v.trim());
    try {
      const cardUrl = optional(fields.card_url);
      const agent = await api.agents.register({
        username: fields.username.trim(),
        description: optional(fields.description),
        agent_kind: optional(fields.agent_kind),
        ...(cardUrl
          ? { runtime_kind: 'a2a', card_url: cardUrl, credential: fields.credential === '' ? undefined : fields.credential }
          : { runtime_kind: optional(fields.runtime_kind), api_token: fields.api_token === '' ? undefined : fields.api_token }),
      });
      setFields(blank);
      onRegistered(agent);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card title="Register an agent">
      <form className="agent-form" onSubmit={(e) => void submit(e)} aria-label="Register an agent">
        <label>
          Username
          <input
            name="username"
            required
            autoFocus
            maxLength={64}
            autoComplete="off"
            spellCheck={false}
            value={fields.username}
            onChange={set('username')}
            placeholder="e.g. build-runner"
          />
        </label>
        <label>
          <span>
            Description <span className="ag-optional">optional</span>
          </span>
          <textarea
            name="description"
            rows={2}
            maxLength={1024}
            value={fields.description}
            onChange={set('description')}
            placeholder="What it does, where it runs"
          />
        </label>
        <div className="field-row">
          <label>
            <span>
              Kind <span className="ag-optional">optional</span>
            </span>
            <input
              name="agent_kind"
              list={kinds}
              maxLength={64}
              autoComplete="off"
              value={fields.agent_kind}
              onChange={set('agent_kind')}
              placeholder="echo, weather, …"
            />
            <datalist id={kinds}>
              {KNOWN_KINDS.map((k) => (
                <option key={k} value={k} />
              ))}
            </datalist>
          </label>
          <label>
            <span>
              Runtime <span className="ag-optional">optional</span>
            </span>
            <input
              name="runtime_kind"
              maxLength={64}
              autoComplete="off"
              value={fields.runtime_kind}
              onChange={set('runtime_kind')}
              placeholder="node, python, …"
            />
          </label>
        </div>
        <details className="ag-own-token">
          <summary>A remote A2A agent, by its card URL</summary>
          <label>
            <span>
              Card URL <span className="ag-optional">the hub calls the agent there; it is online while its card answers</span>
            </span>
            <input
              name="card_url"
              type="url"
              autoComplete="off"
              spellCheck={false}
              maxLength={2048}
              value={fields.card_url}
              onChange={set('card_url')}
              placeholder="https://agent.example.com/.well-known/agent-card.json"
            />
          </label>
          <SecretField
            label="Credential"
            hint="optional: the bearer token the hub sends it, kept encrypted and never shown again"
            name="credential"
            maxLength={4096}
            value={fields.credential}
            onChange={set('credential')}
          />
        </details>
        <details className="ag-own-token">
          <summary>Use a token of your own</summary>
          <SecretField
            label="Token"
            hint="16–256 printable characters, no spaces; leave empty to have one generated"
            name="api_token"
            maxLength={256}
            value={fields.api_token}
            onChange={set('api_token')}
          />
        </details>
        <ErrorNote error={error} />
        <div className="ag-actions-row">
          <Button onClick={onClose}>Close</Button>
          <Button type="submit" variant="primary" busy={busy}>
            Register agent
          </Button>
        </div>
      </form>
    </Card>
  );
}

/** A secret typed once: hidden, never autofilled from saved passwords, not spell-checked. */
function SecretField(props: { label: string; hint: string; name: string; maxLength: number; value: string; onChange(e: { target: { value: string } }): void }) {
  return (
    <label>
      <span>
        {props.label} <span className="ag-optional">{props.hint}</span>
      </span>
      <input
        name={props.name}
        type="password"
        autoComplete="new-password"
        spellCheck={false}
        maxLength={props.maxLength}
        value={props.value}
        onChange={props.onChange}
      />
    </label>
  );
}
