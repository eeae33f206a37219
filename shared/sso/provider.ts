import * as client from 'openid-client';
import { getIntegrationSettings } from '../outbound/settings.ts';
import { unseal } from '../secrets/sealing.ts';
import { OUTBOUND_TIMEOUT_MS, ProviderUnreachable, providerFetch } from './outbound.ts';
import { type SsoProviderRecord, ssoSealContext } from '../identity/model.ts';

// The organization's provider as openid-client sees it (docs/IDENTITY.md "Single sign-on"): discovered from its
// issuer (kept five minutes per organization, issuer and setting: startSsoSignIn is unauthenticated and must not
// make the service fetch the provider's discovery on every call), every request through providerFetch. Plain http
// is accepted only where private networks are (a provider on loopback or inside the network), since that is an
// owner's decision too. Every endpoint the discovery names must be an http(s) URL: the browser is sent to the
// authorization endpoint, and a javascript:, data: or file: one is refused (400 when saved, 424 when it changes later).

export class ProviderProblem extends Error {}

/** How long a discovered configuration is used before the provider's discovery is fetched again. */
export const DISCOVERY_CACHE_MS = 5 * 60 * 1000;
/** Configurations kept at most (one per organization with single sign-on in use): the oldest goes first. */
const MAX_CACHED = 1000;
const discovered = new Map<string, { configuration: client.Configuration; until: number }>();

/** Refuses discovery metadata naming an endpoint (or the JWKS) at anything but an absolute http(s) URL. */
function requireHttpEndpoints(metadata: client.ServerMetadata): void {
  for (const [field, value] of Object.entries(metadata)) {
    if (!(field.endsWith('_endpoint') || field === 'jwks_uri') || value === undefined) continue;
    let protocol = '';
    try {
      protocol = new URL(String(value)).protocol;
    } catch {
      // not a URL at all: refused below
    }
    if (protocol !== 'https:' && protocol !== 'http:')
      throw new ProviderProblem(
        `issuer: the provider's discovery names ${field} ${JSON.stringify(String(value).slice(0, 100))}, which is not an http(s) URL`,
      );
  }
}

/** openid-client's Configuration for this issuer and client: discovery through the bounded, pinned fetch. */
export async function discover(
  orgId: string,
  provider: Pick<SsoProviderRecord, 'issuer' | 'clientId'>,
  clientSecret: string,
): Promise<client.Configuration> {
  const { allowPrivateNetworks } = await getIntegrationSettings(orgId);
  const issuer = new URL(provider.issuer);
  if (issuer.protocol === 'http:' && !allowPrivateNetworks)
    throw new ProviderProblem(
      'issuer: must be an https URL (plain http only where an owner allowed private networks in the integration settings)',
    );
  let configuration: client.Configuration;
  try {
    configuration = await client.discovery(
      issuer,
      provider.clientId,
      undefined,
      client.ClientSecretPost(clientSecret),
      {
        [client.customFetch]: providerFetch(allowPrivateNetworks),
        timeout: OUTBOUND_TIMEOUT_MS / 1000,
        ...(issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
      },
    );
  } catch (error) {
    throw new ProviderProblem(`issuer: discovery of ${provider.issuer} failed: ${reasonOf(error)}`);
  }
  requireHttpEndpoints(configuration.serverMetadata());
  return configuration;
}

/**
 * The provider's Configuration with the stored client secret, discovered at most once in DISCOVERY_CACHE_MS per
 * organization, issuer, setting revision and network rule (a changed setting or rule is discovered again at once).
 */
export async function providerConfiguration(provider: SsoProviderRecord): Promise<client.Configuration> {
  const { allowPrivateNetworks } = await getIntegrationSettings(provider.organizationId);
  const key = JSON.stringify([provider.organizationId, provider.issuer, provider.revision, allowPrivateNetworks]);
  const now = Date.now();
  const cached = discovered.get(key);
  if (cached && cached.until > now) return cached.configuration;
  const secret = await unseal(provider.sealedClientSecret, ssoSealContext(provider.organizationId, 'clientSecret'));
  const configuration = await discover(provider.organizationId, provider, secret);
  discovered.delete(key);
  for (const [old, entry] of discovered)
    if (entry.until <= now || discovered.size >= MAX_CACHED) discovered.delete(old);
  discovered.set(key, { configuration, until: now + DISCOVERY_CACHE_MS });
  return configuration;
}

/** What went wrong, in a line (openid-client's messages name the check that failed). */
export function reasonOf(error: unknown): string {
  if (error instanceof ProviderUnreachable) return error.message;
  if (error instanceof client.ResponseBodyError)
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
  if (error instanceof Error) {
    // openid-client names the kind of failure; the cause (oauth4webapi's) names the claim or check.
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof ProviderUnreachable) return cause.message;
    return cause instanceof Error && cause.message !== error.message
      ? `${error.message}: ${cause.message}`
      : error.message;
  }
  return String(error);
}
