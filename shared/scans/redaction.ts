// Credentials in a stored scan configuration are never shown (docs/HOSTED-SCANS.md, "Scan
// configurations and their credentials"): every read of a configuration answers them as REDACTED. A `${VAR}`
// reference is no secret and is shown. The agent still gets the real text, with its run's command (pollDevice).

export const REDACTED = '********';

type Node = Record<string, unknown>;

// Fields of the HawkScan configuration (shared/proto/hawkscan.proto) that hold a secret as a string.
const SECRET_FIELDS = new Set(['password', 'scanpassword', 'clientsecret']);
// Blocks whose every string may be a secret (script, OAuth and proxy credentials, a custom discovery's environment).
const SECRET_MAPS = new Set(['credentials', 'additionalcreds', 'environment']);
// Where a token supplied from outside sits (external.value, external.values[].value.val, authTokens).
const TOKEN_HOLDERS = new Set(['external', 'authtokens']);
// Headers that carry credentials, when a name/value pair (or a replacer rule) sets them.
const CREDENTIAL_HEADER = /^\s*(authorization|proxy-authorization|cookie|x-api-key|api-key|x-auth-token)\s*:?/i;

/** Only `${VAR}` references: they name where the secret is, not the secret. */
const onlyReferences = (value: string) => /^(\$\{[A-Za-z_][A-Za-z0-9_]*\})+$/.test(value);

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every string under `value`, redacted (references kept). */
function redactAll(value: unknown): unknown {
  if (typeof value === 'string') return onlyReferences(value) ? value : REDACTED;
  if (Array.isArray(value)) return value.map(redactAll);
  if (isNode(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactAll(item)]));
  return value;
}

/** A copy of the configuration with its credentials redacted; the rest as it was. */
export function redactCredentials<T>(value: T): T {
  return redactNode(value) as T;
}

function redactNode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactNode);
  if (!isNode(value)) return value;
  const pairName = [value.name, value.matchString].find((name) => typeof name === 'string') as string | undefined;
  const headerPair = pairName !== undefined && CREDENTIAL_HEADER.test(pairName);
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      const field = key.toLowerCase();
      if (SECRET_MAPS.has(field) || TOKEN_HOLDERS.has(field)) return [key, redactTokens(field, item)];
      if (typeof item === 'string' && SECRET_FIELDS.has(field)) return [key, redactAll(item)];
      if (headerPair && ['val', 'value', 'replacement'].includes(field)) return [key, redactAll(item)];
      return [key, redactNode(item)];
    }),
  );
}

// A secret map: all of it. A token holder: its values (external.value, values[].value.val), not its types.
function redactTokens(field: string, item: unknown): unknown {
  if (SECRET_MAPS.has(field)) return redactAll(item);
  const holder = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(holder);
    if (!isNode(node)) return node;
    return Object.fromEntries(
      Object.entries(node).map(([key, inner]) => [
        key,
        ['value', 'val', 'values'].includes(key)
          ? isNode(inner) || Array.isArray(inner)
            ? holder(inner)
            : redactAll(inner)
          : inner,
      ]),
    );
  };
  return holder(item);
}
