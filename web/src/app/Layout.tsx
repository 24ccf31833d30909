// The frame around every page: the nav (a sidebar on a laptop, a menu on a phone), the connection
// indicator, the theme switch and the user.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { ConnectionIndicator } from '../components/ConnectionIndicator';
import { useStore } from '../lib/store';
import { PENDING_LIMIT } from '../state/approvals';
import type { ThemeChoice } from '../lib/theme';
import { useHub } from './context';
import { PAGES } from './pages';

const THEMES: Array<{ value: ThemeChoice; label: string }> = [
  { value: 'system', label: 'System theme' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

function isActive(href: string, location: string): boolean {
  return href === '/' ? location === '/' : location === href || location.startsWith(`${href}/`);
}

export function Layout({ children }: { children: ReactNode }) {
  const { session, approvals } = useHub();
  const waiting = useStore(approvals.state).pending.size;
  const user = useStore(session.current)!.user;
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  // Escape closes the phone menu and puts focus back on its button.
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setMenuOpen(false);
      menuButton.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [menuOpen]);
  const pages = PAGES.filter((p) => !p.admin || user.role === 'ADMIN');

  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          ref={menuButton}
          type="button"
          className="btn btn-ghost menu-button"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen((o) => !o)}
        >
          <span aria-hidden>☰</span>
          <span className="sr-only">Menu</span>
        </button>
        <Link href="/" className="brand">
          <img src="/favicon.svg" alt="" width={22} height={22} />
          Agent Hub
        </Link>
        <ConnectionIndicator />
        <div className="topbar-end">
          <SessionControls idPrefix="theme" />
        </div>
      </header>
      <nav id="nav" className={`sidebar${menuOpen ? ' open' : ''}`} aria-label="Pages">
        <ul>
          {pages.map((p) => (
            <li key={p.href}>
              <Link
                href={p.href}
                className={isActive(p.href, location) ? 'active' : ''}
                aria-current={isActive(p.href, location) ? 'page' : undefined}
                onClick={() => setMenuOpen(false)}
              >
                {p.label}
                {p.href === '/approvals' && waiting > 0 ? <PendingCount count={waiting} /> : null}
              </Link>
            </li>
          ))}
        </ul>
        {/* At phone width the header has no room: the same controls sit at the foot of the menu. */}
        <div className="menu-controls">
          <SessionControls idPrefix="theme-menu" />
        </div>
      </nav>
      {menuOpen ? (
        <button
          type="button"
          className="menu-backdrop"
          data-testid="menu-backdrop"
          aria-label="Close the menu"
          tabIndex={-1}
          onClick={() => {
            setMenuOpen(false);
            menuButton.current?.focus();
          }}
        />
      ) : null}
      <main id="main" className="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/** Requests waiting for the user's answer, beside the Approvals link. */
function PendingCount({ count }: { count: number }) {
  return (
    <span className="badge badge-warn" style={{ marginLeft: 8 }} data-testid="approvals-pending">
      {count >= PENDING_LIMIT ? `${PENDING_LIMIT}+` : count}
      <span className="sr-only"> waiting for your answer</span>
    </span>
  );
}

/** The theme switch, who is signed in, and signing out. */
function SessionControls({ idPrefix }: { idPrefix: string }) {
  const { session, theme } = useHub();
  const user = useStore(session.current)!.user;
  const choice = useStore(theme.choice);
  return (
    <>
      <label className="sr-only" htmlFor={idPrefix}>
        Theme
      </label>
      <select id={idPrefix} className="theme-select" value={choice} onChange={(e) => theme.set(e.target.value as ThemeChoice)}>
        {THEMES.map((t) => (
          <option key={t.value} value={t.value}>
            {t.label}
          </option>
        ))}
      </select>
      <span className={idPrefix === 'theme' ? 'who' : 'menu-who'} title={user.role}>
        {user.username}
        <span className="who-role">{user.role === 'ADMIN' ? 'admin' : 'member'}</span>
      </span>
      <button type="button" className="btn btn-ghost" onClick={() => session.signOut()}>
        Sign out
      </button>
    </>
  );
}
