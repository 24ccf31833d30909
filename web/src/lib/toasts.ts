// Short-lived notices (an action's failure or success) shown in one corner; failures stay until
// dismissed, so a message is never missed.
import { describeError } from './errors';
import { createStore } from './store';

export interface Toast {
  id: number;
  kind: 'error' | 'success' | 'info';
  text: string;
}

export function createToasts() {
  const list = createStore<Toast[]>([]);
  let next = 1;
  function push(kind: Toast['kind'], text: string) {
    const id = next++;
    list.set((prev) => [...prev.slice(-4), { id, kind, text }]);
    if (kind !== 'error') setTimeout(() => dismiss(id), 4000);
  }
  function dismiss(id: number) {
    list.set((prev) => prev.filter((t) => t.id !== id));
  }
  return {
    list,
    dismiss,
    error: (err: unknown, context?: string) => push('error', context ? `${context}: ${describeError(err)}` : describeError(err)),
    success: (text: string) => push('success', text),
    info: (text: string) => push('info', text),
  };
}
export type Toasts = ReturnType<typeof createToasts>;
