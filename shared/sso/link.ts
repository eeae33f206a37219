import { auditEntry } from '../audit/entries.ts';
import { conditionFailed, named } from '../db/items.ts';
import { transactWrite } from '../db/transactions.ts';
import { conflict, forbidden, unauthorized } from '../errors.ts';
import type { Caller } from '../context/caller.ts';
import { listApiKeys } from '../identity/api-key-repository.ts';
import { getUser } from '../identity/user-repository.ts';
import { readLinkTicket } from './link-tickets.ts';
import { getSsoProvider, putSsoIdentity } from '../identity/sso-repository.ts';

// Linking an existing account to an organization's single sign-on identity (docs/IDENTITY.md "Linking an existing
// account"): the sign-in answered a ticket instead of a session, and the account of that e-mail address confirms,
// signed in with its own API key. Nothing else links an account: a provider's word is any organization's word.

/** POST /api/v1/auth/sso/link (confirmSsoLink): the identity the ticket names is linked to the caller. */
export async function confirmSsoLink(caller: Caller, ticketText: string): Promise<object> {
  // A single sign-on session (of any organization) or a narrowed key does not prove the account's own credentials.
  if (caller.scope)
    throw forbidden('Forbidden: confirm with a session of your own API key, not a single sign-on or narrowed session');
  const ticket = await readLinkTicket(ticketText);
  if (ticket.userId !== caller.userId) throw forbidden('Forbidden: this link ticket is for another account');
  const [user, apiKeys, provider] = await Promise.all([
    getUser(caller.userId),
    listApiKeys(caller.userId),
    getSsoProvider(ticket.organizationId),
  ]);
  // The session's key was revoked: its tokens end here as everywhere else.
  if (!apiKeys.some((key) => key.keyId === caller.apiKeyId)) throw unauthorized();
  if (user?.email.toLowerCase() !== ticket.email.toLowerCase())
    throw forbidden('Forbidden: this account no longer has the e-mail address the provider gave');
  if (!provider?.enabled || provider.issuer !== ticket.issuer)
    throw conflict("the organization's single sign-on changed since this sign-in: sign in with the provider again");
  const { organizationId, issuer, subject } = ticket;
  const now = Date.now();
  try {
    await transactWrite([
      named('identityLinked', putSsoIdentity(organizationId, issuer, subject, caller.userId)),
      auditEntry(
        caller,
        organizationId,
        'USER_MODIFIED',
        { via: 'sso', linked: true, userId: caller.userId, email: user.email, issuer, subject },
        now,
      ),
    ]);
  } catch (error) {
    if (conditionFailed(error, 'identityLinked')) throw conflict('this identity is already linked to an account');
    throw error;
  }
  return {};
}
