import { isDeepStrictEqual } from 'node:util';
import { config } from '../../config.ts';
import { keys } from '../../db/keys.ts';
import { sortableNumber } from '../../db/sortable.ts';
import type { Projected } from '../../db/entity-write.ts';
import type { TransactItem } from '../../db/transactions.ts';
import { NO_HEALTH, type ApplicationHealth, type ApplicationRecord } from '../model.ts';

// The overview's riskiest applications (docs/GOVERNANCE.md, The overview; keys.riskiestApplication): a ranked
// projection of the application's record. Each live application with untriaged findings in its environments' last
// scans has one entry in its organization's partition, sorted by its rank: its open issues (High, then Medium, then
// Low), then its untriaged findings (High, Medium, Low, total), then its id, so that a Query in descending order
// reads the riskiest first. The application's write moves it: a change of its figures, name or owner replaces the
// entry (the old rank's deleted, the new one put), its delete removes it.

export const RISKIEST_ENTITY = 'riskiestApplication';

/** The figures an entry ranks by and shows. */
export interface RiskFigures {
  openHigh: number;
  openMedium: number;
  openLow: number;
  high: number;
  medium: number;
  low: number;
  total: number;
}

/** An entry as stored (besides its keys). */
export interface RiskiestEntry extends RiskFigures {
  applicationId: string;
  organizationId: string;
  name: string;
  applicationType: ApplicationRecord['applicationType'];
  teamId?: string;
  failed: number;
  scannedAt: number;
}

/** The ranking's figures of an application's health (figures written before the open issues: 0). */
export const riskFigures = (
  health: ApplicationHealth | undefined,
): RiskFigures & Pick<ApplicationHealth, 'failed' | 'scannedAt'> => {
  const h = { ...NO_HEALTH, ...health };
  return {
    openHigh: h.openHigh ?? 0,
    openMedium: h.openMedium ?? 0,
    openLow: h.openLow ?? 0,
    high: h.high,
    medium: h.medium,
    low: h.low,
    total: h.total,
    failed: h.failed,
    scannedAt: h.scannedAt,
  };
};

const RANKED = ['openHigh', 'openMedium', 'openLow', 'high', 'medium', 'low', 'total'] as const;

/**
 * The riskiest first: most open High issues, then Medium, then Low, then untriaged High, Medium, Low and total, then
 * the application id ascending. The order of the entries' keys (riskRank) read in descending order.
 */
export function riskOrder(a: RiskFigures & { applicationId: string }, b: RiskFigures & { applicationId: string }) {
  for (const field of RANKED) if (a[field] !== b[field]) return b[field] - a[field];
  return a.applicationId < b.applicationId ? -1 : a.applicationId > b.applicationId ? 1 : 0;
}

/** Printable ASCII mirrored (a character c becomes 158 - c), so that ids sort backwards (they are of one length). */
const mirrored = (id: string) =>
  [...id].map((c) => (c >= ' ' && c <= '~' ? String.fromCharCode(158 - c.charCodeAt(0)) : c)).join('');

/** The entry's sort key: its ranked figures (15 digits each) then its id mirrored (ties: the smaller id first). */
export const riskRank = (entry: RiskFigures & { applicationId: string }) =>
  `${RANKED.map((field) => sortableNumber(entry[field])).join('#')}#${mirrored(entry.applicationId)}`;

/** The application's entry (undefined: none: unknown, being deleted or without untriaged findings). */
export function entryOf(app: ApplicationRecord | undefined): RiskiestEntry | undefined {
  if (!app || app.deleting) return undefined;
  const figures = riskFigures(app.health);
  if (figures.total <= 0) return undefined;
  return {
    applicationId: app.applicationId,
    organizationId: app.organizationId,
    name: app.name,
    applicationType: app.applicationType,
    ...(app.teamId !== undefined && { teamId: app.teamId }),
    ...figures,
  };
}

/** The change of the entry from `before` to `after`: the old rank's deleted when it moves or goes, the new one put. */
export function project(before: ApplicationRecord | undefined, after: ApplicationRecord | undefined): Projected {
  const [was, is] = [entryOf(before), entryOf(after)];
  if (isDeepStrictEqual(was, is)) return {};
  const items: TransactItem[] = [];
  const keyOf = (entry: RiskiestEntry) => keys.riskiestApplication(entry.organizationId, riskRank(entry));
  if (was && (!is || keyOf(was).sk !== keyOf(is).sk))
    items.push({ Delete: { TableName: config.tableName, Key: keyOf(was) } });
  if (is) items.push({ Put: { TableName: config.tableName, Item: { ...keyOf(is), entity: RISKIEST_ENTITY, ...is } } });
  return { items };
}
