import { s3 } from '../storage/s3.ts';
import { objectKeys } from '../storage/objects.ts';
import { config } from '../config.ts';
import { notFound } from '../errors.ts';
import { accessibleApplication } from '../applications/access.ts';
import { environmentsOfApp } from '../applications/environment-repository.ts';
import { configUsedByEnvironments } from '../results/scan-repository.ts';
import type { Caller } from '../context/caller.ts';
import { effectiveApplicationPolicy, scannerPolicy } from '../policies/effective-policy.ts';
import { redactCredentials } from './redaction.ts';

type Conf = Record<string, unknown>;
const objectAt = (value: unknown): Conf | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Conf) : undefined;

/**
 * The enums HawkScan defaults when a configuration leaves them out, filled where their object is present: the
 * response would otherwise carry UNKNOWN, which the public enums lack (testPath.type HEADER, requestMethod GET,
 * hawk.spider.ajaxBrowser CHROME_HEADLESS).
 */
export function withImpliedEnums(conf: Conf): Conf {
  const app = objectAt(conf.app);
  const testPath = objectAt(objectAt(app?.authentication)?.testPath);
  if (testPath) {
    testPath.type ??= 'HEADER';
    testPath.requestMethod ??= 'GET';
  }
  const waitForAppTarget = objectAt(app?.waitForAppTarget);
  if (waitForAppTarget) waitForAppTarget.requestMethod ??= 'GET';
  const spider = objectAt(objectAt(conf.hawk)?.spider);
  if (spider) spider.ajaxBrowser ??= 'CHROME_HEADLESS';
  return conf;
}

/**
 * The scan policy a hosted scan of the application runs (its effective policy, as a scanner reads it with the
 * configuration): its name and the plugins it disables (docs/SCAN-POLICIES.md, Hosted scans and wapiti's modules).
 */
export async function hostedScanPolicy(appId: string, orgId: string) {
  const { name, excludePluginIds } = scannerPolicy(await effectiveApplicationPolicy(appId, orgId));
  return { name, excludePluginIds };
}

/**
 * application.ApplicationConfigResponse: the configuration a scan of the application reported, parsed. A scanner
 * reads it before it scans, so when the configuration names no scan policy (`app.scanPolicy`), the application's
 * effective policy is filled in: its name and the plugins it runs and skips. Its credentials are redacted.
 */
export async function getScanConfig(caller: Caller, appId: string, configHash: string) {
  const { app } = await accessibleApplication(caller, appId, { teamRestricted: true });
  const envIds = (await environmentsOfApp(appId)).map((env) => env.environmentId);
  const missing = () => notFound(`no scan of application ${appId} used configuration ${configHash}`);
  if (!(await configUsedByEnvironments(appId, envIds, configHash))) throw missing();
  const { GetObjectCommand, NoSuchKey } = await import('@aws-sdk/client-s3'); // loaded on use: see storage/s3.ts
  try {
    const object = await (
      await s3()
    ).send(new GetObjectCommand({ Bucket: config.assetsBucket, Key: objectKeys.parsedScanConfig(appId, configHash) }));
    const conf = withImpliedEnums(redactCredentials(JSON.parse(await object.Body!.transformToString('utf8'))));
    const appConf = objectAt(conf.app);
    if (appConf && !appConf.scanPolicy)
      appConf.scanPolicy = scannerPolicy(await effectiveApplicationPolicy(appId, app.organizationId));
    return { configHash, conf };
  } catch (error) {
    if (error instanceof NoSuchKey) throw missing();
    throw error;
  }
}
