import type { ApplicationRecord, EnvironmentRecord } from '../applications/model.ts';
import { notFound } from '../errors.ts';

// The rules of the deletes (docs/API.md, Deletes) apart from their reads and writes: what their audit entries say
// and how a delete of an environment that is gone answers.

/** The APPLICATION_REMOVED entry's payload. */
export const applicationRemovedPayload = (app: Pick<ApplicationRecord, 'applicationId' | 'name'>) => ({
  applicationId: app.applicationId,
  appName: app.name,
});

/** The ENVIRONMENT_REMOVED entry's payload. */
export const environmentRemovedPayload = (
  app: Pick<ApplicationRecord, 'applicationId' | 'name'>,
  env: Pick<EnvironmentRecord, 'environmentId' | 'name'>,
) => ({ applicationId: app.applicationId, appName: app.name, envId: env.environmentId, envName: env.name });

/** The 404 of an environment that is not (or no longer) there. */
export const environmentGone = (appId: string, envId: string) =>
  notFound(`environment ${envId} not found in application ${appId}`);
