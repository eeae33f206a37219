import { randomUUID } from 'node:crypto';
import { accessibleApplication } from '../applications/access.ts';
import { auditEntry } from '../audit/entries.ts';
import { badRequest } from '../errors.ts';
import { compareBy, pageOf, pageTokens, v2PageRequest } from '../lists.ts';
import { commitToLiveApplication, requireLiveApplication } from '../applications/application-repository.ts';
import {
  listOrganizationAssets,
  organizationAssetText,
  putOrganizationAsset,
  removeOrganizationAsset,
} from '../hosted-assets/organization-assets.ts';
import { type OrganizationAssetRecord } from '../hosted-assets/model.ts';
import { requirePermissionInSomeOrganization } from '../identity/sessions.ts';
import type { ActivityType } from '../audit/model.ts';
import type { Caller } from '../context/caller.ts';
import type { Permission } from '../context/permissions.ts';
import type { ListOrganizationPoliciesQuery, UpsertOrganizationPolicy } from './inputs.ts';
import {
  BUILT_IN_POLICIES,
  SCAN_RULE_IDS,
  allTechFlags,
  builtInPolicy,
  builtInPolicyId,
  isTechFlag,
  pluginSettings,
  scanPolicyView,
} from './catalogue.ts';
import type { PluginSetting, ApplicationPolicyRecord } from './model.ts';
import { getApplicationPolicy, putApplicationPolicy } from './repository.ts';
import { defaultApplicationPolicy, effectiveApplicationPolicy } from './effective-policy.ts';

// Scan policies: which scanner plugins run (each enabled or not) and the technology flags that tune them.
// Built-in policies come from ZAP's scan-rule facts (catalogue.ts); an organization keeps its own as JSON
// documents (organization assets, like scan configurations); each application has one, assigned from either and
// then toggled, stored in its partition. Without one, an application's policy is DEFAULT with every flag on.

/** A stored organization policy (the JSON document in S3). */
interface OrganizationPolicyDocument {
  id: string;
  name: string;
  displayName: string;
  description: string;
  plugins: PluginSetting[];
  techFlags: Record<string, boolean>;
}

const unknownOf = (values: string[], known: (value: string) => boolean) => [
  ...new Set(values.filter((value) => !known(value))),
];

/** 400 naming every unknown tech flag; the flags merged over `base`. */
function checkedFlags(
  field: string,
  flags: Record<string, boolean> | undefined,
  base: Record<string, boolean>,
): Record<string, boolean> {
  const unknown = unknownOf(Object.keys(flags ?? {}), isTechFlag);
  if (unknown.length)
    throw badRequest(`${field}: unknown tech flag(s) ${unknown.map((f) => JSON.stringify(f)).join(', ')}`);
  return { ...base, ...flags };
}

const builtInView = (name: string) => {
  const policy = builtInPolicy(name)!;
  return scanPolicyView({ ...policy, id: builtInPolicyId(policy.name), techFlags: allTechFlags() });
};

// ---- Built-in policies (not tied to an organization: the permission is needed in some organization)

export async function allBuiltInPolicies(caller: Caller, permission: Permission) {
  await requirePermissionInSomeOrganization(caller, permission);
  return { scanPolicies: BUILT_IN_POLICIES.map((policy) => builtInView(policy.name)) };
}

/** `application.GetApplicationScanPolicyResponse`: the named built-in policy, status NOT_FOUND when there is none. */
export async function builtInPolicyByName(caller: Caller, permission: Permission, name: string) {
  await requirePermissionInSomeOrganization(caller, permission);
  return builtInPolicy(name)
    ? { scanPolicy: builtInView(name), status: 'OK' as const }
    : { status: 'NOT_FOUND' as const };
}

// ---- Organization policies

export async function upsertOrganizationPolicy(
  caller: Caller,
  orgId: string,
  input: UpsertOrganizationPolicy,
): Promise<void> {
  if (builtInPolicy(input.name))
    throw badRequest(`scanPolicy.name: ${input.name} is a built-in policy name; choose another`);
  const unknown = unknownOf(
    input.plugins.map((p) => p.pluginId),
    (id) => SCAN_RULE_IDS.has(id),
  );
  if (unknown.length) throw badRequest(`scanPolicy.plugins: unknown plugin id(s) ${unknown.join(', ')}`);
  const techFlags = checkedFlags('scanPolicy.techFlags', input.techFlags, allTechFlags());
  const enabled = new Map(input.plugins.map((p) => [p.pluginId, p.enabled]));
  const existing = await organizationPolicy(orgId, input.name);
  const document: OrganizationPolicyDocument = {
    id: existing?.id ?? randomUUID(),
    name: input.name,
    displayName: input.displayName ?? existing?.displayName ?? input.name,
    description: input.description ?? existing?.description ?? '',
    plugins: pluginSettings((rule) => enabled.get(rule.pluginId) ?? false),
    techFlags,
  };
  await putOrganizationAsset(
    caller,
    {
      kind: 'policy',
      orgId,
      name: input.name,
      text: JSON.stringify(scanPolicyView(document)),
      contentType: 'application/json',
      details: { displayName: document.displayName, description: document.description, id: document.id },
    },
    {
      type: 'ORGANIZATION_POLICY_MODIFIED',
      payload: { policyName: input.name, enabledPlugins: document.plugins.filter((p) => p.enabled).length },
    },
  );
}

async function organizationPolicy(orgId: string, name: string): Promise<OrganizationPolicyDocument | undefined> {
  const text = await organizationAssetText('policy', orgId, name);
  if (text === undefined) return undefined;
  const view = JSON.parse(text) as OrganizationPolicyDocument & {
    plugins: (PluginSetting & Record<string, unknown>)[];
  };
  return { ...view, plugins: view.plugins.map(({ pluginId, enabled }) => ({ pluginId, enabled })) };
}

export function removeOrganizationPolicy(caller: Caller, orgId: string, name: string): Promise<void> {
  return removeOrganizationAsset(
    caller,
    { kind: 'policy', orgId, name },
    { type: 'ORGANIZATION_POLICY_REMOVED', payload: { policyName: name } },
  );
}

/** `scanpolicy.ListOrganizationScanPoliciesResponse`. */
export async function organizationPolicyList(orgId: string, query: ListOrganizationPoliciesQuery) {
  const request = v2PageRequest(query.page, query.pageToken, query.pageSize);
  const field = (r: OrganizationAssetRecord) =>
    query.sortField === 'displayName' ? (r.details.displayName ?? '').toLowerCase() : r.name;
  const all = (await listOrganizationAssets('policy', orgId)).sort(
    compareBy(field, (r) => r.name, query.sortDir === 'desc' ? 'DESC' : 'ASC'),
  );
  const page = pageOf(all, request);
  // The neighbouring pages (pagination.Page), with the order they are read in.
  const sortOptions = {
    field: query.sortField === 'displayName' ? 'displayName' : 'name',
    direction: query.sortDir === 'desc' ? ('DESC' as const) : ('ASC' as const),
  };
  const pageAt = (number: number) => ({ number, size: request.size, sortOptions });
  return {
    policies: page.items.map((r) => ({
      name: r.name,
      displayName: r.details.displayName ?? '',
      description: r.details.description ?? '',
      organizationId: orgId,
    })),
    ...pageTokens(request, page),
    nextPage: page.hasNext ? pageAt(request.page + 1) : undefined,
    prevPage: request.page > 0 ? pageAt(request.page - 1) : undefined,
  };
}

// ---- Application policies

/** A built-in or organization policy by name, as an application's policy would start from it. */
async function namedPolicy(orgId: string, name: string): Promise<Omit<OrganizationPolicyDocument, 'id'> | undefined> {
  const builtIn = builtInPolicy(name);
  return builtIn ? { ...builtIn, techFlags: allTechFlags() } : organizationPolicy(orgId, name);
}

const applicationPolicyView = (policy: ApplicationPolicyRecord) =>
  scanPolicyView({
    id: policy.applicationId,
    name: policy.policyName,
    displayName: policy.displayName,
    description: policy.description,
    applicationId: policy.applicationId,
    isCustomized: policy.isCustomized,
    plugins: policy.plugins,
    techFlags: { ...allTechFlags(), ...policy.techFlags },
  });

/**
 * GET /api/v1/app/{appId}/policy: the application's policy; `policyName` answers that built-in or organization
 * policy instead (NOT_FOUND when there is none); `policyConfigured=true` answers NOT_FOUND unless the application
 * has a policy of its own.
 */
export async function applicationPolicy(
  caller: Caller,
  appId: string,
  query: { policyName: string; policyConfigured: boolean },
) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  if (query.policyName) {
    const named = await namedPolicy(app.organizationId, query.policyName);
    if (!named) return { status: 'NOT_FOUND' as const };
    const id = 'id' in named ? String(named.id) : builtInPolicyId(named.name);
    return {
      scanPolicy: scanPolicyView({ ...named, id, techFlags: { ...allTechFlags(), ...named.techFlags } }),
      status: 'OK' as const,
    };
  }
  const own = await getApplicationPolicy(appId);
  if (!own && query.policyConfigured) return { status: 'NOT_FOUND' as const };
  return {
    scanPolicy: applicationPolicyView(own ?? defaultApplicationPolicy(appId, app.organizationId)),
    status: 'OK' as const,
  };
}

/** Read-modify-write of the application's policy with its audit entry; `change` returns undefined for "nothing to write". */
async function changeApplicationPolicy(
  caller: Caller,
  appId: string,
  auditType: ActivityType,
  change: (
    current: ApplicationPolicyRecord,
  ) => Promise<{ next: ApplicationPolicyRecord; payload: Record<string, unknown> } | undefined>,
) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  let result: ApplicationPolicyRecord | undefined;
  await commitToLiveApplication(appId, async () => {
    const current = await effectiveApplicationPolicy(appId, app.organizationId);
    const changed = await change(current);
    result = changed?.next ?? current;
    if (!changed) return undefined;
    const next = { ...changed.next, revision: current.revision + 1 };
    result = next;
    const audit = auditEntry(caller, app.organizationId, auditType, {
      applicationId: appId,
      appName: app.name,
      ...changed.payload,
    });
    return [requireLiveApplication(appId), putApplicationPolicy(next), audit];
  });
  return { scanPolicy: applicationPolicyView(result!) };
}

/** PUT .../policy/assign?policyName=: the application's plugins become the named policy's; its tech flags stay. */
export function assignApplicationPolicy(caller: Caller, appId: string, policyName: string) {
  return changeApplicationPolicy(caller, appId, 'APPLICATION_POLICY_MODIFIED', async (current) => {
    const named = await namedPolicy(current.organizationId, policyName);
    if (!named)
      throw badRequest(`policyName: no built-in or organization scan policy named ${JSON.stringify(policyName)}`);
    const next = {
      ...current,
      policyName: named.name,
      displayName: named.displayName,
      description: named.description,
      plugins: named.plugins,
      isCustomized: false,
    };
    return { next, payload: { policyName: named.name } };
  });
}

/** GET .../policy/plugins/{pluginId}/{toggle}: 400 unless the plugin is in the application's policy. */
export function toggleApplicationPlugin(
  caller: Caller,
  appId: string,
  pluginId: string,
  toggle: 'enabled' | 'disabled',
) {
  return changeApplicationPolicy(caller, appId, 'APPLICATION_POLICY_MODIFIED', async (current) => {
    if (!current.plugins.some((p) => p.pluginId === pluginId))
      throw badRequest(`pluginId: ${pluginId} is not a plugin of the application's scan policy`);
    const enabled = toggle === 'enabled';
    if (current.plugins.find((p) => p.pluginId === pluginId)!.enabled === enabled) return undefined; // nothing changes
    const plugins = current.plugins.map((p) => (p.pluginId === pluginId ? { ...p, enabled } : p));
    return { next: { ...current, plugins, isCustomized: true }, payload: { pluginId, enabled } };
  });
}

/** GET .../policy/flags: every flag with its value (true unless set otherwise). */
export async function applicationTechFlags(caller: Caller, appId: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  return {
    techFlags: { ...allTechFlags(), ...(await effectiveApplicationPolicy(appId, app.organizationId)).techFlags },
  };
}

/** PUT .../policy/flags: sets the given flags (400 naming unknown ones), leaving the others as they are. */
export function updateApplicationTechFlags(caller: Caller, appId: string, flags: Record<string, boolean>) {
  return changeApplicationPolicy(caller, appId, 'TECH_FLAG_MODIFIED', async (current) => {
    const techFlags = checkedFlags('techFlags', flags, { ...allTechFlags(), ...current.techFlags });
    return { next: { ...current, techFlags }, payload: { techFlags: flags } };
  });
}
