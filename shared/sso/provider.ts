import * as client from 'openid-client';
import { getIntegrationSettings } from '../webhooks/repository.ts';
import { unseal } from '../secrets/sealing.ts';
import { OUTBOUND_TIMEOUT_MS, ProviderUnreachable, providerFetch } from './outbound.ts';
import { ssoSealContext, type SsoProviderRecord } from './repository.ts';

// The organization's provider as openid-client sees it (docs/IDENTITY.md "Single sign-on"): discovered from its
// issuer on each use (two small requests at most: discovery, and the JWKS when an ID token is checked), every
// request through providerFetch. Plain http is accepted only where private networks are (a provider on loopback
// or inside the network), since that is an owner's decision too.

export class ProviderProblem extends Error {}

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
  try {
    return await client.discovery(issuer, provider.clientId, undefined, client.ClientSecretPost(clientSecret), {
      [client.customFetch]: providerFetch(allowPrivateNetworks),
      timeout: OUTBOUND_TIMEOUT_MS / 1000,
      ...(issuer.protocol === 'http:' ? { execute: [client.allowInsecureRequests] } : {}),
    });
  } catch (error) {
    throw new ProviderProblem(`issuer: discovery of ${provider.issuer} failed: ${reasonOf(error)}`);
  }
}

/** The provider's Configuration with the stored client secret. */
export async function providerConfiguration(provider: SsoProviderRecord): Promise<client.Configuration> {
  const secret = await unseal(provider.sealedClientSecret, ssoSealContext(provider.organizationId, 'clientSecret'));
  return discover(provider.organizationId, provider, secret);
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
