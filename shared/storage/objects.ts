// Every S3 object key is built here. All of an application's assets live under one prefix, so deleting an
// application removes them with one prefix listing (SPEC 3).
export const objectKeys = {
  applicationPrefix: (appId: string) => `apps/${appId}/`,
  /** The uploaded OpenAPI description: one per application (SPEC 4.3 rule 2). */
  hostedDescription: (appId: string) => `apps/${appId}/oas/openapi`,
  /** An environment's default hosted scan configuration (create environment `host` query). */
  environmentConfig: (appId: string, envId: string) => `apps/${appId}/envs/${envId}/stackhawk.yml`,
  /** A scan configuration as reported by the scanner, addressed by its hash. */
  scanConfig: (appId: string, configHash: string) => `apps/${appId}/configs/${configHash}.yml`,
  globalConfig: (name: string) => `global-configuration/${name}.yml`,
};
