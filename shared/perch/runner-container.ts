// The hosted runner's task definition names its container this (infra/scan-runner.ts), and each launch's
// overrides address it (shared/perch/runner.ts). A module of its own: the CDK app imports it without the service's
// configuration, which reads the environment once, at import.
export const RUNNER_CONTAINER = 'agent';
