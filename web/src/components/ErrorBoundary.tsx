// A page that throws while rendering shows what failed and a way out, never a blank screen.
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { describeError } from '../lib/errors';

interface Props {
  children: ReactNode;
  /** A change (the route) clears the error. */
  resetKey?: unknown;
}

export class ErrorBoundary extends Component<Props, { error: unknown; key: unknown }> {
  override state = { error: undefined as unknown, key: undefined as unknown };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: { error: unknown; key: unknown }) {
    return props.resetKey !== state.key ? { error: undefined, key: props.resetKey } : null;
  }

  override componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('dashboard page failed', error, info.componentStack);
  }

  override render() {
    if (this.state.error === undefined) return this.props.children;
    return (
      <div className="error-page" role="alert">
        <h1>This page failed</h1>
        <p>{describeError(this.state.error)}</p>
        <button type="button" className="btn btn-primary" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </div>
    );
  }
}
