import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { createPublicApi } from './lib/api';
import { watchStylesheetFailures } from './lib/retryImport';
import { createSessionStore } from './lib/session';
import { createTheme } from './lib/theme';
import { createToasts } from './lib/toasts';
import './styles.css';

// Before any page's code is fetched: a stylesheet that fails to load is fetched again on the next attempt.
watchStylesheetFailures(window);

const shell = { session: createSessionStore(), theme: createTheme(), toasts: createToasts(), publicApi: createPublicApi() };

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App shell={shell} />
  </StrictMode>,
);
