// Scanner-client login library (docs/SCANNER-AUTH.md): load and validate the config, log in, keep the session alive.
export {
  configAs,
  loadConfig,
  loadConfigText,
  validateConfig,
  type AuthConfig,
  type AuthorizationConfig,
  type ConfigError,
  type TestPathConfig,
} from './config.ts';
export type { Fetch, Step, TargetRequest } from './http.ts';
export { AuthenticationError } from './login.ts';
export { createSession, type Session, type TargetResponse } from './session.ts';
export { runTestPath } from './test-path.ts';
export {
  agentVariables,
  namesIn,
  namingProblem,
  withScanSecrets,
  ALLOWED_VARIABLES_ENV,
  type VariableLookup,
} from './variables.ts';
