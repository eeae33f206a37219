import { unauthorized } from '../errors.ts';
import { issueAccessToken } from '../auth/tokens.ts';
import { transactWrite } from '../db/transactions.ts';
import { listMembershipsOfUser } from './membership-repository.ts';
import { pruneRevocations, revocationOn } from './revocations.ts';
import type { Caller } from '../context/caller.ts';
import { deleteSsoSessionItem, getSsoProvider, getSsoSession } from './sso-repository.ts';
import { SESSION_PREFIX, isSsoSessionId, type SsoSessionRecord } from './model.ts';

// Sessions started by single sign-on (docs/IDENTITY.md "Single sign-on"), as login, refresh and key management see
// them: a token's `akid` is `sso.<sessionId>` instead of an API key's id. Kept apart from sign-in so that those
// functions do not bundle the OpenID Connect client.

/** A token of the session: it reaches only the provider's organization, and never outlives the session. */
export const ssoSessionToken = (
  userId: string,
  sessionKeyId: string,
  session: Pick<SsoSessionRecord, 'organizationId' | 'expiresAt'>,
  now: number,
) =>
  issueAccessToken(userId, sessionKeyId, now, {
    scope: { organizationId: session.organizationId },
    notAfter: session.expiresAt * 1000,
  });

/** The live session of a token, or undefined: deleted (signed out), expired, or its provider removed or disabled. */
export async function liveSsoSession(userId: string, sessionKeyId: string) {
  const session = await getSsoSession(userId, sessionKeyId.slice(SESSION_PREFIX.length));
  if (!session || session.expiresAt * 1000 <= Date.now()) return undefined;
  const provider = await getSsoProvider(session.organizationId);
  return provider?.enabled ? session : undefined;
}

/** Refresh of a single sign-on session: a new token, never past the session's end. */
export async function refreshSsoSession(userId: string, sessionKeyId: string): Promise<{ token: string }> {
  const session = await liveSsoSession(userId, sessionKeyId);
  if (!session) throw unauthorized('Unauthorized: this single sign-on session ended; sign in again');
  return { token: await ssoSessionToken(userId, sessionKeyId, session, Date.now()) };
}

/**
 * POST /api/v1/auth/sign-out (signOut): a single sign-on session is deleted (refresh is refused) and its tokens are
 * refused at once, as a revoked API key's are. A session of an API key has nothing to end on the server: the key
 * stays valid until revoked, and the client drops its token.
 */
export async function signOut(caller: Caller) {
  if (!isSsoSessionId(caller.apiKeyId)) return {};
  const memberships = await listMembershipsOfUser(caller.userId);
  const now = Date.now();
  await transactWrite([
    deleteSsoSessionItem(caller.userId, caller.apiKeyId.slice(SESSION_PREFIX.length)),
    ...memberships.map((m) => revocationOn(m, caller.apiKeyId, now)),
  ]);
  await pruneRevocations(memberships, now);
  return {};
}
