/** The named documents an organization keeps: scan configurations (YAML) and scan policies (JSON). */
export type OrganizationAssetKind = 'configuration' | 'policy';

// Every S3 object key is built here. All of an application's assets live under one prefix, so deleting an
// application removes them with one prefix listing (docs/API.md, Deletes).
export const objectKeys = {
  applicationPrefix: (appId: string) => `apps/${appId}/`,
  /**
   * One stored version of an application's uploaded OpenAPI description. The application has one current
   * description (one per application): its metadata item names the current version (docs/HOSTED-ASSETS.md).
   */
  hostedDescription: (appId: string, version: string) => `apps/${appId}/oas/${version}`,
  /** Everything stored for one environment (removed when the environment is deleted). */
  environmentPrefix: (appId: string, envId: string) => `apps/${appId}/envs/${envId}/`,
  /** An environment's default hosted scan configuration (create environment `host` query). */
  environmentConfig: (appId: string, envId: string) => `apps/${appId}/envs/${envId}/stackhawk.yml`,
  /** A scan configuration as reported by the scanner, addressed by its hash. */
  scanConfig: (appId: string, configHash: string) => `apps/${appId}/configs/${configHash}.yml`,
  /** The same configuration parsed, as JSON: what GET .../config/{configHash} returns, without a YAML parser. */
  parsedScanConfig: (appId: string, configHash: string) => `apps/${appId}/configs/${configHash}.json`,
  /**
   * One stored version of an environment's default configuration written by POST .../config/default; the
   * environment record names the current one (`defaultConfigKey`). Under the environment's prefix, so its delete removes it.
   */
  environmentDefaultConfig: (appId: string, envId: string, version: string) =>
    `apps/${appId}/envs/${envId}/default-config/${version}.json`,
  /**
   * The valid API description a profile scan found (docs/PROFILE-SCANS.md), kept with its result until
   * useDiscoveredOpenApiSpec makes it the hosted one (which copies it to a `hostedDescription` version).
   */
  profileDescription: (appId: string, scanKey: string) => `apps/${appId}/profile/${scanKey}/openapi`,
  /** The log of one hosted scan run (agent events, engine output, phases): under the application's prefix. */
  perchRunLog: (appId: string, scanKey: string) => `apps/${appId}/perch/${scanKey}.log`,
  globalConfig: (name: string) => `global-configuration/${name}.yml`,
  /** One stored version of an organization's named document; its metadata item names the current one. */
  organizationAsset: (orgId: string, kind: OrganizationAssetKind, version: string) =>
    kind === 'configuration' ? `orgs/${orgId}/configurations/${version}.yml` : `orgs/${orgId}/policies/${version}.json`,
};
