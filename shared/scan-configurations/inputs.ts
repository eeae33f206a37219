import * as z from 'zod/mini';
import { caseInsensitiveEnum, pageSizeParam, pageTokenParam, v2PageParam } from '../lists.ts';
import { configNameSchema } from '../hosted-assets/model.ts';
import { conf, configType } from './model.ts';

// Inputs of the organization scan configuration operations (/api/v1/configuration/{orgId}/...), as the route
// table declares them. Only zod here: the route table is read by the CDK stack and the generators too.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** validate takes the same request; the name (optional here) only labels the markers. */
export const validateScanConfigurationBody = schema(() =>
  z.object({ conf, name: z.optional(configNameSchema), configType, type: configType }),
);

/** `configuration.RenameOrganizationScanConfigurationRequest`. */
export const renameScanConfigurationBody = schema(() =>
  z.object({ originalName: configNameSchema, newName: configNameSchema }),
);

export const listScanConfigurationsQuery = schema(() =>
  z.object({
    pageSize: pageSizeParam(),
    pageToken: pageTokenParam(),
    page: v2PageParam(),
    sortField: caseInsensitiveEnum(['name']),
    sortDir: caseInsensitiveEnum(['asc', 'desc']),
    query: z.optional(
      z
        .string()
        .check(
          z.maxLength(50, 'must be at most 50 characters'),
          z.regex(/^[a-zA-Z0-9_-]*$/, 'must contain only letters, digits, _ and -'),
        ),
    ),
  }),
);
export type ListScanConfigurationsQuery = z.output<typeof listScanConfigurationsQuery>;
