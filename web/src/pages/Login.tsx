// Sign in, or create an account when the hub allows self-registration (it says so at
// /api/auth/options). A session that ended by itself says why above the form.
import { useEffect, useState, type FormEvent } from 'react';
import { useShell } from '../app/context';
import { Button, ErrorNote } from '../components/ui';
import { useStore } from '../lib/store';

type Mode = 'signin' | 'register';

export function Login() {
  const { publicApi, session } = useShell();
  const notice = useStore(session.notice);
  const [mode, setMode] = useState<Mode>('signin');
  const [canRegister, setCanRegister] = useState(false);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    publicApi.authOptions().then(
      (options) => setCanRegister(options.self_registration),
      () => setCanRegister(false),
    );
  }, [publicApi]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = mode === 'signin' ? await publicApi.login(username.trim(), password) : await publicApi.register(username.trim(), password);
      session.signIn(answer);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  return (
    <main className="login" id="main">
      <form className="card login-card" onSubmit={(e) => void submit(e)} aria-labelledby="login-title">
        <div className="login-brand">
          <img src="/favicon.svg" alt="" width={36} height={36} />
          <h1 id="login-title">{mode === 'signin' ? 'Sign in to Agent Hub' : 'Create an account'}</h1>
        </div>
        {notice ? (
          <p className="notice" role="status">
            {notice}
          </p>
        ) : null}
        <label>
          Username
          <input name="username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} autoFocus />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autoComplete={mode === 'signin' ? 'current-password' : 'new-password'}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <ErrorNote error={error} />
        <Button type="submit" variant="primary" busy={busy}>
          {mode === 'signin' ? 'Sign in' : 'Create account'}
        </Button>
        {canRegister ? (
          <p className="login-switch">
            {mode === 'signin' ? 'New here?' : 'Have an account?'}{' '}
            <button type="button" className="link" onClick={() => (setMode(mode === 'signin' ? 'register' : 'signin'), setError(undefined))}>
              {mode === 'signin' ? 'Create an account' : 'Sign in'}
            </button>
          </p>
        ) : null}
      </form>
    </main>
  );
}
