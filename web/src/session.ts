import { useSyncExternalStore } from 'react';

// The signed-in state. The API key is sent once to /api/v1/auth/login and never kept; the access token lives in
// memory and in sessionStorage (this tab only, gone when it closes) so that a reload keeps the session. The
// token is refreshed a minute before it expires (GET /api/v1/auth/refresh-token).
const STORAGE_KEY = 'hawk.token';
const REFRESH_MARGIN_MS = 60_000;

interface SessionState {
  token: string | null;
  /** Why the user is looking at the sign-in page (expired session, signed out). */
  notice: string | null;
}

let state: SessionState = { token: readStoredToken(), notice: null };
const listeners = new Set<() => void>();
let refreshTimer: ReturnType<typeof setTimeout> | undefined;

function readStoredToken(): string | null {
  const token = sessionStorage.getItem(STORAGE_KEY);
  return token && expiryOf(token) > Date.now() ? token : null;
}

function set(next: SessionState): void {
  state = next;
  if (next.token) sessionStorage.setItem(STORAGE_KEY, next.token);
  else sessionStorage.removeItem(STORAGE_KEY);
  scheduleRefresh();
  for (const listener of listeners) listener();
}

/** The token's `exp` in epoch milliseconds (0 when unreadable). The signature is the service's business. */
export function expiryOf(token: string): number {
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    return typeof payload.exp === 'number' ? payload.exp * 1000 : 0;
  } catch {
    return 0;
  }
}

function scheduleRefresh(): void {
  clearTimeout(refreshTimer);
  if (!state.token) return;
  const delay = Math.max(expiryOf(state.token) - Date.now() - REFRESH_MARGIN_MS, 1_000);
  refreshTimer = setTimeout(() => void refresh(), delay);
}

async function refresh(): Promise<void> {
  const token = state.token;
  if (!token) return;
  try {
    const response = await fetch('/api/v1/auth/refresh-token', {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
    });
    if (response.status === 401)
      return expireSession('Your session has ended (the API key was revoked or the session expired). Sign in again.');
    if (!response.ok) {
      // 429 or a transient failure: try again shortly, while the current token is still valid.
      refreshTimer = setTimeout(
        () => void refresh(),
        Math.min(30_000, Math.max(expiryOf(token) - Date.now() - 5_000, 1_000)),
      );
      return;
    }
    const body = (await response.json()) as { token: string };
    if (state.token === token) set({ token: body.token, notice: null });
  } catch {
    refreshTimer = setTimeout(() => void refresh(), 30_000);
  }
}

export const currentToken = () => state.token;

export function startSession(token: string): void {
  set({ token, notice: null });
}

export function expireSession(notice: string): void {
  if (state.token) set({ token: null, notice });
}

/**
 * Forgets the token at once, then tells the service (POST /api/v1/auth/sign-out), which ends a single sign-on
 * session there: its tokens are refused and it cannot be refreshed. A failure to tell it changes nothing here.
 */
export function signOut(): void {
  const token = state.token;
  set({ token: null, notice: 'You signed out.' });
  if (token)
    void fetch('/api/v1/auth/sign-out', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
      keepalive: true,
    }).catch(() => undefined);
}

export function useSession(): SessionState {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
  );
}

scheduleRefresh();
