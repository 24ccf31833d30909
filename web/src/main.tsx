import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, createPublicApi } from './app/App';
import { createSessionStore } from './lib/session';
import { createTheme } from './lib/theme';
import { createToasts } from './lib/toasts';
import './styles.css';

const shell = { session: createSessionStore(), theme: createTheme(), toasts: createToasts(), publicApi: createPublicApi() };

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App shell={shell} />
  </StrictMode>,
);
