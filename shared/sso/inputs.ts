import * as z from 'zod/mini';
import { uuidSchema } from '../lists.ts';
import { displayableText } from '../input/names.ts';
import { SSO_ROLES } from '../identity/model.ts';

// Request inputs of the single sign-on operations (docs/IDENTITY.md "Single sign-on"). Kept free of storage imports
// so the route table stays light.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

export const MAX_SSO_MAPPINGS = 100;
/** The callback page's query string (code, state, iss...): generous for any provider, bounded all the same. */
export const MAX_CALLBACK_QUERY = 4096;

const urlSchema = () =>
  z.string().check(
    z.trim(),
    z.maxLength(2048, 'must be at most 2048 characters'),
    z.refine((raw) => {
      try {
        const url = new URL(raw);
        return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
      } catch {
        return false;
      }
    }, 'must be an absolute http or https URL without a user name or password'),
  );

const textSchema = (max: number) =>
  z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(max), displayableText());

const roleSchema = () => z.enum(SSO_ROLES, { error: `must be one of ${SSO_ROLES.join(', ')}` });

const domainSchema = () =>
  z.pipe(
    z
      .string()
      .check(
        z.trim(),
        z.maxLength(253),
        z.regex(/^(?!-)[A-Za-z0-9-]{1,63}(\.(?!-)[A-Za-z0-9-]{1,63})+$/, 'must be a domain name such as example.com'),
      ),
    z.transform((domain) => domain.toLowerCase()),
  );

/** PUT /api/v1/org/{orgId}/sso (updateSsoProvider). */
export const ssoProviderBody = schema(() =>
  z.strictObject({
    issuer: urlSchema(),
    clientId: textSchema(255),
    /** Required when the organization has no provider yet; absent: the stored secret is kept. */
    clientSecret: z.optional(textSchema(1024)),
    redirectUri: urlSchema(),
    scopes: z.optional(
      z.array(z.string().check(z.regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,64}$/, 'must be an OAuth scope token'))).check(
        z.maxLength(20, 'must have at most 20 scopes'),
        z.refine((scopes) => scopes.includes('openid'), 'must include openid'),
      ),
    ),
    groupsClaim: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_:./-]{1,128}$/, 'must be a claim name'))),
    allowedEmailDomains: z.optional(z.array(domainSchema()).check(z.maxLength(MAX_SSO_MAPPINGS))),
    defaultRole: z.optional(roleSchema()),
    groupRoles: z.optional(
      z
        .array(z.strictObject({ group: textSchema(255), role: roleSchema() }))
        .check(z.maxLength(MAX_SSO_MAPPINGS, `must have at most ${MAX_SSO_MAPPINGS} entries`)),
    ),
    groupTeams: z.optional(
      z
        .array(z.strictObject({ group: textSchema(255), teamId: uuidSchema() }))
        .check(z.maxLength(MAX_SSO_MAPPINGS, `must have at most ${MAX_SSO_MAPPINGS} entries`)),
    ),
    enabled: z.optional(z.boolean()),
  }),
);
export type SsoProviderBody = z.output<typeof ssoProviderBody>;

/** POST /api/v1/auth/sso/start (startSsoSignIn). */
export const ssoStartBody = schema(() => z.strictObject({ organizationId: uuidSchema() }));

/** POST /api/v1/auth/sso/callback (completeSsoSignIn). */
export const ssoCallbackBody = schema(() =>
  z.strictObject({
    query: z
      .string()
      .check(z.minLength(1, 'must not be empty'), z.maxLength(MAX_CALLBACK_QUERY, 'must be at most 4096 characters')),
    binding: z.string().check(z.regex(/^[A-Za-z0-9_-]{43}$/, 'must be the binding the start answered')),
  }),
);

/** POST /api/v1/auth/sso/link (confirmSsoLink). */
export const ssoLinkBody = schema(() =>
  z.strictObject({
    ticket: z
      .string()
      .check(z.regex(/^[A-Za-z0-9_-]{1,4096}\.[A-Za-z0-9_-]{43}$/, 'must be the linkTicket a sign-in answered')),
  }),
);
