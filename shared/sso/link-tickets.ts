import { createHmac, timingSafeEqual } from 'node:crypto';
import { signingKey } from '../auth/signing-key.ts';
import { badRequest, gone } from '../errors.ts';
import { LINK_TICKET_SECONDS, type LinkTicket } from './model.ts';

// The ticket a sign-in answers when the provider's e-mail address belongs to an account not linked to the identity
// (docs/IDENTITY.md "Linking an existing account"): it names the identity and the account, signed with the service's
// key and valid ten minutes. Only that account, signed in with its own credentials, links the two (confirmSsoLink).
/** Signed apart from access tokens: their signing input is base64url, which never holds this line break. */
const CONTEXT = 'hawk-api sso link ticket\n';

const signatureOf = async (payload: string) =>
  createHmac('sha256', await signingKey())
    .update(CONTEXT + payload)
    .digest('base64url');

export async function issueLinkTicket(ticket: Omit<LinkTicket, 'expiresAt'>, now = Date.now()): Promise<string> {
  const payload = Buffer.from(
    JSON.stringify({ ...ticket, expiresAt: Math.floor(now / 1000) + LINK_TICKET_SECONDS }),
  ).toString('base64url');
  return `${payload}.${await signatureOf(payload)}`;
}

/** The ticket's content, or 400 (not one we signed) or 410 (expired). */
export async function readLinkTicket(ticket: string, now = Date.now()): Promise<LinkTicket> {
  const [payload = '', signature = ''] = ticket.split('.');
  const expected = Buffer.from(await signatureOf(payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw badRequest('ticket: not a link ticket of this service');
  const content = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LinkTicket;
  if (content.expiresAt * 1000 <= now) throw gone('ticket: this link ticket expired; sign in with the provider again');
  return content;
}
