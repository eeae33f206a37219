import * as z from 'zod/mini';
import { displayableText } from '../input/names.ts';
import { environmentNameSchema } from '../applications/model.ts';

// Scan reporting's model: the body a scanner announces a scan with, and a scan's overdue findings with their order.
// Records, types and pure rules only (docs/LAYOUT.md, Layers): it imports the kernel and other resources' model.ts,
// never a repository.

/** Builds a schema at load, marked side-effect free: bundlers drop the schemas a function never uses (esbuild honours the mark only in the same file). */
const schema = /* @__NO_SIDE_EFFECTS__ */ <T>(build: () => T): T => build();

/** A finding of a scan past its due date (dueDate in ms). */
export interface OverdueFinding {
  findingHash: string;
  /** Its issue (docs/ISSUES.md): the overview counts issues (issueRepresentatives). */
  issueId: string;
  pluginId: string;
  severity: string;
  requestMethod: string;
  url: string;
  status: string;
  dueDate: number;
  daysLeft: number;
}

/** Earliest due date first; the hash breaks ties, so the order is total. */
export const mostOverdueFirst = (a: OverdueFinding, b: OverdueFinding) =>
  a.dueDate - b.dueDate || a.findingHash.localeCompare(b.findingHash);

/** Text shown as a label (a host, a version, a tag's value): the names' rule too. */
export const label = (max: number) =>
  z._default(z.string().check(z.maxLength(max, `must be at most ${max} characters`), displayableText()), '');

export const tagSchema = schema(() =>
  z.object({
    name: z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(255), displayableText()),
    value: label(1024),
  }),
);

/** POST /api/v1/app/{appId}/scan: the scanner announces a scan. */
export const scanStartedBody = schema(() =>
  z.object({
    env: environmentNameSchema,
    config: z
      .string()
      .check(z.minLength(1, 'must not be empty'), z.maxLength(1_000_000, 'must be at most 1000000 characters')),
    hawkscanVersion: label(64),
    host: label(2048),
    tags: z._default(z.array(tagSchema).check(z.maxLength(100, 'must have at most 100 tags')), []),
  }),
);

export type ScanStartedBody = z.output<typeof scanStartedBody>;
