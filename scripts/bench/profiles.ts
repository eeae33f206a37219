import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { benchTenant, type BenchSection } from './harness.ts';

// Profile scans (docs/PROFILE-SCANS.md): requests and seconds per profile of each loopback target of the tests, at
// the prober's default pace and budgets (50 ms between requests, 150 requests, 60 s), and the time from
// launchProfileScan to the stored result through the service and a waiting agent.

const section: BenchSection = {
  name: 'profiles',
  async run(ctx) {
    const { profileTarget } = await import('../../scanner/src/profile/profile.ts');
    const targets = await import('../../scanner/test/profile-targets.ts');
    const starts = {
      api: targets.startApiTarget,
      'server-rendered (FORM login)': targets.startFormTarget,
      'single-page app': targets.startSpaTarget,
      'static site': targets.startStaticTarget,
      '10,000 links': targets.startManyLinksTarget,
    };
    const perTarget: Record<string, unknown> = {};
    for (const [name, start] of Object.entries(starts)) {
      const target = await start();
      try {
        const began = performance.now();
        const result = await profileTarget({
          scanId: randomUUID(),
          targetUrl: target.url,
          applicationId: randomUUID(),
          env: 'Development',
          allowPrivate: true,
        });
        perTarget[name] = {
          classification: result.classification,
          requests: result.requestsSent,
          seconds: Math.round((performance.now() - began) / 10) / 100,
          stoppedBy: result.stoppedBy || 'nothing (finished)',
        };
        ctx.progress(`profile of ${name}: ${result.requestsSent} requests`);
      } finally {
        await target.close();
      }
    }

    // Through the service: launch, a waiting agent takes it, the result is readable.
    const { allowScanDomain } = await import('../../shared/applications/scan-domains.ts');
    const { startAgent } = await import('../../scanner/src/agent/agent.ts');
    const tenant = await benchTenant(ctx, 'profiles');
    await allowScanDomain(tenant.orgId, '127.0.0.1');
    const target = await targets.startFormTarget();
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${ctx.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json().catch(() => ({}))) as Record<string, unknown> };
    };
    try {
      const app = await call('POST', `/api/v1/org/${tenant.orgId}/app`, {
        name: 'profiled',
        env: 'production',
        applicationType: 'CLOUD',
        cloudScanTargetURL: target.url,
      });
      const appId = app.body.applicationId as string;
      const agent = await startAgent({
        url: ctx.baseUrl,
        token: async () => tenant.token,
        orgId: tenant.orgId,
        engines: [],
        once: true,
        maxIdleMs: 60_000,
      });
      const began = performance.now();
      const launched = await call('POST', `/api/v1/app/${appId}/perch/profile-scan`);
      if (launched.status !== 200) throw new Error(`launchProfileScan answered ${launched.status}`);
      await agent.done;
      const result = await call('GET', `/api/v1/app/${appId}/profile/results`);
      if (result.status !== 200) throw new Error(`getLatestProfileScanResult answered ${result.status}`);
      return {
        perTarget,
        launchToResultSeconds: Math.round((performance.now() - began) / 10) / 100,
      };
    } finally {
      await target.close();
    }
  },
};

export default section;
