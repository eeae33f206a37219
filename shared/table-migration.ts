import type { BackfillOptions, IndexKeysOf, Outcome } from './db/backfill.ts';
import { countApplicationHealth, markHealthComplete } from './applications/health-backfill.ts';
import { applicationIndexKeys } from './applications/application-repository.ts';
import { countEnvironmentCoverage, environmentIndexKeys } from './applications/environment-repository.ts';
import { markCoverageCounted } from './applications/coverage-backfill.ts';
import {
  markTableCredentialsMoved,
  migrateEnvironmentConfig,
  migrateOrganizationConfiguration,
} from './scans/configuration-migration.ts';
import { migrateRunConfig } from './perch/run-config-migration.ts';
import { assignEnvironmentStreams, markStreamsAssigned } from './scans/stream-backfill.ts';
import { assignEnvironmentIssues, markIssuesAssigned } from './scans/issue-backfill.ts';
import { assignOpenIssues, markOpenIssuesAssigned } from './results/issue-summary.ts';
import { addRiskiestEntry, countEnvironmentOpenIssues, markRiskiestComplete } from './results/riskiest.ts';
import {
  backfillDescriptionRoutes,
  markDescriptionRoutes,
  type HostedDescriptionRecord,
} from './hosted-assets/repository.ts';

/**
 * The entities whose index keys the backfill (shared/db/backfill.ts: `npm run migrate`, `npm start` on older data)
 * keeps current, by their `entity` attribute: each with the key function its write path puts new items with, so
 * that a new or changed key reaches older items by changing only that function. An entity whose keys change for
 * the first time joins here with its write path's function.
 */
export const indexedEntities: Record<string, IndexKeysOf> = {
  application: applicationIndexKeys as IndexKeysOf,
  environment: environmentIndexKeys as IndexKeysOf,
};

/** One outcome of two steps on one item: a conflict first, then a write, then "gone" only when both found it gone. */
function bothOutcomes(first: Outcome, second: Outcome): Outcome {
  for (const outcome of ['conflict', 'updated'] as const) if (first === outcome || second === outcome) return outcome;
  return first === 'gone' && second === 'gone' ? 'gone' : 'current';
}

/**
 * What the backfill does besides keys, by entity: applications written before the health aggregates are counted in
 * them (shared/applications/health-backfill.ts); once all are, the organizations are marked complete (`finish`).
 * Stored configurations' literal credentials move into scan secrets (shared/scans/configuration-migration.ts), and
 * environments written before tool streams get theirs (shared/scans/stream-backfill.ts), then their finding records
 * their issues (shared/scans/issue-backfill.ts) and their open issues' summary (shared/results/issue-summary.ts); environments are counted in the overview's coverage counters, then
 * the organizations marked (shared/applications/coverage-backfill.ts). Environments get their open issues by
 * severity and applications their riskiest entry, then the organizations are marked (shared/results/riskiest.ts).
 * Hosted descriptions stored before their routes were kept get them
 * (shared/hosted-assets/repository.ts, backfillDescriptionRoutes); the issues this run assigns may be computed before
 * it (the steps run in scan order): a finding takes its description's paths at its next scan.
 */
export const migrationSteps: Record<string, (item: Record<string, unknown>) => Promise<Outcome>> = {
  application: async (item) =>
    bothOutcomes(
      await countApplicationHealth(item.applicationId as string),
      await addRiskiestEntry(item.applicationId as string),
    ),
  environment: async (item) =>
    bothOutcomes(
      await migrateEnvironmentConfig(item),
      item.deleting
        ? 'current'
        : bothOutcomes(
            bothOutcomes(
              await assignEnvironmentStreams(item.applicationId as string, item.environmentId as string),
              bothOutcomes(
                await assignEnvironmentIssues({
                  organizationId: item.organizationId as string,
                  applicationId: item.applicationId as string,
                  environmentId: item.environmentId as string,
                }),
                bothOutcomes(
                  await assignOpenIssues(item.applicationId as string, item.environmentId as string),
                  await countEnvironmentOpenIssues(item.applicationId as string, item.environmentId as string),
                ),
              ),
            ),
            await countEnvironmentCoverage(item.applicationId as string, item.environmentId as string),
          ),
    ),
  organizationAsset: migrateOrganizationConfiguration,
  hostedDescription: (item) => backfillDescriptionRoutes(item as unknown as HostedDescriptionRecord),
  perchRun: migrateRunConfig,
};

/** The whole migration of a table (npm run migrate, npm start on older data): the keys, the steps, the marker at the end. */
export const tableMigration = (
  tableName: string,
): Pick<BackfillOptions, 'tableName' | 'entities' | 'steps' | 'finish'> => ({
  tableName,
  entities: indexedEntities,
  steps: migrationSteps,
  finish: async () => {
    await markHealthComplete(tableName);
    await markTableCredentialsMoved(tableName);
    await markStreamsAssigned(tableName);
    await markIssuesAssigned(tableName);
    await markOpenIssuesAssigned(tableName);
    await markDescriptionRoutes(tableName);
    await markCoverageCounted(tableName);
    await markRiskiestComplete(tableName);
  },
});
