import { auditEntry } from '../audit/entries.ts';
import { transactWrite } from '../db/transactions.ts';
import { conditionFailed } from '../db/items.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { seal } from '../secrets/sealing.ts';
import { getTeams } from '../applications/team-repository.ts';
import { narrowed, type Caller } from '../context/caller.ts';
import { membershipsOfOrg } from '../identity/membership-repository.ts';
import { requireStanding } from '../identity/member-management.ts';
import { owningRole, ssoSealContext, type SsoProviderRecord } from '../identity/model.ts';
import { grantOf } from '../context/roles.ts';
import { discover, ProviderProblem } from './provider.ts';
import { deleteSsoProviderItem, getSsoProvider, putSsoProvider } from '../identity/sso-repository.ts';
import type { SsoProviderBody } from './inputs.ts';

// The organization's OpenID Connect provider (docs/IDENTITY.md "Single sign-on"), seen by its member managers
// (getSsoProvider) and changed by its owners (updateSsoProvider, deleteSsoProvider), each change atomic with its
// ORG_SETTINGS_MODIFIED entry. The client secret is stored sealed and never shown.

const DEFAULT_SCOPES = ['openid', 'email', 'profile'];
/** The roles a new identity may get by default: never one that manages the organization (docs/IDENTITY.md). */
const DEFAULT_ROLES = ['MEMBER', 'READ_ONLY', 'SCANNER'];

/**
 * The provider decides who signs in and with which role and teams, so changing it takes an owner (an admin where
 * the organization has no owner, as for member management), with a session that is not narrowed to some
 * permissions or an application; and a role mapping grants nothing the caller lacks (403 otherwise).
 */
async function requireOwner(caller: Caller, orgId: string, body?: SsoProviderBody): Promise<void> {
  const [manager, memberships] = await Promise.all([caller.authorize(orgId), membershipsOfOrg(orgId)]);
  const owning = owningRole(memberships);
  if (manager.role !== owning || narrowed(caller.scope))
    throw forbidden('Forbidden: only an owner can change single sign-on');
  const roles = new Set([...(body?.groupRoles ?? []).map((m) => m.role), body?.defaultRole ?? 'MEMBER']);
  for (const role of roles) requireStanding(caller, manager, owning, undefined, grantOf({ role }));
  if (body?.defaultRole && !DEFAULT_ROLES.includes(body.defaultRole))
    throw badRequest(`defaultRole: must be one of ${DEFAULT_ROLES.join(', ')} (map a group to give more)`);
}

/** The API's view: never the client secret, only whether one is set. */
export function toSsoProvider(provider: SsoProviderRecord | undefined) {
  if (!provider) return { configured: false };
  return {
    configured: true,
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecretSet: true,
    redirectUri: provider.redirectUri,
    scopes: provider.scopes,
    groupsClaim: provider.groupsClaim,
    allowedEmailDomains: provider.allowedEmailDomains,
    defaultRole: provider.defaultRole,
    groupRoles: provider.groupRoles,
    groupTeams: provider.groupTeams,
    enabled: provider.enabled,
    updatedAt: new Date(provider.updatedAt).toISOString(),
  };
}

const auditPayload = (provider: SsoProviderRecord, extra: Record<string, unknown> = {}) => ({
  setting: 'sso',
  issuer: provider.issuer,
  clientId: provider.clientId,
  enabled: provider.enabled,
  ...extra,
});

/** GET /api/v1/org/{orgId}/sso (getSsoProvider). */
export async function getSsoProviderView(orgId: string) {
  return toSsoProvider(await getSsoProvider(orgId));
}

/**
 * PUT /api/v1/org/{orgId}/sso (updateSsoProvider): the whole setting. The issuer is discovered before anything is
 * stored, so a wrong issuer or an address the organization does not allow is a 400 saying so.
 */
export async function updateSsoProvider(caller: Caller, orgId: string, body: SsoProviderBody) {
  await requireOwner(caller, orgId, body);
  const current = await getSsoProvider(orgId);
  if (!current && !body.clientSecret) throw badRequest('clientSecret: required when setting up single sign-on');
  const teamIds = [...new Set((body.groupTeams ?? []).map((m) => m.teamId))];
  const found = new Set((await getTeams(orgId, teamIds)).map((team) => team.teamId));
  const missing = teamIds.find((id) => !found.has(id));
  if (missing) throw notFound(`groupTeams: team ${missing} not found`);
  if (body.clientSecret) {
    try {
      await discover(orgId, body, body.clientSecret);
    } catch (error) {
      if (error instanceof ProviderProblem) throw badRequest(error.message);
      throw error;
    }
  }
  const now = Date.now();
  const next: SsoProviderRecord = {
    organizationId: orgId,
    issuer: body.issuer,
    clientId: body.clientId,
    sealedClientSecret: body.clientSecret
      ? await seal(body.clientSecret, ssoSealContext(orgId, 'clientSecret'))
      : current!.sealedClientSecret,
    redirectUri: body.redirectUri,
    scopes: body.scopes ? [...new Set(body.scopes)] : DEFAULT_SCOPES,
    groupsClaim: body.groupsClaim ?? 'groups',
    allowedEmailDomains: [...new Set(body.allowedEmailDomains ?? [])],
    defaultRole: body.defaultRole ?? 'MEMBER',
    groupRoles: body.groupRoles ?? [],
    groupTeams: body.groupTeams ?? [],
    enabled: body.enabled ?? true,
    createdAt: current?.createdAt ?? now,
    updatedAt: now,
    revision: (current?.revision ?? 0) + 1,
  };
  // A changed issuer or client is checked with the secret it will be used with.
  if (!body.clientSecret && (body.issuer !== current!.issuer || body.clientId !== current!.clientId))
    throw badRequest('clientSecret: required when the issuer or client id changes');
  try {
    await transactWrite([
      putSsoProvider(next),
      auditEntry(
        caller,
        orgId,
        'ORG_SETTINGS_MODIFIED',
        auditPayload(next, body.clientSecret ? { clientSecretChanged: true } : {}),
        now,
      ),
    ]);
  } catch (error) {
    if (conditionFailed(error, 'ssoChanged')) throw conflict('single sign-on is being changed concurrently; retry');
    throw error;
  }
  return toSsoProvider(next);
}

/** DELETE /api/v1/org/{orgId}/sso (deleteSsoProvider): sign-in with the provider stops; sessions it started end at refresh. */
export async function deleteSsoProvider(caller: Caller, orgId: string) {
  await requireOwner(caller, orgId);
  const current = await getSsoProvider(orgId);
  if (!current) throw notFound('the organization has no single sign-on provider');
  try {
    await transactWrite([
      deleteSsoProviderItem(current),
      auditEntry(caller, orgId, 'ORG_SETTINGS_MODIFIED', auditPayload(current, { removed: true })),
    ]);
  } catch (error) {
    if (conditionFailed(error, 'ssoChanged')) throw conflict('single sign-on is being changed concurrently; retry');
    throw error;
  }
  return {};
}
