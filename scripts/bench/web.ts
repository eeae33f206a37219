import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { benchTenant, type BenchSection } from './harness.ts';

// The dashboard's budgets (docs/BENCHMARKS.md), measured in Chromium against the local stack: the JavaScript the first
// page (the applications list) loads, gzipped, and the time from navigation to 1,000 applications on screen.
const APPLICATIONS = 1_000;
const RUNS = 5;

const section: BenchSection = {
  name: 'web',
  async run(ctx) {
    const { ensureWebBuild, webDist } = await import('../local/web.ts');
    const { launchBrowser } = await import('../local/chromium.ts');
    const { applicationPuts, organizationCounterChange } =
      await import('../../shared/applications/application-repository.ts');
    const { batchPut } = await import('../../shared/db/query.ts');
    const { transactWrite } = await import('../../shared/db/transactions.ts');
    await ensureWebBuild({ log: ctx.progress });

    const { orgId, token } = await benchTenant(ctx, 'web');
    ctx.progress(`seeding ${APPLICATIONS} applications`);
    const now = Date.now();
    const items = Array.from({ length: APPLICATIONS }, (_, i) =>
      applicationPuts({
        applicationId: randomUUID(),
        organizationId: orgId,
        name: `app-${String(i).padStart(4, '0')}-${randomUUID().slice(0, 6)}`,
        applicationType: 'STANDARD',
        applicationStatus: 'ENV_INCOMPLETE',
        environmentCount: 0,
        createdAt: now,
      }).map((put) => put.Put!.Item as Record<string, unknown>),
    ).flat();
    await batchPut(items, 16);
    await transactWrite([
      organizationCounterChange(orgId, 'STANDARD', undefined, { applications: APPLICATIONS, environments: 0 }),
    ]);

    const browser = await launchBrowser();
    try {
      const page = browser.context.pages()[0] ?? (await browser.context.newPage());
      const scripts = new Set<string>();
      page.on('response', (response) => {
        if (response.request().resourceType() === 'script') scripts.add(new URL(response.url()).pathname);
      });
      // A signed-in tab: the token in session storage, as the sign-in page leaves it.
      await page.goto(`${ctx.baseUrl}/`);
      await page.evaluate((t) => sessionStorage.setItem('hawk.token', t), token);
      const timeToList = async (pageSize: number) => {
        const samples: number[] = [];
        for (let run = 0; run < RUNS; run++) {
          await page.goto(`${ctx.baseUrl}/org/${orgId}/apps?size=${pageSize}`);
          await page
            .locator('tbody tr')
            .nth(pageSize - 1)
            .waitFor();
          samples.push(await page.evaluate(() => Math.round(performance.now())));
        }
        samples.sort((a, b) => a - b);
        return { runs: RUNS, medianMs: samples[Math.floor(RUNS / 2)], maxMs: samples[RUNS - 1] };
      };
      const list50 = await timeToList(50);
      const firstPageScripts = [...scripts];
      const list1000 = await timeToList(APPLICATIONS);
      const gzipBytes = firstPageScripts.reduce(
        (sum, path) => sum + gzipSync(readFileSync(join(webDist, path)), { level: 9 }).length,
        0,
      );
      return {
        firstPageJs: { files: firstPageScripts.length, gzipKiB: Math.round((gzipBytes / 1024) * 10) / 10 },
        timeToApplicationsListMs: {
          [`${APPLICATIONS} applications on one page`]: list1000,
          'first 50 of them': list50,
        },
        note: 'navigation start to the last row rendered, warm browser cache, headless Chromium on a shared busy machine: rough figures',
      };
    } finally {
      await browser.close();
    }
  },
};

export default section;
