// The dashboard's pages: path, nav label, who may open them, and the code, loaded when first opened
// (so the first load carries only the shell and the page in view).
import type { ComponentType, LazyExoticComponent } from 'react';
import { lazyWithRetry } from '../lib/retryImport';

export interface PageDef {
  /** wouter pattern. */
  path: string;
  /** Where the nav link points. */
  href: string;
  label: string;
  admin: boolean;
  component: LazyExoticComponent<ComponentType>;
}

export const PAGES: readonly PageDef[] = [
  { path: '/', href: '/', label: 'Overview', admin: false, component: lazyWithRetry(() => import('../pages/Overview')) },
  { path: '/feed', href: '/feed', label: 'Live feed', admin: false, component: lazyWithRetry(() => import('../pages/Feed')) },
  { path: '/chat/:peer?/:thread?', href: '/chat', label: 'Chat', admin: false, component: lazyWithRetry(() => import('../pages/Chat')) },
  { path: '/approvals', href: '/approvals', label: 'Approvals', admin: false, component: lazyWithRetry(() => import('../pages/Approvals')) },
  { path: '/tokens', href: '/tokens', label: 'Access tokens', admin: false, component: lazyWithRetry(() => import('../pages/AccessTokens')) },
  { path: '/monitor/:agent?', href: '/monitor', label: 'Monitor', admin: true, component: lazyWithRetry(() => import('../pages/Monitor')) },
  { path: '/agents', href: '/agents', label: 'Agents', admin: true, component: lazyWithRetry(() => import('../pages/Agents')) },
  { path: '/connector', href: '/connector', label: 'Connector', admin: true, component: lazyWithRetry(() => import('../pages/Connector')) },
  { path: '/actors/:actor?', href: '/actors', label: 'Actors', admin: true, component: lazyWithRetry(() => import('../pages/Actors')) },
];
