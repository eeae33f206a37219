import type { Caller } from '../context/caller.ts';
import { accessibleApplication, accessibleEnvironment } from '../applications/access.ts';
import { applicationDeletingMark, deleteApplicationPartition } from '../applications/application-repository.ts';
import {
  applicationCoverageRemoval,
  deleteEnvironmentData,
  environmentDeletingMark,
  getEnvironment,
} from '../applications/environment-repository.ts';
import { withFreshApplication } from '../applications/environments.ts';
import { auditEntry } from '../audit/entries.ts';
import { transactWrite } from '../db/transactions.ts';
import { failedCondition, retryOnConflict } from '../db/retry.ts';
import { deletedApplicationSlot } from '../perch/repository.ts';
import { deleteObjectsUnder } from '../storage/delete-prefix.ts';
import { objectKeys } from '../storage/objects.ts';
import { applicationTrendRemoval, environmentTrendRemoval } from '../trends/writes.ts';
import { applicationRemovedPayload, environmentGone, environmentRemovedPayload } from './model.ts';

// The deletes of applications and environments (docs/API.md, Deletes): one transaction hides the application or
// environment together with what other resources derived from it (its trend figures, a running scan's slot), with its
// audit entry; its data is removed afterwards. Above every resource whose derived data it takes back.

/**
 * deleteApplication (docs/API.md, Deletes): deletes the application with everything it owns. One transaction marks it
 * deleting (it disappears from every read at once) with its APPLICATION_REMOVED entry; its stored objects and partition
 * are then removed, the application record last. If that is interrupted, DELETE again resumes it (without a second
 * audit entry).
 */
export async function deleteApplication(caller: Caller, appId: string): Promise<void> {
  let { app } = await accessibleApplication(caller, appId, { teamRestricted: true, includeDeleting: true });
  await retryOnConflict({ conflict: failedCondition() }, async (attempt) => {
    // An environment was created or deleted meanwhile (the count changed), another DELETE won, or a write of its
    // findings changed its trends: read again.
    if (attempt > 1)
      ({ app } = await accessibleApplication(caller, appId, { teamRestricted: true, includeDeleting: true }));
    if (app.deleting) return;
    const payload = applicationRemovedPayload(app);
    const now = Date.now();
    await transactWrite([
      ...applicationDeletingMark(app, now),
      ...(await applicationTrendRemoval(app, now)),
      ...(await applicationCoverageRemoval(appId)),
      ...(await deletedApplicationSlot(appId)),
      auditEntry(caller, app.organizationId, 'APPLICATION_REMOVED', payload, now),
    ]);
  });
  await deleteObjectsUnder(objectKeys.applicationPrefix(appId));
  await deleteApplicationPartition(appId);
}

/**
 * deleteEnvironment (docs/API.md, Deletes): deletes the environment and its scan results. Like an application delete:
 * one transaction hides it (with ENVIRONMENT_REMOVED), then its data goes; a retried DELETE of an interrupted delete
 * resumes it.
 */
export async function deleteEnvironment(caller: Caller, appId: string, envId: string): Promise<void> {
  const found = await accessibleEnvironment(caller, appId, envId, { teamRestricted: true, includeDeleting: true });
  const { app } = found;
  let { env } = found;
  const gone = () => environmentGone(appId, envId);
  await retryOnConflict({ conflict: failedCondition(), exhausted: gone }, async (attempt) => {
    if (attempt > 1) {
      // Gone, renamed meanwhile (the write is conditioned on the name read), or a scan of it published meanwhile
      // (its trends' version): read it again.
      const fresh = await getEnvironment(appId, envId);
      if (!fresh) throw gone();
      env = fresh;
    }
    if (env.deleting) return;
    const payload = environmentRemovedPayload(app, env);
    await withFreshApplication(appId, app, async (fresh) => {
      const now = Date.now();
      await transactWrite([
        ...(await environmentDeletingMark(fresh, env, now)),
        // Its open findings and coverage leave the application's and organization's trends.
        ...(await environmentTrendRemoval(env, now)),
        auditEntry(caller, app.organizationId, 'ENVIRONMENT_REMOVED', payload, now),
      ]);
    });
  });
  await deleteObjectsUnder(objectKeys.environmentPrefix(appId, envId));
  await deleteEnvironmentData(appId, envId);
}
