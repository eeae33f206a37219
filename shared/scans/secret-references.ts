import { badRequest, conflict } from '../errors.ts';
import { conditionFailed } from '../db/items.ts';
import { parseBoundedYaml } from '../input/documents.ts';
import { SCAN_CONFIG_LIMITS } from '../limits.ts';
import type { TransactItem } from '../db/transactions.ts';
import { MAX_SCAN_SECRET_NAME, MAX_SCAN_SECRETS, MAX_SCAN_SECRET_VALUE } from './inputs.ts';
import { REDACTED, mapCredentials } from './redaction.ts';
import {
  heldScanSecrets,
  scanSecretAdd,
  scanSecretUnchanged,
  type HeldSecret,
  type SecretOwner,
} from './secret-store.ts';

// A configuration saved or sent with a literal credential (docs/HOSTED-SCANS.md, "Scan secrets"): the credentials
// redaction.ts finds move into the owner's scan secrets, and the configuration keeps a `${NAME}` reference to each.
// A secret's name is never reused for another value: a credential reuses the owner's secret holding its value, or
// takes a free name, and its write is conditioned on that. A text of references only stays as it is; one mixing
// literal text with a reference (`Bearer abc${X}`, `${X:default}`) is refused (a reference inside a secret's value
// would not resolve), but an authorization scheme before references (`Bearer ${TOKEN}`) is no secret.

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
  existing?: ReadonlyMap<string, HeldSecret>,
): string {
  const segments = segmentsOf(path, conf);
  const base = `${/^[0-9]/.test(String(segments[0] ?? '')) ? 'S_' : ''}${segments.map(snake).join('_')}`
    .replace(/_+/g, '_')
    .slice(0, MAX_SCAN_SECRET_NAME - 4);
  const free = (name: string) => !taken.has(name) && (existing?.get(name)?.value ?? value) === value;
  let name = base || 'SCAN_SECRET';
  for (let n = 2; !free(name); n++) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/** References only, after an optional authorization scheme (`${TOKEN}`, `Bearer ${TOKEN}`): nothing to move. */
const REFERENCES_ONLY = /^(?:[A-Za-z][A-Za-z0-9._~+-]*[ \t]+)?(?:\$\{[A-Za-z_][A-Za-z0-9_]*\})+$/;

/** What a credential's text holds: nothing to move, a literal credential, or literal text mixed with references. */
function credentialKind(text: string): 'none' | 'literal' | 'mixed' {
  if (!text || text === REDACTED || REFERENCES_ONLY.test(text)) return 'none';
  return text.includes('${') ? 'mixed' : 'literal';
}

/** Where the configuration holds literal credentials, mixed with references or not (`app.authentication...`). */
export function literalCredentialPaths(conf: unknown): string[] {
  const paths: string[] = [];
  mapCredentials(conf, (text, path) => {
    if (credentialKind(text) !== 'none') paths.push(path.join('.'));
    return text;
  });
  return paths;
}

/**
 * The configuration with its literal credentials replaced by references, and what moved. With `existing` (the
 * owner's secrets, by name), a credential reuses the secret holding its value and never replaces one holding another.
 * A credential mixing literal text with a reference answers 400 naming it; a migration (`keepMixed`), which cannot
 * refuse, leaves it (reads redact it, downloads refuse it).
 */
export function withSecretReferences<T>(
  conf: T,
  existing?: ReadonlyMap<string, HeldSecret>,
  keepMixed = false,
): { conf: T; moved: MovedSecret[] } {
  const moved: MovedSecret[] = [];
  const taken = new Set<string>();
  const rewritten = mapCredentials(conf, (text, path) => {
    const kind = credentialKind(text);
    if (kind === 'none' || (kind === 'mixed' && keepMixed)) return text;
    if (kind === 'mixed')
      throw badRequest(
        `${path.join('.')}: a credential mixes literal text with a \${NAME} reference (or a default); put the whole value in a scan secret and reference it alone`,
      );
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
  existing?: ReadonlyMap<string, HeldSecret>,
  keepMixed = false,
): { text: string; moved: MovedSecret[] } {
  const { moved } = withSecretReferences(parsed, existing, keepMixed);
  if (!moved.length) return { text, moved };
  const document = parseBoundedYaml(text, SCAN_CONFIG_LIMITS);
  for (const secret of moved) document.setIn(secret.path, `\${${secret.name}}`);
  return { text: document.toString(), moved };
}

/** The owner's secrets a save's credentials reuse or avoid: none read when the configuration holds no literal one. */
export async function secretsHeldFor(owner: SecretOwner, conf: unknown): Promise<Map<string, HeldSecret>> {
  return literalCredentialPaths(conf).length ? heldScanSecrets(owner) : new Map();
}

/**
 * The writes storing the moved credentials as the owner's secrets (400 past the owner's limit), named with `held`
 * (secretsHeldFor): a new secret is written only if its name is still free, a reused one is checked unchanged; either
 * fails the save's transaction with `secretTaken` (secretRaceConflict).
 */
export async function movedSecretWrites(
  owner: SecretOwner,
  moved: readonly MovedSecret[],
  userId: string,
  held: ReadonlyMap<string, HeldSecret>,
): Promise<TransactItem[]> {
  if (!moved.length) return [];
  const added = moved.filter((secret) => !held.has(secret.name));
  if (held.size + added.length > MAX_SCAN_SECRETS)
    throw badRequest(
      `the configuration's ${moved.length} credentials would move into the scan secrets, which hold at most ${MAX_SCAN_SECRETS}: remove some, or reference existing ones as \${NAME}`,
    );
  return Promise.all(
    moved.map((secret) => {
      const reused = held.get(secret.name);
      return reused
        ? scanSecretUnchanged(owner, secret.name, reused)
        : scanSecretAdd(owner, secret.name, secret.value, userId);
    }),
  );
}

/** A save whose moved credentials' names were taken or changed meanwhile (`secretTaken`): 409, to send again. */
export function secretRaceConflict(error: unknown): void {
  if (conditionFailed(error, 'secretTaken'))
    throw conflict('a scan secret the configuration moves into was set meanwhile; send it again');
}
