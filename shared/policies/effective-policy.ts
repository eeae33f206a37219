import { DEFAULT_POLICY, allTechFlags } from './catalogue.ts';
import { getApplicationPolicy } from './repository.ts';
import { type ApplicationPolicyRecord } from './model.ts';

// An application's effective scan policy: its own, or DEFAULT with every tech flag on. Kept apart from the policy
// operations so that the scan configuration read (GET .../config/{configHash}) bundles only this.

export const defaultApplicationPolicy = (appId: string, orgId: string): ApplicationPolicyRecord => ({
  applicationId: appId,
  organizationId: orgId,
  policyName: DEFAULT_POLICY.name,
  displayName: DEFAULT_POLICY.displayName,
  description: DEFAULT_POLICY.description,
  isCustomized: false,
  plugins: DEFAULT_POLICY.plugins,
  techFlags: allTechFlags(),
  revision: 0,
});

/** The application's policy (its own, or DEFAULT): what a scan of it runs. */
export async function effectiveApplicationPolicy(appId: string, orgId: string): Promise<ApplicationPolicyRecord> {
  return (await getApplicationPolicy(appId)) ?? defaultApplicationPolicy(appId, orgId);
}

/** The policy as a HawkScan configuration names it (`app.scanPolicy`, hawkscan.OrganizationPolicy). */
export function scannerPolicy(policy: ApplicationPolicyRecord) {
  return {
    name: policy.policyName,
    includePluginIds: policy.plugins.filter((p) => p.enabled).map((p) => p.pluginId),
    excludePluginIds: policy.plugins.filter((p) => !p.enabled).map((p) => p.pluginId),
  };
}
