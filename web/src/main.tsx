import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { createPublicApi } from './lib/api';
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
