// Which environment variables a `${VAR}` in a scan configuration may read (docs/SCANNER-AUTH.md, "Variables").
// A hosted scan's configuration is written by any member allowed to start scans, and the agent carrying it out may
// be the service itself (the embedded agent of `npm start`): it reads only HAWK_SCAN_* variables and those the
// agent's operator names, and never the service's own secrets, even when named.

/** A variable's value, or why the configuration may not read it (a message that never holds a value). */
export type VariableLookup = (name: string) => { value?: string; refused?: string; unsetHint: string };

export const SCAN_VARIABLE_PREFIX = 'HAWK_SCAN_';
/** Where the agent's operator names further variables, comma-separated (the agent's --allow-vars does the same). */
export const ALLOWED_VARIABLES_ENV = 'HAWK_SCAN_ALLOWED_VARS';

// The service's and the agent's own credentials (README.md, Configuration; docs/HOSTED-SCANS.md), refused whatever the
// operator names: a configuration that reads them sends them to the target.
const SERVICE_SECRETS = new Set([
  'LOCAL_S3_ACCESS_KEY_ID',
  'LOCAL_S3_SECRET_ACCESS_KEY',
  'SIGNING_KEY_FILE',
  'SIGNING_SECRET_ARN',
  'INTEGRATION_KEY_FILE',
  'INTEGRATION_KMS_KEY_ARN',
  'HAWK_API_KEY',
  'HAWK_ACCESS_TOKEN',
  'DATA_DIR',
]);
const SERVICE_SECRET_PREFIXES = ['AWS_'];

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why the operator may not name `name` for scan configurations, if they may not. */
export function namingProblem(name: string): string | undefined {
  if (!VARIABLE_NAME.test(name)) return `${JSON.stringify(name)} is not a variable name`;
  if (SERVICE_SECRETS.has(name) || SERVICE_SECRET_PREFIXES.some((prefix) => name.startsWith(prefix)))
    return `${name} is one of the service's own credentials and is never passed to scan configurations`;
  return undefined;
}

/** The names in a comma-separated list (HAWK_SCAN_ALLOWED_VARS, --allow-vars). */
export const namesIn = (list: string | undefined): string[] =>
  (list ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);

const HOW_TO_ALLOW =
  `the agent passes only ${SCAN_VARIABLE_PREFIX}* variables and those its operator names ` +
  `(${ALLOWED_VARIABLES_ENV}=NAME1,NAME2 or hawk-scanner agent --allow-vars NAME1,NAME2)`;

/**
 * The variables an agent passes to the scan configurations it carries out: HAWK_SCAN_* and the names its operator
 * allowed (by default those of HAWK_SCAN_ALLOWED_VARS), never a service credential.
 */
export function agentVariables(
  allowed: readonly string[] = namesIn(process.env[ALLOWED_VARIABLES_ENV]),
  env: NodeJS.ProcessEnv = process.env,
): VariableLookup {
  const named = new Set(allowed);
  return (name) => {
    const unsetHint = `is not set where the agent runs; set it in the agent's environment`;
    const problem = namingProblem(name);
    if (problem) return { refused: `${problem}; use a ${SCAN_VARIABLE_PREFIX}* variable instead`, unsetHint };
    if (!name.startsWith(SCAN_VARIABLE_PREFIX) && !named.has(name))
      return {
        refused: `${name} is not passed to scan configurations: ${HOW_TO_ALLOW}; name it ${SCAN_VARIABLE_PREFIX}${name.replace(/^SCAN_/, '')} where the agent runs`,
        unsetHint,
      };
    return { value: Object.hasOwn(env, name) ? env[name] : undefined, unsetHint };
  };
}

/**
 * A hosted run's variables (docs/HOSTED-SCANS.md, "Scan secrets"): the scan secrets the service gave with the run
 * (the application's, else the organization's: the service resolved that order), then `environment` (the agent's).
 */
export function withScanSecrets(
  secrets: Readonly<Record<string, string>>,
  environment: VariableLookup,
): VariableLookup {
  const howToStore = (name: string) =>
    `set it as a scan secret named ${name} of the application or organization (their secrets operations, docs/HOSTED-SCANS.md "Scan secrets")`;
  return (name) => {
    if (Object.hasOwn(secrets, name)) return { value: secrets[name], unsetHint: '' };
    const found = environment(name);
    return {
      ...found,
      ...(found.refused ? { refused: `${found.refused}; or ${howToStore(name)}` } : {}),
      unsetHint: `is no scan secret and is not set where the agent runs: ${howToStore(name)}, or set it in the agent's environment`,
    };
  };
}

/**
 * The variables of a command run on the operator's own machine against its own files (`validate`): the whole
 * environment is the operator's.
 */
export function localVariables(env: NodeJS.ProcessEnv = process.env): VariableLookup {
  return (name) => ({
    value: Object.hasOwn(env, name) ? env[name] : undefined,
    unsetHint: 'is not set; export it before running (keep secrets out of the file)',
  });
}
