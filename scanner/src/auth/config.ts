// Loads the scanner's authentication config (docs/SCANNER-AUTH.md, Config): YAML files with root key `app`, `${VAR}` /
// `${VAR:default}` substitution from the environment (variables.ts says which), later files merged over earlier ones, then a strict
// schema plus cross-field rules. Every problem comes back as `{path, message}` with what to do about it;
// values are never echoed, because credentials usually live in these fields.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { patternProblem } from './patterns.ts';
import { agentVariables, localVariables, type VariableLookup } from './variables.ts';

export type ConfigError = { path: string; message: string };

type IssueInput = { input?: unknown };

// zod's `error` callback: distinguishes a missing field from a wrongly typed one.
const explain = (hint: string, invalid: string) => (issue: IssueInput) =>
  issue.input === undefined ? `required: ${hint}` : `${invalid}: ${hint}`;

const text = (hint: string) =>
  z.string({ error: explain(hint, 'must be a string (quote it in YAML)') }).min(1, `must not be empty: ${hint}`);

const pathOrUrl = (hint: string) =>
  text(hint).refine(
    (value) => value.startsWith('/') || /^https?:\/\//.test(value),
    `must start with / (a path on app.host) or be a full http(s) URL: ${hint}`,
  );

const regex = (hint: string) =>
  text(hint).refine(
    (value) => patternProblem(value) === undefined,
    `is not a valid regular expression (JavaScript syntax without lookarounds or backreferences): ${hint}`,
  );

const section = <Shape extends z.ZodRawShape>(shape: Shape, hint: string) =>
  z.strictObject(shape, { error: explain(hint, 'must be a mapping') });

const oneOf = <const Values extends readonly [string, ...string[]]>(values: Values, hint: string) =>
  z.enum(values, { error: explain(hint, `must be one of ${values.join(', ')}`) });

const usernamePasswordSchema = section(
  {
    type: oneOf(['FORM', 'JSON'], 'FORM (form-encoded body) or JSON (JSON body)'),
    loginPath: pathOrUrl('the path or full URL the credentials are POSTed to, e.g. /login'),
    loginPagePath: pathOrUrl('the page holding the login form and its anti-forgery field, e.g. /login').optional(),
    usernameField: text('name of the user-name field in the login body, e.g. username'),
    passwordField: text('name of the password field in the login body, e.g. password'),
    scanUsername: text('the user to log in as, usually "${HAWK_SCAN_USERNAME}"'),
    scanPassword: text('the password, usually "${HAWK_SCAN_PASSWORD}" so it stays out of the file'),
    otherParams: z
      .array(
        section(
          {
            name: text('the extra field name'),
            val: z.string({ error: explain('the extra field value', 'must be a string (quote it in YAML)') }),
          },
          'a {name, val} pair',
        ),
        { error: explain('extra login fields', 'must be a list of {name, val} pairs') },
      )
      .optional(),
  },
  'FORM or JSON login',
);

const authenticationSchema = section(
  {
    loggedInIndicator: regex('a regex matching responses of a logged-in session').optional(),
    loggedOutIndicator: regex('a regex matching responses of an expired session, e.g. "HTTP/1.1 401"').optional(),
    usernamePassword: usernamePasswordSchema.optional(),
    external: section(
      {
        type: oneOf(['TOKEN'], 'TOKEN'),
        value: text('the token, usually "${HAWK_SCAN_AUTH_TOKEN}"'),
      },
      'a token supplied from outside',
    ).optional(),
    cookieAuthorization: section(
      {
        cookieNames: z
          .array(text('a session cookie name'), {
            error: explain('the session cookie names', 'must be a list of cookie names'),
          })
          .optional(),
      },
      'the session cookies',
    ).optional(),
    tokenExtraction: section(
      {
        type: oneOf(
          ['TOKEN_PATH', 'HEADER'],
          'TOKEN_PATH (dot path into the JSON login response) or HEADER (response header name)',
        ),
        value: text('where the token is, e.g. data.auth.token'),
      },
      'where the login response carries the token',
    ).optional(),
    tokenAuthorization: section(
      {
        type: oneOf(['HEADER'], 'HEADER'),
        value: text('the header carrying the token, e.g. Authorization'),
        tokenType: text('the prefix placed before the token, e.g. Bearer').optional(),
      },
      'how the token is sent',
    ).optional(),
    testPath: section(
      {
        path: pathOrUrl('a protected page that answers differently when logged in, e.g. /profile'),
        type: oneOf(['HEADER', 'BODY'], 'HEADER (status line and headers) or BODY').optional(),
        success: regex('a regex that matches only when logged in').optional(),
        fail: regex('a regex that matches only when not logged in').optional(),
        requestMethod: oneOf(['GET', 'POST', 'PUT'], 'GET, POST or PUT').optional(),
        requestBody: z.string({ error: explain('the request body', 'must be a string') }).optional(),
      },
      'the request that verifies the login',
    ).optional(),
  },
  'how the scanner logs in: a credential source and an authorization block',
);

// Our extension of the scan configuration (docs/SCANNER-AUTH.md, Authorization testing): the other users the agent
// replays the primary user's requests as, after its crawl.
const authorizationSchema = section(
  {
    users: z
      .array(
        section(
          {
            name: z
              .string({ error: explain("the user's name, e.g. bob", 'must be a string') })
              .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be 1 to 64 letters, digits, _ . or -: the user's name, e.g. bob"),
            authentication: authenticationSchema,
          },
          'a user: {name, authentication} (the same block as app.authentication)',
        ),
        { error: explain('the other users, each {name, authentication}', 'must be a list of users') },
      )
      .min(1, 'must name at least one user besides app.authentication')
      .max(10, 'must name at most 10 users'),
    excludePaths: z
      .array(regex('a regex of paths never replayed, e.g. /logout'), {
        error: explain('paths never replayed', 'must be a list of regexes'),
      })
      .optional(),
    testUnauthenticated: z
      .boolean({ error: explain('whether access without a session is reported', 'must be true or false') })
      .optional(),
    replayUnsafeMethods: z
      .boolean({ error: explain('whether POST, PUT, PATCH and DELETE are replayed', 'must be true or false') })
      .optional(),
    maxRequests: z
      .int({ error: explain('the most requests the phase sends', 'must be a whole number') })
      .min(1, 'must be at least 1')
      .max(100_000, 'must be at most 100000')
      .optional(),
  },
  'authorization testing: the other users and what may be replayed',
);

// A real stackhawk.yml carries the scanner's other settings beside the login ones. They are the scanner's to
// validate, so they are accepted as they are; any other key is still refused as a likely typo.
const ROOT_KEYS_OF_THE_SCANNER = ['hawkAddOn', 'tags'] as const;
const APP_KEYS_OF_THE_SCANNER = [
  'openApiConf',
  'graphqlConf',
  'soapConf',
  'grpcConf',
  'includePaths',
  'excludePaths',
  'inputVectors',
  'autoPolicy',
  'autoInputVectors',
  'sessionTokens',
  'waitForAppTarget',
  'scanPolicy',
] as const;
const otherScannerSettings = (names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, z.unknown().optional()]));

const configSchema = section(
  {
    app: section(
      {
        applicationId: z.guid({ error: explain('the application id (a UUID) from the platform', 'must be a UUID') }),
        env: text('the environment name, e.g. Development'),
        host: z.url({
          protocol: /^https?$/,
          error: explain('the target base URL, e.g. http://localhost:3000', 'must be an http(s) URL'),
        }),
        antiCsrfParam: text(
          'the hidden form field carrying the anti-forgery token, e.g. authenticity_token',
        ).optional(),
        authentication: authenticationSchema,
        ...otherScannerSettings(APP_KEYS_OF_THE_SCANNER),
      },
      'the application settings',
    ),
    hawk: z
      .looseObject(
        { authorization: authorizationSchema.optional() },
        { error: explain('the scanner settings', 'must be a mapping') },
      )
      .optional(),
    ...otherScannerSettings(ROOT_KEYS_OF_THE_SCANNER),
  },
  'the root key must be app',
);

export type AuthConfig = z.infer<typeof configSchema>;
export type Authentication = AuthConfig['app']['authentication'];
export type TestPathConfig = NonNullable<Authentication['testPath']>;
export type AuthorizationConfig = z.infer<typeof authorizationSchema>;

/** The configuration as another user of `hawk.authorization` (its own `authentication`, the rest the same). */
export const configAs = (config: AuthConfig, user: AuthorizationConfig['users'][number]): AuthConfig => ({
  ...config,
  app: { ...config.app, authentication: user.authentication },
});

/**
 * Reads, substitutes, merges and validates config files (later files win): the operator's own files, with its own
 * environment (`validate`).
 */
export function loadConfig(
  files: string[],
  env: NodeJS.ProcessEnv = process.env,
): { config: AuthConfig; errors?: undefined } | { config?: undefined; errors: ConfigError[] } {
  const fileErrors: ConfigError[] = [];
  const envErrors: ConfigError[] = [];
  const variables = localVariables(env);
  const documents = files.map((file) => substituteEnv(readDocument(file, fileErrors), [], file, variables, envErrors));
  // Without every file the merged config is incomplete, and its errors would mislead.
  if (fileErrors.length) return { errors: fileErrors };
  const validated = validateConfig(documents.reduce(deepMerge, {}));
  const errors = [...envErrors, ...(validated.errors ?? [])];
  return errors.length ? { errors } : validated;
}

/**
 * Reads a config from its text (a hosted scan's configuration), with `${VAR}` from `variables` (the agent's
 * environment, only what variables.ts allows: secrets never travel with the configuration) and `overrides` merged
 * over it (the scan's target as app.host).
 */
export function loadConfigText(
  text: string,
  overrides: Record<string, unknown>,
  variables: VariableLookup = agentVariables(),
): { config: AuthConfig; errors?: undefined } | { config?: undefined; errors: ConfigError[] } {
  let document: unknown;
  try {
    document = parseYaml(text) ?? {};
  } catch (err) {
    return { errors: [{ path: 'config', message: `invalid YAML: ${(err as Error).message.split('\n')[0]}` }] };
  }
  if (!isMapping(document))
    return { errors: [{ path: 'config', message: 'must be a YAML mapping with the root key app' }] };
  const envErrors: ConfigError[] = [];
  const substituted = substituteEnv(document, [], 'the scan configuration', variables, envErrors);
  const validated = validateConfig(deepMerge(substituted, overrides));
  const errors = [...envErrors, ...(validated.errors ?? [])];
  return errors.length ? { errors } : validated;
}

/** Validates an already merged config object. */
export function validateConfig(
  raw: unknown,
): { config: AuthConfig; errors?: undefined } | { config?: undefined; errors: ConfigError[] } {
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) return { errors: parsed.error.issues.flatMap(toConfigErrors) };
  const errors = combinationErrors(parsed.data);
  return errors.length ? { errors } : { config: parsed.data };
}

function readDocument(file: string, errors: ConfigError[]): unknown {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (err) {
    errors.push({
      path: file,
      message: `cannot read the file (${(err as NodeJS.ErrnoException).code}); check the path`,
    });
    return {};
  }
  let document: unknown;
  try {
    document = parseYaml(source) ?? {};
  } catch (err) {
    // Only the first line: the rest quotes the offending source line, which may hold a literal password.
    errors.push({ path: file, message: `invalid YAML: ${(err as Error).message.split('\n')[0].replace(/:$/, '')}` });
    return {};
  }
  if (!isMapping(document)) {
    errors.push({ path: file, message: 'the file must be a YAML mapping with the root key app' });
    return {};
  }
  return document;
}

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}/g;

// Substitutes in parsed values rather than in the YAML text, so a password containing `:` or `#` cannot
// change the document's structure.
// A refused variable is an error even with a default: the author meant to read it, and a silent default would hide
// why the login fails.
function substituteEnv(
  value: unknown,
  path: PropertyKey[],
  file: string,
  variables: VariableLookup,
  errors: ConfigError[],
): unknown {
  if (typeof value === 'string') {
    return value.replace(ENV_REFERENCE, (reference, name: string, fallback: string | undefined) => {
      const found = variables(name);
      if (found.refused === undefined && (found.value ?? fallback) !== undefined) return found.value ?? fallback!;
      errors.push({
        path: formatPath(path),
        message: `${found.refused ?? `environment variable ${name} ${found.unsetHint}`} (referenced in ${file})`,
      });
      return reference;
    });
  }
  if (Array.isArray(value))
    return value.map((item, index) => substituteEnv(item, [...path, index], file, variables, errors));
  if (isMapping(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substituteEnv(item, [...path, key], file, variables, errors)]),
    );
  }
  return value;
}

// Mappings merge key by key; lists and scalars from the later file replace the earlier value.
function deepMerge(base: unknown, override: unknown): unknown {
  if (!isMapping(base) || !isMapping(override)) return override;
  // A Map, then entries: a key such as __proto__ or constructor is a key like any other, never the prototype's.
  const merged = new Map(Object.entries(base));
  for (const [key, value] of Object.entries(override))
    merged.set(key, merged.has(key) ? deepMerge(merged.get(key), value) : value);
  return Object.fromEntries(merged);
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toConfigErrors(issue: z.core.$ZodIssue): ConfigError[] {
  if (issue.code !== 'unrecognized_keys') return [{ path: formatPath(issue.path), message: issue.message }];
  const allowed = allowedKeys(issue.path);
  return issue.keys.map((key) => {
    const likely = allowed.find((candidate) => candidate.toLowerCase() === key.toLowerCase());
    return {
      path: formatPath([...issue.path, key]),
      message: likely
        ? `unknown key; did you mean ${likely}?`
        : `unknown key; remove it or fix its spelling (allowed here: ${allowed.join(', ')})`,
    };
  });
}

function allowedKeys(path: PropertyKey[]): string[] {
  let schema: z.ZodType | undefined = configSchema;
  for (const key of path) {
    while (schema instanceof z.ZodOptional) schema = schema.unwrap() as z.ZodType;
    if (schema instanceof z.ZodObject) schema = schema.shape[key as string];
    else if (schema instanceof z.ZodArray) schema = schema.element as z.ZodType;
  }
  while (schema instanceof z.ZodOptional) schema = schema.unwrap() as z.ZodType;
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function formatPath(path: PropertyKey[]): string {
  return path.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)),
    '',
  );
}

// Rules spanning several keys; each one prevents a login that cannot work or a scan that would silently run
// unauthenticated.
function combinationErrors(config: AuthConfig): ConfigError[] {
  const errors = authenticationErrors(config.app.authentication, 'app.authentication');
  const users = config.hawk?.authorization?.users ?? [];
  users.forEach((user, i) => {
    const at = `hawk.authorization.users[${i}]`;
    errors.push(...authenticationErrors(user.authentication, `${at}.authentication`));
    if (users.findIndex((other) => other.name === user.name) < i)
      errors.push({ path: `${at}.name`, message: `another user is named ${user.name}: give each user its own name` });
  });
  return errors;
}

function authenticationErrors(auth: Authentication, at: string): ConfigError[] {
  const errors: ConfigError[] = [];
  const fail = (path: string, message: string) => errors.push({ path, message });
  const login = auth.usernamePassword;

  if (!login && !auth.external) {
    fail(
      at,
      'no credential source: add usernamePassword (FORM or JSON login) or external (a token supplied from outside)',
    );
  }
  if (login && auth.external) fail(`${at}.external`, 'use either usernamePassword or external, not both');

  if (!auth.cookieAuthorization && !auth.tokenAuthorization) {
    fail(
      at,
      'no cookieAuthorization or tokenAuthorization: the login would succeed but the scan would run unauthenticated; ' +
        'add cookieAuthorization.cookieNames (the session cookies) or tokenAuthorization (the header carrying the token)',
    );
  }
  if (auth.cookieAuthorization && auth.tokenAuthorization) {
    fail(`${at}.tokenAuthorization`, 'use either cookieAuthorization or tokenAuthorization, not both');
  }

  if (login && !auth.tokenExtraction && (login.type === 'JSON' || auth.tokenAuthorization)) {
    fail(
      `${at}.tokenExtraction`,
      `required with ${login.type === 'JSON' ? 'usernamePassword.type JSON' : 'tokenAuthorization'}: ` +
        'say where the login response carries the token, e.g. {type: TOKEN_PATH, value: data.token}',
    );
  }
  if (auth.tokenExtraction && auth.external) {
    fail(`${at}.tokenExtraction`, 'external tokens need no extraction (there is no login response); remove it');
  }
  if (auth.tokenExtraction && !auth.tokenAuthorization) {
    fail(
      `${at}.tokenAuthorization`,
      'required with tokenExtraction: say how the token is sent, e.g. {type: HEADER, value: Authorization, tokenType: Bearer}',
    );
  }
  if (auth.external && auth.cookieAuthorization && auth.cookieAuthorization.cookieNames?.length !== 1) {
    fail(
      `${at}.cookieAuthorization.cookieNames`,
      'with an external token, list exactly one cookie name: the cookie that carries the token',
    );
  }
  if (login?.type === 'JSON' && login.loginPagePath) {
    fail(`${at}.usernamePassword.loginPagePath`, 'only used by FORM login (to read the anti-forgery field); remove it');
  }

  const testPath = auth.testPath;
  if (testPath && !testPath.success && !testPath.fail) {
    fail(
      `${at}.testPath`,
      'add success (a regex matching only when logged in) or fail (a regex matching only when not)',
    );
  }
  if (testPath?.requestBody !== undefined && (testPath.requestMethod ?? 'GET') === 'GET') {
    fail(`${at}.testPath.requestBody`, 'a body needs requestMethod POST or PUT');
  }
  return errors;
}
