import { getApplication } from './application-repository.ts';
import { type ApplicationRecord, type EnvironmentRecord, newEnvironment } from './model.ts';
import {
  environmentCreation,
  environmentRename,
  getEnvironment,
  getEnvironmentByName,
} from './environment-repository.ts';
import { accessibleApplication, accessibleEnvironment } from './access.ts';
import { auditEntry } from '../audit/entries.ts';
import type { AuditActor } from '../audit/model.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { conditionFailed } from '../db/items.ts';
import { CONFLICT_ATTEMPTS, failedCondition, retryOnConflict } from '../db/retry.ts';
import { conflict, notFound } from '../errors.ts';
import { writeEnvironmentConfig } from './environment-creation.ts';
import { toApplication } from './applications.ts';
import type { Caller } from '../context/caller.ts';

// Environments (docs/API.md, Environments): create and update, lookup by name for the scanner. Their lists:
// environment-list.ts (V2) and shared/scans/environment-list-v1.ts (deprecated); their delete: shared/deletions/.

const RETRY_BUDGET_MS = 8_000;

/** The environment's create writes with its ENVIRONMENT_ADDED entry, for callers that commit them (scan results). */
export async function environmentCreationWrites(
  actor: AuditActor,
  app: ApplicationRecord,
  name: string,
  lastScan?: Partial<EnvironmentRecord>,
  env: EnvironmentRecord = { ...newEnvironment(app, name), ...lastScan },
) {
  const payload = { applicationId: app.applicationId, appName: app.name, envId: env.environmentId, envName: env.name };
  const items: TransactItem[] = [
    ...(await environmentCreation(app, env)),
    auditEntry(actor, app.organizationId, 'ENVIRONMENT_ADDED', payload),
  ];
  return { env, items };
}

/**
 * The live environment of this name in the application, or the writes that create it (scan-results issue:
 * commit `items` with the scan's own writes; `items` is empty when the environment exists). A created
 * environment starts with `lastScan` as its last scan.
 */
export async function findOrCreateEnvironmentByName(
  actor: AuditActor,
  app: ApplicationRecord,
  name: string,
  lastScan?: Partial<EnvironmentRecord>,
) {
  const existing = await getEnvironmentByName(app.applicationId, name);
  if (existing) return { env: existing, created: false, items: [] as TransactItem[] };
  return { ...(await environmentCreationWrites(actor, app, name, lastScan)), created: true };
}

/**
 * Runs a write conditioned on the application's environment count (`countChanged`), re-reading it when another
 * write won. Gives up (the cancellation answers 409: shared/http) after CONFLICT_ATTEMPTS or RETRY_BUDGET_MS,
 * well inside the timeout.
 */
export async function withFreshApplication(
  appId: string,
  app: ApplicationRecord,
  write: (app: ApplicationRecord) => Promise<void>,
) {
  const retry = { budgetMs: RETRY_BUDGET_MS, conflict: failedCondition(['countChanged']) };
  return retryOnConflict(retry, async (attempt) => {
    if (attempt > 1) {
      const fresh = await getApplication(appId);
      if (!fresh) throw notFound(`application ${appId} not found`);
      app = fresh;
    }
    return write(app);
  });
}

export async function createEnvironment(
  caller: Caller,
  appId: string,
  body: { env: string },
  host: string | undefined,
) {
  let { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  // The configuration object is written once; only the transaction is retried when concurrent creations win.
  const created = newEnvironment(app, body.env);
  try {
    await writeEnvironmentConfig(created, host, () =>
      withFreshApplication(appId, app, async (fresh) => {
        const { items } = await environmentCreationWrites(caller, fresh, body.env, undefined, created);
        await transactWrite(items);
        app = fresh;
      }),
    );
  } catch (error) {
    if (conditionFailed(error, 'nameTaken'))
      throw conflict(`environment ${body.env} already exists in application ${appId}`);
    throw error;
  }
  return toApplication({ ...app, applicationStatus: 'ACTIVE', environmentCount: app.environmentCount + 1 }, created);
}

export async function updateEnvironment(caller: Caller, appId: string, envId: string, body: { name: string }) {
  const found = await accessibleEnvironment(caller, appId, envId, { teamRestricted: true });
  const { app } = found;
  let { env } = found;
  const gone = () => notFound(`environment ${envId} not found in application ${appId}`);
  return retryOnConflict(
    { conflict: failedCondition(['environmentChanged']), exhausted: gone, attempts: CONFLICT_ATTEMPTS },
    async (attempt) => {
      if (attempt > 1) {
        // Gone, or renamed meanwhile (the write is conditioned on the name read): read it again.
        const fresh = await getEnvironment(appId, envId);
        if (!fresh) throw gone();
        env = fresh;
      }
      const payload = { applicationId: appId, appName: app.name, envId, envName: body.name, previousEnvName: env.name };
      try {
        await transactWrite([
          ...environmentRename(env, body.name),
          auditEntry(caller, app.organizationId, 'ENVIRONMENT_MODIFIED', payload),
        ]);
      } catch (error) {
        if (conditionFailed(error, 'nameTaken'))
          throw conflict(`environment ${body.name} already exists in application ${appId}`);
        throw error;
      }
      return toApplication(app, { ...env, name: body.name });
    },
  );
}
