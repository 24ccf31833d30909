// The hub's REST helper, signed with the session's token. A 401 on a signed request means the
// session is no longer valid (expired, user deleted): the page signs out and says so. Reads that meet
// a 502/503/504 or no answer are tried again for a few seconds first (readRetry.ts).
import { createRestClient, type RestClient } from '@hub/client';
import { withReadRetry } from './readRetry';
import type { SessionStore } from './session';

/** The platform's fetch, looked up per call (tests and extensions may replace it). */
const retryingFetch = withReadRetry((input, init) => fetch(input, init));

export function createApi(session: SessionStore, base = window.location.origin): RestClient {
  const signedFetch: typeof fetch = async (input, init) => {
    const res = await retryingFetch(input, init);
    const signed = new Headers(init?.headers).has('Authorization');
    if (res.status === 401 && signed) session.signOut('Your session is no longer valid. Please sign in again.');
    return res;
  };
  return createRestClient({ url: base, token: () => session.token(), fetch: signedFetch });
}

/** Unsigned calls (login, registration, the hub's options). */
export function createPublicApi(base = window.location.origin): RestClient {
  return createRestClient({ url: base, fetch: retryingFetch });
}
