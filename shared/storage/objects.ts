// Every S3 object key is built here. All of an application's assets live under one prefix, so deleting an
// application removes them with one prefix listing (SPEC 3).
export const objectKeys = {
  applicationPrefix: (appId: string) => `apps/${appId}/`,
  /**
   * One stored version of an application's uploaded OpenAPI description. The application has one current
   * description (SPEC 4.3 rule 2): its metadata item names the current version (docs/HOSTED-ASSETS.md).
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
  globalConfig: (name: string) => `global-configuration/${name}.yml`,
};
