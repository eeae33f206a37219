import * as z from 'zod/mini';
import { uuidSchema } from '../lists.ts';
import { displayableText } from '../input/names.ts';
import { WEBHOOK_FORMATS, WEBHOOK_EVENTS } from './model.ts';

// Request inputs of the webhook operations (docs/WEBHOOKS.md). Kept free of storage imports so the route table
// stays light.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

export const MAX_WEBHOOKS_PER_ORG = 25;
export const MAX_URL_LENGTH = 2048;

/** Headers a custom header may not replace: the request's own framing and the signature. */
const RESERVED_HEADERS = /^(host|content-.*|transfer-encoding|connection|user-agent|x-hawk-.*)$/i;

const eventsSchema = () =>
  z.pipe(
    z
      .array(z.enum(WEBHOOK_EVENTS, { error: `must be one of ${WEBHOOK_EVENTS.join(', ')}` }))
      .check(z.minLength(1, 'must name at least one event'), z.maxLength(WEBHOOK_EVENTS.length * 2)),
    z.transform((events) => [...new Set(events)].sort()),
  );

const urlSchema = () =>
  z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(MAX_URL_LENGTH), displayableText());

const customHeaderSchema = () =>
  z.strictObject({
    name: z.string().check(
      z.regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, 'must be an HTTP header name of at most 64 characters'),
      z.refine(
        (name) => !RESERVED_HEADERS.test(name),
        'must not be Host, Content-*, Transfer-Encoding, Connection, User-Agent or X-Hawk-*',
      ),
    ),
    value: z
      .string()
      .check(
        z.minLength(1, 'must not be empty'),
        z.maxLength(1024),
        z.regex(/^[\x20-\x7e]*$/, 'must be printable ASCII without line breaks'),
      ),
  });

const idList = () =>
  z.pipe(
    z.array(uuidSchema()).check(z.maxLength(100, 'must have at most 100 ids')),
    z.transform((ids) => [...new Set(ids)].sort()),
  );

const nameSchema = () => z.string().check(z.trim(), z.maxLength(255), displayableText());

// Webhook bodies are strict: an unknown field (a misspelt teamId or applicationIds, which would widen what a
// receiver gets) is refused (400 naming it) rather than ignored.

/** POST /api/v1/org/{orgId}/webhooks. */
export const createWebhookBody = schema(() =>
  z.strictObject({
    url: urlSchema(),
    events: eventsSchema(),
    name: z.optional(nameSchema()),
    format: z.optional(z.enum(WEBHOOK_FORMATS, { error: `must be one of ${WEBHOOK_FORMATS.join(', ')}` })),
    applicationIds: z.optional(idList()),
    teamId: z.optional(uuidSchema()),
    enabled: z.optional(z.boolean()),
    customHeader: z.optional(customHeaderSchema()),
  }),
);
export type CreateWebhookBody = z.output<typeof createWebhookBody>;

/** PUT /api/v1/org/{orgId}/webhooks/{webhookId}: the fields given change; null clears a scope or the custom header. */
export const updateWebhookBody = schema(() =>
  z.strictObject({
    url: z.optional(urlSchema()),
    events: z.optional(eventsSchema()),
    name: z.optional(nameSchema()),
    format: z.optional(z.enum(WEBHOOK_FORMATS, { error: `must be one of ${WEBHOOK_FORMATS.join(', ')}` })),
    applicationIds: z.nullish(idList()),
    teamId: z.nullish(uuidSchema()),
    enabled: z.optional(z.boolean()),
    customHeader: z.nullish(customHeaderSchema()),
    rotateSecret: z.optional(z.boolean()),
  }),
);
export type UpdateWebhookBody = z.output<typeof updateWebhookBody>;

/** PUT /api/v1/org/{orgId}/integrations/settings. */
export const integrationSettingsBody = schema(() => z.strictObject({ allowPrivateNetworks: z.boolean() }));
export type IntegrationSettingsBody = z.output<typeof integrationSettingsBody>;
