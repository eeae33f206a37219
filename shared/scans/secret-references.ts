import { badRequest } from '../errors.ts';
import { parseBoundedYaml } from '../input/documents.ts';
import { SCAN_CONFIG_LIMITS } from '../limits.ts';
import type { TransactItem } from '../db/transactions.ts';
import { MAX_SCAN_SECRET_NAME, MAX_SCAN_SECRETS, MAX_SCAN_SECRET_VALUE } from './inputs.ts';
import { REDACTED, mapCredentials } from './redaction.ts';
import { scanSecretPut, scanSecretsOf, type SecretOwner } from './secret-store.ts';

// A configuration saved or sent with a literal credential (docs/HOSTED-SCANS.md, "Scan secrets"): the credentials
// redaction.ts finds move into the owner's scan secrets, and the configuration keeps a `${NAME}` reference to each.
// A text that already holds a reference stays as it is (a reference inside a secret's value would not resolve); reads
// still redact it.

type Path = readonly (string | number)[];

/** A literal credential found: where it is, the secret it moves to, its value. */
export interface MovedSecret {
  path: Path;
  name: string;
  value: string;
}

const snake = (segment: string | number) =>
  String(segment)
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();

/**
 * Where a credential is, for its secret's name: the primary user's without `app.authentication`; another user's
 * (`hawk.authorization.users[i].authentication`, docs/SCANNER-AUTH.md, Authorization testing) as `user.<its name>`.
 */
function segmentsOf(path: Path, conf: unknown): Path {
  const [hawk, authorization, users, index, authentication] = path;
  if (
    hawk === 'hawk' &&
    authorization === 'authorization' &&
    users === 'users' &&
    authentication === 'authentication'
  ) {
    const user = (conf as { hawk: { authorization: { users: { name?: unknown }[] } } }).hawk.authorization.users[
      index as number
    ];
    return ['user', typeof user?.name === 'string' ? user.name : index, ...path.slice(5)];
  }
  return path.filter((segment, at) => !(at < 2 && ['app', 'authentication'].includes(String(segment))));
}

/**
 * The secret's name for a credential at `path`: app.authentication.usernamePassword.scanPassword ->
 * USERNAME_PASSWORD_SCAN_PASSWORD, with a suffix (_2, ...) past names taken in this configuration, or held in
 * `existing` with another value.
 */
function nameFor(
  path: Path,
  conf: unknown,
  taken: Set<string>,
  value: string,
  existing?: ReadonlyMap<string, string>,
): string {
  const segments = segmentsOf(path, conf);
  const base = `${/^[0-9]/.test(String(segments[0] ?? '')) ? 'S_' : ''}${segments.map(snake).join('_')}`
    .replace(/_+/g, '_')
    .slice(0, MAX_SCAN_SECRET_NAME - 4);
  const free = (name: string) => !taken.has(name) && (existing?.get(name) ?? value) === value;
  let name = base || 'SCAN_SECRET';
  for (let n = 2; !free(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** A literal credential: a value a configuration keeps in place of a reference (neither empty nor the read marker). */
const isLiteral = (text: string) => !!text && !text.includes('${') && text !== REDACTED;

/** Where the configuration holds literal credentials (`app.authentication.usernamePassword.scanPassword`, ...). */
export function literalCredentialPaths(conf: unknown): string[] {
  const paths: string[] = [];
  mapCredentials(conf, (text, path) => {
    if (isLiteral(text)) paths.push(path.join('.'));
    return text;
  });
  return paths;
}

/**
 * The configuration with its literal credentials replaced by references, and what moved. With `existing` (the
 * owner's secrets, by name: a migration's, where configurations saved before share names), a credential reuses the
 * secret holding its value and never replaces one holding another.
 */
export function withSecretReferences<T>(
  conf: T,
  existing?: ReadonlyMap<string, string>,
): { conf: T; moved: MovedSecret[] } {
  const moved: MovedSecret[] = [];
  const taken = new Set<string>();
  const rewritten = mapCredentials(conf, (text, path) => {
    if (!isLiteral(text)) return text;
    if (text.length > MAX_SCAN_SECRET_VALUE)
      throw badRequest(`${path.join('.')}: a credential must be at most ${MAX_SCAN_SECRET_VALUE} characters`);
    const name = nameFor(path, conf, taken, text, existing);
    moved.push({ path, name, value: text });
    return `\${${name}}`;
  });
  return { conf: rewritten, moved };
}

/**
 * A YAML configuration's text with its literal credentials replaced by references, edited in place (its comments
 * and layout kept); the text as it was when nothing moved.
 */
export function textWithSecretReferences(
  text: string,
  parsed: unknown,
  existing?: ReadonlyMap<string, string>,
): { text: string; moved: MovedSecret[] } {
  const { moved } = withSecretReferences(parsed, existing);
  if (!moved.length) return { text, moved };
  const document = parseBoundedYaml(text, SCAN_CONFIG_LIMITS);
  for (const secret of moved) document.setIn(secret.path, `\${${secret.name}}`);
  return { text: document.toString(), moved };
}

/** The writes storing the moved credentials as the owner's secrets (400 past the owner's limit). */
export async function movedSecretWrites(
  owner: SecretOwner,
  moved: readonly MovedSecret[],
  userId: string,
): Promise<TransactItem[]> {
  if (!moved.length) return [];
  const existing = new Set((await scanSecretsOf(owner)).map((secret) => secret.name));
  const added = moved.filter((secret) => !existing.has(secret.name)).length;
  if (existing.size + added > MAX_SCAN_SECRETS)
    throw badRequest(
      `the configuration's ${moved.length} credentials would move into the scan secrets, which hold at most ${MAX_SCAN_SECRETS}: remove some, or reference existing ones as \${NAME}`,
    );
  return Promise.all(moved.map((secret) => scanSecretPut(owner, secret.name, secret.value, userId)));
}
