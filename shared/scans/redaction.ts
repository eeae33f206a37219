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
export const onlyReferences = (value: string) => /^(\$\{[A-Za-z_][A-Za-z0-9_]*\})+$/.test(value);

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What becomes of a credential's text, given where it is (its keys from the configuration's root). */
export type CredentialMap = (text: string, path: readonly (string | number)[]) => string;

/** A copy of the configuration with its credentials redacted; the rest as it was. */
export function redactCredentials<T>(value: T): T {
  return mapCredentials(value, (text) => (onlyReferences(text) ? text : REDACTED));
}

/** A copy of the configuration with every credential's text passed through `map`; the rest as it was. */
export function mapCredentials<T>(value: T, map: CredentialMap): T {
  return mapNode(value, [], map) as T;
}

type Path = readonly (string | number)[];

/** Every string under `value`, mapped. */
function mapAll(value: unknown, path: Path, map: CredentialMap): unknown {
  if (typeof value === 'string') return map(value, path);
  if (Array.isArray(value)) return value.map((item, index) => mapAll(item, [...path, index], map));
  if (isNode(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapAll(item, [...path, key], map)]));
  return value;
}

function mapNode(value: unknown, path: Path, map: CredentialMap): unknown {
  if (Array.isArray(value)) return value.map((item, index) => mapNode(item, [...path, index], map));
  if (!isNode(value)) return value;
  const pairName = [value.name, value.matchString].find((name) => typeof name === 'string') as string | undefined;
  const headerPair = pairName !== undefined && CREDENTIAL_HEADER.test(pairName);
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      const field = key.toLowerCase();
      const at = [...path, key];
      if (SECRET_MAPS.has(field)) return [key, mapAll(item, at, map)];
      if (TOKEN_HOLDERS.has(field)) return [key, mapTokens(item, at, map)];
      if (typeof item === 'string' && SECRET_FIELDS.has(field)) return [key, map(item, at)];
      if (headerPair && ['val', 'value', 'replacement'].includes(field)) return [key, mapAll(item, at, map)];
      return [key, mapNode(item, at, map)];
    }),
  );
}

// A token holder: its values (external.value, values[].value.val), not its types.
function mapTokens(node: unknown, path: Path, map: CredentialMap): unknown {
  if (Array.isArray(node)) return node.map((item, index) => mapTokens(item, [...path, index], map));
  if (!isNode(node)) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, inner]) => {
      if (!['value', 'val', 'values'].includes(key)) return [key, inner];
      const at = [...path, key];
      return [key, isNode(inner) || Array.isArray(inner) ? mapTokens(inner, at, map) : mapAll(inner, at, map)];
    }),
  );
}
