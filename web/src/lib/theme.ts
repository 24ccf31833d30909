// Light, dark or the system's choice; kept per browser. The choice is a data attribute on <html>
// that the stylesheet's colour variables key on.
import { createStore } from './store';

export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'hub.theme';

function apply(choice: ThemeChoice) {
  if (choice === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}

export function createTheme(storage: Storage = localStorage) {
  const saved = storage.getItem(KEY);
  const choice = createStore<ThemeChoice>(saved === 'light' || saved === 'dark' ? saved : 'system');
  apply(choice.get());
  return {
    choice,
    set(next: ThemeChoice) {
      if (next === 'system') storage.removeItem(KEY);
      else storage.setItem(KEY, next);
      apply(next);
      choice.set(next);
    },
  };
}
export type Theme = ReturnType<typeof createTheme>;
