// The small kit every page is built from, so pages look and behave alike (focus rings, disabled
// states, readable errors) and stay about their content.
import { useEffect, useState, type ButtonHTMLAttributes, type ReactNode } from 'react';
import { describeError } from '../lib/errors';

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'primary' | 'secondary' | 'danger' | 'ghost'; busy?: boolean };

export function Button({ variant = 'secondary', busy, disabled, children, className, ...rest }: ButtonProps) {
  return (
    <button
      type="button"
      {...rest}
      className={`btn btn-${variant}${className ? ` ${className}` : ''}`}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
    >
      {busy ? <span className="spinner" aria-hidden /> : null}
      {children}
    </button>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1>{title}</h1>
      {children ? <div className="page-actions">{children}</div> : null}
    </header>
  );
}

export function Card({ title, actions, children, className }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={`card${className ? ` ${className}` : ''}`}>
      {title || actions ? (
        <div className="card-head">
          {title ? <h2>{title}</h2> : <span />}
          {actions}
        </div>
      ) : null}
      {children}
    </section>
  );
}

/** A failed request as a readable line, with a retry when there is one. */
export function ErrorNote({ error, retry }: { error: unknown; retry?: () => void }) {
  if (error === undefined || error === null) return null;
  return (
    <div className="error-note" role="alert">
      <span>{describeError(error)}</span>
      {retry ? (
        <Button variant="ghost" onClick={retry}>
          Try again
        </Button>
      ) : null}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden /> Loading {what}…
    </p>
  );
}

export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'muted' | 'accent';

export function Badge({ tone = 'muted', children, title }: { tone?: Tone; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {children}
    </span>
  );
}

/** The colour a log level or status reads as. */
export function toneOf(level: string | null | undefined): Tone {
  switch ((level ?? '').toUpperCase()) {
    case 'ERROR':
    case 'CRITICAL':
    case 'HIGH':
    case 'REJECTED':
    case 'OFFLINE':
      return 'bad';
    case 'WARNING':
    case 'WARN':
    case 'MEDIUM':
    case 'PENDING':
    case 'EXPIRED':
      return 'warn';
    case 'SUCCESS':
    case 'ONLINE':
    case 'APPROVED':
      return 'ok';
    case 'INFO':
    case 'LOW':
      return 'info';
    default:
      return 'muted';
  }
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.round((then - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return relative.format(seconds, 'second');
  if (abs < 2700) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 64800) return relative.format(Math.round(seconds / 3600), 'hour');
  return relative.format(Math.round(seconds / 86400), 'day');
}

/** A timestamp as relative time that stays current, with the exact time on hover. */
export function Time({ iso }: { iso: string | null | undefined }) {
  const [, tick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => tick((n) => n + 1), 30_000);
    return () => clearInterval(timer);
  }, []);
  if (!iso) return <span className="muted">never</span>;
  return (
    <time dateTime={iso} title={new Date(iso).toLocaleString()}>
      {ago(iso)}
    </time>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
    setTimeout(() => setCopied(undefined), 2000);
  }
  return (
    <Button onClick={() => void copy()} aria-live="polite">
      {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Select and copy it by hand' : label}
    </Button>
  );
}
