// Scan policies' model (docs/SCAN-POLICIES.md): a scan rule, a plugin's setting, a built-in policy and an application's
// policy as stored. Records, types and pure rules only (docs/LAYOUT.md, Layers): it imports the kernel and other
// resources' model.ts, never a repository.

export interface ScanRule {
  pluginId: string;
  name: string;
  pluginType: 'ACTIVE' | 'PASSIVE';
  /** The release status of the ZAP add-on the rule ships in (every rule of the catalogue has one). */
  status: 'ADDON_STATUS_ALPHA' | 'ADDON_STATUS_BETA' | 'ADDON_STATUS_RELEASE';
}

/** A plugin's state in a policy; the rest of `scanpolicy.Plugin` comes from the catalogue. */
export interface PluginSetting {
  pluginId: string;
  enabled: boolean;
}

export interface BuiltInPolicy {
  name: string;
  displayName: string;
  description: string;
  plugins: PluginSetting[];
}

/** An application's own scan policy: assigned from a built-in or organization policy, then toggled. */
export interface ApplicationPolicyRecord {
  applicationId: string;
  organizationId: string;
  /** The policy it was assigned from. */
  policyName: string;
  displayName: string;
  description: string;
  /** Whether plugins were toggled since the assignment. */
  isCustomized: boolean;
  plugins: PluginSetting[];
  techFlags: Record<string, boolean>;
  /** Incremented by every change: writes are conditional on the revision they read. */
  revision: number;
}
