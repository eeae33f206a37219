import * as z from 'zod/mini';
import { caseInsensitiveEnum, enumListParam, pageSizeParam, pageTokenParam, uuidSchema } from '../lists.ts';
import { displayableText } from '../input/names.ts';
import { PERMISSIONS } from '../context/permissions.ts';
import { ROLE_NAMES } from '../context/roles.ts';

// Request inputs of the identity operations. Kept free of storage imports so the route table stays light.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** GET /api/v1/org/{orgId}/members */
export const listMembersQuery = schema(() =>
  z.object({
    pageSize: pageSizeParam(),
    pageToken: pageTokenParam(),
    sortField: z.optional(z.enum(['id'], { error: 'must be id' })),
    sortDir: caseInsensitiveEnum(['asc', 'desc']),
    pattern: z
      .optional(z.string().check(z.maxLength(256, 'must be at most 256 characters')))
      .check(z.describe('Case-insensitive part of the name or e-mail.')),
    roles: enumListParam(['OWNER', 'ADMIN', 'MEMBER']),
  }),
);
export type ListMembersQuery = z.output<typeof listMembersQuery>;

/** API key names: what the key is for, shown in the key lists. */
const keyNameSchema = () =>
  z
    .string()
    .check(
      z.trim(),
      z.minLength(1, 'must not be empty'),
      z.maxLength(100, 'must be at most 100 characters'),
      displayableText(),
    );

/** An expiry: an ISO 8601 date-time or milliseconds since the epoch; null or absent: none given. */
const expiresAtSchema = () =>
  z.pipe(
    z.nullish(
      z.union([
        z
          .string()
          .check(
            z.maxLength(40, 'must be an ISO 8601 date-time'),
            z.regex(/^\d{4}-\d\d-\d\dT/, 'must be an ISO 8601 date-time'),
          ),
        z.number().check(z.int('must be milliseconds since the epoch'), z.positive('must be in the future')),
      ]),
    ),
    z.transform((value, ctx) => {
      if (value === undefined || value === null) return undefined;
      const ms = typeof value === 'number' ? value : Date.parse(value);
      if (!Number.isFinite(ms)) {
        ctx.issues.push({ code: 'custom', message: 'must be an ISO 8601 date-time', input: value });
        return z.NEVER;
      }
      return ms;
    }),
  );

// Security-sensitive bodies (keys, roles, invitations) are strict: an unknown field, such as a misspelt
// `permisions` that would otherwise leave a key unnarrowed, is refused (400 naming it) rather than ignored.

/** POST /api/v1/user/keys (createUserKey). */
export const createUserKeyBody = schema(() =>
  z.strictObject({
    name: keyNameSchema(),
    expiresAt: expiresAtSchema(),
    permissions: z.nullish(
      z
        .array(z.enum(PERMISSIONS, { error: `must be permission names: ${PERMISSIONS.join(', ')}` }))
        .check(z.minLength(1, 'must name at least one permission (leave it out for all of yours)')),
    ),
    applicationId: z.nullish(uuidSchema()),
  }),
);
export type CreateUserKeyBody = z.output<typeof createUserKeyBody>;

/** An API key's public id (`hawk.<keyId>.<secret>`): base64url. */
export const keyIdSchema = schema(() =>
  z.string().check(z.regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be an API key id (the part after "hawk.")')),
);

/** GET /api/v1/org/{orgId}/keys (listOrganizationKeys): pages of members, with their keys. */
export const listOrganizationKeysQuery = schema(() =>
  z.object({
    pageSize: pageSizeParam(50).check(z.refine((size) => size <= 100, 'must be at most 100')),
    pageToken: pageTokenParam(),
  }),
);
export type ListOrganizationKeysQuery = z.output<typeof listOrganizationKeysQuery>;

// ---- Members and roles (docs/IDENTITY.md "Members and roles")

const roleNameSchema = () => z.enum(ROLE_NAMES, { error: `must be one of ${ROLE_NAMES.join(', ')}` });
const permissionSetSchema = () =>
  z
    .array(z.enum(PERMISSIONS, { error: `must be permission names: ${PERMISSIONS.join(', ')}` }))
    .check(
      z.minLength(1, 'must name at least one permission'),
      z.maxLength(PERMISSIONS.length * 2, `must name at most ${PERMISSIONS.length * 2} permissions`),
    );

/** A grant: a named role or a custom permission set, exactly one of them. */
const oneGrant = <T extends { role?: unknown; permissions?: unknown }>(value: T) =>
  (value.role === undefined || value.role === null) !== (value.permissions === undefined || value.permissions === null);
const ONE_GRANT = 'give either role (a named role) or permissions (a custom set), not both';

/** PUT /api/v1/org/{orgId}/members/{userId} (updateMember). */
export const updateMemberBody = schema(() =>
  z
    .strictObject({ role: z.nullish(roleNameSchema()), permissions: z.nullish(permissionSetSchema()) })
    .check(z.refine(oneGrant, ONE_GRANT)),
);
export type UpdateMemberBody = z.output<typeof updateMemberBody>;

/** An e-mail address as invitations name their invitee. */
const emailSchema = () =>
  z
    .string()
    .check(
      z.trim(),
      z.maxLength(254, 'must be at most 254 characters'),
      z.regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an e-mail address'),
      displayableText(),
    );

/** POST /api/v1/org/{orgId}/invitations (createInvitation): role defaults to MEMBER. */
export const createInvitationBody = schema(() =>
  z
    .strictObject({
      email: emailSchema(),
      role: z.nullish(roleNameSchema()),
      permissions: z.nullish(permissionSetSchema()),
      expiresAt: expiresAtSchema(),
    })
    .check(z.refine((value) => !(value.role && value.permissions), ONE_GRANT)),
);
export type CreateInvitationBody = z.output<typeof createInvitationBody>;

const invitationTokenSchema = () =>
  z
    .string()
    .check(
      z.maxLength(200, 'must be an invitation token'),
      z.regex(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/, 'must be an invitation token (as createInvitation answered it)'),
    );

/** POST /api/v1/invitations/accept (acceptInvitation): a new account, named fullName. */
export const acceptInvitationBody = schema(() =>
  z.strictObject({
    token: invitationTokenSchema(),
    fullName: z.nullish(
      z
        .string()
        .check(
          z.trim(),
          z.minLength(1, 'must not be empty'),
          z.maxLength(100, 'must be at most 100 characters'),
          displayableText(),
        ),
    ),
  }),
);
export type AcceptInvitationBody = z.output<typeof acceptInvitationBody>;

/** POST /api/v1/user/invitations/accept (acceptInvitationAsUser): the signed-in user's own account joins. */
export const acceptInvitationAsUserBody = schema(() => z.strictObject({ token: invitationTokenSchema() }));
export type AcceptInvitationAsUserBody = z.output<typeof acceptInvitationAsUserBody>;

/** GET /api/v1/org/{orgId}/roles (listMemberRoles): pages of members. */
export const listMemberRolesQuery = schema(() =>
  z.object({
    pageSize: pageSizeParam(100).check(z.refine((size) => size <= 100, 'must be at most 100')),
    pageToken: pageTokenParam(),
  }),
);
export type ListMemberRolesQuery = z.output<typeof listMemberRolesQuery>;
