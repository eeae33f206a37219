import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import * as client from 'openid-client';
import { HttpError, notFound, unauthorized } from '../errors.ts';
import { logger } from '../context/logger.ts';
import { seal, unseal } from '../secrets/sealing.ts';
import { transactWrite } from '../db/transactions.ts';
import { providerConfiguration, ProviderProblem, reasonOf } from './provider.ts';
import { provision } from './provisioning.ts';
import { LinkRequired, type SignedInIdentity } from './model.ts';
import { issueLinkTicket } from './link-tickets.ts';
import { ssoSessionToken } from '../identity/sso-sessions.ts';
import { SESSION_PREFIX, SSO_SESSION_SECONDS, ssoSealContext, type SsoProviderRecord } from '../identity/model.ts';
import { getSsoProvider, putSsoSession, putSsoSignIn, takeSsoSignIn } from '../identity/sso-repository.ts';

// Sign-in with the organization's OpenID Connect provider (docs/IDENTITY.md "Single sign-on"): the authorization
// code flow with PKCE, state and nonce, through openid-client. startSsoSignIn keeps the state (by its hash), the
// nonce and the sealed code verifier in the table for ten minutes and answers the provider's authorization URL
// with a binding that the browser tab keeps; completeSsoSignIn takes that record once (a replay finds nothing),
// has openid-client redeem the code and check the ID token, provisions the user and answers an access token as
// login's, reaching only this organization (or, for an address of an account not linked to the identity, a link
// ticket and no session: link.ts). The session is a record of its own: refresh needs it, signOut (sessions.ts)
// deletes it and revokes its tokens.

const SIGN_IN_SECONDS = 10 * 60;
const MAX_GROUPS = 1000;

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** 424 Failed Dependency: nothing the caller sent is wrong, and no client input may cause a 5xx. */
const providerFailed = (error: ProviderProblem) =>
  new HttpError(424, `the organization's identity provider could not be used: ${error.message}`);

async function enabledProvider(orgId: string): Promise<SsoProviderRecord> {
  const provider = await getSsoProvider(orgId);
  if (!provider?.enabled) throw notFound('single sign-on is not set up for this organization');
  return provider;
}

async function configurationOf(provider: SsoProviderRecord) {
  try {
    return await providerConfiguration(provider);
  } catch (error) {
    if (error instanceof ProviderProblem) throw providerFailed(error);
    throw error;
  }
}

/** POST /api/v1/auth/sso/start (startSsoSignIn): where to send the browser, and the binding the tab keeps. */
export async function startSsoSignIn(orgId: string) {
  const provider = await enabledProvider(orgId);
  const configuration = await configurationOf(provider);
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  const binding = randomBytes(32).toString('base64url');
  const authorizationUrl = client.buildAuthorizationUrl(configuration, {
    redirect_uri: provider.redirectUri,
    scope: provider.scopes.join(' '),
    state,
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  await transactWrite([
    putSsoSignIn(sha256(state), {
      organizationId: orgId,
      bindingHash: sha256(binding),
      nonce,
      sealedCodeVerifier: await seal(codeVerifier, ssoSealContext(orgId, `verifier:${sha256(state)}`)),
      expiresAt: Math.floor(Date.now() / 1000) + SIGN_IN_SECONDS,
    }),
  ]);
  return { authorizationUrl: authorizationUrl.href, binding };
}

const refused = (reason: string) => {
  logger.info('single sign-on refused', { reason });
  return unauthorized(`Unauthorized: ${reason}`);
};

/** The identity the ID token (and, for a missing e-mail, the userinfo answer) tells. */
async function identityOf(
  configuration: client.Configuration,
  provider: SsoProviderRecord,
  tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>,
): Promise<SignedInIdentity> {
  let claims: Record<string, unknown> = { ...tokens.claims()! };
  if (typeof claims.email !== 'string' && configuration.serverMetadata().userinfo_endpoint) {
    try {
      claims = { ...(await client.fetchUserInfo(configuration, tokens.access_token, String(claims.sub))), ...claims };
    } catch (error) {
      throw refused(`the identity provider's userinfo could not be read: ${reasonOf(error)}`);
    }
  }
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  if (!/^[^\s@]{1,200}@[^\s@]{1,253}$/.test(email))
    throw refused('the identity provider gave no e-mail address (request the email scope)');
  if (claims.email_verified === false) throw refused('the identity provider says this e-mail address is not verified');
  const domain = email.split('@')[1]!.toLowerCase();
  if (provider.allowedEmailDomains.length && !provider.allowedEmailDomains.includes(domain))
    throw refused(`e-mail addresses of ${domain} may not sign in to this organization`);
  const rawGroups = claims[provider.groupsClaim];
  const groups = (Array.isArray(rawGroups) ? rawGroups : typeof rawGroups === 'string' ? [rawGroups] : [])
    .filter((g): g is string => typeof g === 'string')
    .slice(0, MAX_GROUPS);
  const name = typeof claims.name === 'string' ? claims.name.trim().slice(0, 255) : '';
  return {
    issuer: String(claims.iss),
    subject: String(claims.sub),
    email,
    name,
    groups,
  };
}

/**
 * POST /api/v1/auth/sso/callback (completeSsoSignIn): `query` is the callback page's query string as the provider
 * sent it (code, state, iss, or error); `binding` what the start answered to this tab.
 */
export async function completeSsoSignIn(query: string, binding: string) {
  const params = new URLSearchParams(query.startsWith('?') ? query.slice(1) : query);
  const state = params.get('state');
  if (!state) throw refused('the callback carries no state');
  const stateHash = sha256(state);
  const signIn = await takeSsoSignIn(stateHash);
  if (!signIn) throw refused('this sign-in is unknown, was already used or expired: start again');
  const now = Date.now();
  if (signIn.expiresAt * 1000 <= now) throw refused('this sign-in expired: start again');
  const given = Buffer.from(sha256(binding));
  if (!timingSafeEqual(given, Buffer.from(signIn.bindingHash)))
    throw refused('this sign-in was started in another browser tab: start again');
  const error = params.get('error');
  if (error)
    throw refused(
      `the identity provider refused: ${error}${params.get('error_description') ? ` (${params.get('error_description')!.slice(0, 200)})` : ''}`,
    );
  const provider = await getSsoProvider(signIn.organizationId);
  if (!provider?.enabled) throw refused('single sign-on is no longer set up for this organization');
  const configuration = await configurationOf(provider);
  const callbackUrl = new URL(provider.redirectUri);
  callbackUrl.search = params.toString();
  let tokens;
  try {
    tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
      pkceCodeVerifier: await unseal(
        signIn.sealedCodeVerifier,
        ssoSealContext(signIn.organizationId, `verifier:${stateHash}`),
      ),
      expectedState: state,
      expectedNonce: signIn.nonce,
      idTokenExpected: true,
    });
  } catch (error) {
    throw refused(`the identity provider's answer was refused: ${reasonOf(error)}`);
  }
  const identity = await identityOf(configuration, provider, tokens);
  let userId: string;
  try {
    userId = await provision(provider, identity);
  } catch (error) {
    if (!(error instanceof LinkRequired)) throw error;
    // No session: the account of that address confirms the link with its own credentials (confirmSsoLink).
    logger.info('single sign-on needs the existing account to confirm the link', { userId: error.userId });
    const { organizationId } = provider;
    const { issuer, subject, email } = identity;
    return {
      token: '',
      linkTicket: await issueLinkTicket({ organizationId, issuer, subject, email, userId: error.userId }, now),
    };
  }
  const sessionId = randomUUID();
  const session = { sessionId, userId, organizationId: provider.organizationId, createdAt: now };
  const expiresAt = Math.floor(now / 1000) + SSO_SESSION_SECONDS;
  await transactWrite([putSsoSession({ ...session, expiresAt })]);
  return { token: await ssoSessionToken(userId, `${SESSION_PREFIX}${sessionId}`, { ...session, expiresAt }, now) };
}
