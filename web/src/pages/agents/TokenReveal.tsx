// A token the hub just made (registration or rotation), shown this once: the hub keeps only a hint,
// so the page says so plainly and offers a copy button and the command that runs an agent with it.
import { useEffect, useRef } from 'react';
import { Button, CopyButton } from '../../components/ui';

export interface RevealedToken {
  agentId: number;
  username: string;
  token: string;
  hint: string;
  reason: 'registered' | 'rotated';
}

export function TokenReveal({ revealed, onDone }: { revealed: RevealedToken; onDone(): void }) {
  const ref = useRef<HTMLElement>(null);
  // Moved into view and focus, so neither a sighted nor a screen-reader user misses it.
  useEffect(() => {
    ref.current?.focus();
    ref.current?.scrollIntoView({ block: 'nearest' });
  }, [revealed]);
  // From the hub's own folder: tsx runs the CLI from source, so no build is needed first.
  const command = `HUB_URL=${window.location.origin} HUB_TOKEN=${revealed.token} npx tsx src/cli/main.ts echo`;
  return (
    <section ref={ref} tabIndex={-1} className="card ag-token-reveal" aria-labelledby="token-reveal-title" data-testid="token-reveal">
      <h2 id="token-reveal-title">{revealed.reason === 'registered' ? `${revealed.username} is registered` : `New token for ${revealed.username}`}</h2>
      <p className="ag-token-warning">
        <strong>Copy this token now: you will not see it again.</strong> The hub stores only its hint ({revealed.hint}). If it is lost, rotate the token.
        {revealed.reason === 'rotated' ? ' The old token no longer works and the agent’s open connections were closed: restart it with this one.' : ''}
      </p>
      <div className="ag-token-box">
        <code className="ag-token-value" data-testid="token-value">
          {revealed.token}
        </code>
        <CopyButton text={revealed.token} label="Copy token" />
      </div>
      <details className="ag-token-usage">
        <summary>Run the example echo agent with it</summary>
        <p className="muted">
          In the hub&apos;s folder (after <code>npm run build</code>, <code>npx hub-agent echo</code> does the same):
        </p>
        <div className="ag-token-box">
          <code className="ag-token-value">{command}</code>
          <CopyButton text={command} label="Copy command" />
        </div>
      </details>
      <div className="ag-actions-row">
        <Button onClick={onDone}>I have saved it</Button>
      </div>
    </section>
  );
}
