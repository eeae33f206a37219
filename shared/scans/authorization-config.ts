import { messageProblems } from '../proto/encoding.ts';

// `hawk.authorization` (docs/SCANNER-AUTH.md, Authorization testing): our extension of the scan configuration, the
// other users a hosted scan replays the primary user's requests as. HawkScan's configuration has no such block, so it
// is checked here, strictly, and the rest of the configuration against HawkScan's message as before. Each user's
// `authentication` is the same block as `app.authentication` (hawkscan.Authentication), and its credentials are
// redacted and moved to the scan secrets like the primary's (redaction.ts finds them anywhere).

const AUTHENTICATION_TYPE = 'hawkscan.Authentication';
const KEYS = ['users', 'excludePaths', 'testUnauthenticated', 'replayUnsafeMethods', 'maxRequests'];
const USER_KEYS = ['name', 'authentication'];
export const MAX_AUTHORIZATION_USERS = 10;
const USER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_PATTERN = 1024;

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The configuration's `hawk.authorization`, if it has one (any value: checked by authorizationProblems). */
const authorizationOf = (conf: unknown): unknown =>
  isNode(conf) && isNode(conf.hawk) ? conf.hawk.authorization : undefined;

/** The configuration without `hawk.authorization`, for the checks against HawkScan's own message. */
export function withoutAuthorization(conf: unknown): unknown {
  if (!isNode(conf) || !isNode(conf.hawk) || !('authorization' in conf.hawk)) return conf;
  const { authorization: _authorization, ...hawk } = conf.hawk;
  return { ...conf, hawk };
}

/** The problems of the configuration's `hawk.authorization`, each naming its path under `at`; none without one. */
export function authorizationProblems(conf: unknown, at: string): string[] {
  const block = authorizationOf(conf);
  if (block === undefined || block === null) return [];
  const where = `${at}.hawk.authorization`;
  if (!isNode(block)) return [`${where}: must be a mapping with users`];
  const problems = Object.keys(block)
    .filter((key) => !KEYS.includes(key))
    .map((key) => `${where}.${key}: unknown key (allowed: ${KEYS.join(', ')})`);
  if (!isNode(conf) || !isNode(conf.app) || conf.app.authentication === undefined)
    problems.push(`${where}: needs app.authentication, the primary user whose requests the other users replay`);
  problems.push(...usersProblems(block.users, `${where}.users`));
  for (const key of ['testUnauthenticated', 'replayUnsafeMethods'])
    if (block[key] !== undefined && typeof block[key] !== 'boolean')
      problems.push(`${where}.${key}: must be true or false`);
  const max = block.maxRequests;
  if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 1 && (max as number) <= 100_000))
    problems.push(`${where}.maxRequests: must be a whole number from 1 to 100000`);
  const paths = block.excludePaths;
  if (paths !== undefined) {
    if (!Array.isArray(paths)) problems.push(`${where}.excludePaths: must be a list of regexes`);
    else paths.forEach((path, i) => problems.push(...patternProblems(path, `${where}.excludePaths[${i}]`)));
  }
  return problems;
}

function usersProblems(users: unknown, where: string): string[] {
  if (!Array.isArray(users) || users.length === 0)
    return [`${where}: required: a list of at least one user, each {name, authentication}`];
  if (users.length > MAX_AUTHORIZATION_USERS) return [`${where}: must name at most ${MAX_AUTHORIZATION_USERS} users`];
  const problems: string[] = [];
  const names = new Set<string>();
  users.forEach((user, i) => {
    const at = `${where}[${i}]`;
    if (!isNode(user)) return void problems.push(`${at}: must be a mapping {name, authentication}`);
    for (const key of Object.keys(user).filter((k) => !USER_KEYS.includes(k)))
      problems.push(`${at}.${key}: unknown key (allowed: ${USER_KEYS.join(', ')})`);
    if (typeof user.name !== 'string' || !USER_NAME.test(user.name))
      problems.push(`${at}.name: must be 1 to 64 letters, digits, _ . or -`);
    else if (names.has(user.name)) problems.push(`${at}.name: another user is named ${user.name}`);
    else names.add(user.name);
    if (!isNode(user.authentication))
      problems.push(`${at}.authentication: required: the same block as app.authentication`);
    else problems.push(...messageProblems(AUTHENTICATION_TYPE, user.authentication, `${at}.authentication`));
  });
  return problems;
}

function patternProblems(pattern: unknown, where: string): string[] {
  if (typeof pattern !== 'string' || !pattern || pattern.length > MAX_PATTERN)
    return [`${where}: must be a regex of 1 to ${MAX_PATTERN} characters`];
  try {
    new RegExp(pattern);
    return [];
  } catch {
    return [`${where}: is not a valid regular expression`];
  }
}
