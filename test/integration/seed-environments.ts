import { randomUUID } from 'node:crypto';
import { applicationPuts, organizationCounterChange } from '../../shared/applications/application-repository.ts';
import { environmentPuts } from '../../shared/applications/environment-repository.ts';
import { newEnvironment, type ApplicationRecord } from '../../shared/applications/model.ts';
import { batchPut } from '../../shared/db/query.ts';
import { transactWrite } from '../../shared/db/transactions.ts';

/**
 * Seeds `apps` applications of 5 environments each into the organization, as the repositories write them (their
 * items in bulk, the counters in one transaction): a tenth owned by `teamId`, one in 50 CLOUD, half the environments
 * scanned (COMPLETED or ERROR, over 60 days); names from `prefix` (a list deep enough for several DynamoDB pages).
 */
export async function seedEnvironments(orgId: string, apps: number, teamId: string, prefix = 'app') {
  const items: Record<string, unknown>[] = [];
  const counts = new Map<
    string,
    { type: 'STANDARD' | 'CLOUD'; team?: string; applications: number; environments: number }
  >();
  const now = Date.now();
  const seeded: { applicationId: string; environmentIds: string[] }[] = [];
  for (let a = 0; a < apps; a++) {
    const type = a % 50 === 7 ? ('CLOUD' as const) : ('STANDARD' as const);
    const team = a % 10 === 3 ? teamId : undefined;
    const app: ApplicationRecord = {
      applicationId: randomUUID(),
      organizationId: orgId,
      name: `${prefix}-${String(a).padStart(4, '0')}-${randomUUID().slice(0, 4)}`,
      applicationType: type,
      applicationStatus: 'ACTIVE',
      environmentCount: 5,
      teamId: team,
      cloudScanTarget:
        type === 'CLOUD' ? { targetURL: 'https://cloud.example.test', isDomainVerified: false } : undefined,
      createdAt: now,
    };
    const bucket = `${type}#${team ?? '-'}`;
    const count = counts.get(bucket) ?? { type, team, applications: 0, environments: 0 };
    count.applications++;
    count.environments += 5;
    counts.set(bucket, count);
    for (const put of applicationPuts(app)) items.push(put.Put!.Item as Record<string, unknown>);
    const environmentIds: string[] = [];
    for (let e = 0; e < 5; e++) {
      const env = newEnvironment(app, ['dev', 'qa', 'Stage', 'prod', `env-${a}`][e]);
      if ((a + e) % 2 === 0) {
        Object.assign(env, {
          lastScanId: randomUUID(),
          lastScanStatus: (a + e) % 4 === 0 ? 'COMPLETED' : 'ERROR',
          lastScanTimestamp: now - ((a * 7 + e) % 60) * 86_400_000,
          lastScanDuration: (a * 13 + e) % 90,
          lastScanTotalUntriaged: (a * 31 + e) % 20,
        });
      }
      environmentIds.push(env.environmentId);
      for (const put of environmentPuts(env)) if (put.Put) items.push(put.Put.Item as Record<string, unknown>);
    }
    seeded.push({ applicationId: app.applicationId, environmentIds });
  }
  await batchPut(items, 8);
  await transactWrite(
    [...counts.values()].map((c) =>
      organizationCounterChange(orgId, c.type, c.team, { applications: c.applications, environments: c.environments }),
    ),
  );
  return seeded;
}
