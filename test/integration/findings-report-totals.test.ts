import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { createApp, pluginAlert, scanOnce } from './scan-helpers.ts';
import { currentScansOf, issuesOf } from '../../shared/findings/report.ts';
import { getEnvironment } from '../../shared/applications/environment-repository.ts';
import { openIssuesTotal } from '../../shared/applications/model.ts';
import { openIssuesOfEnvironments } from '../../shared/results/issue-summary.ts';
import { applicationDeletingMark, getApplication } from '../../shared/applications/application-repository.ts';
import { transactWrite } from '../../shared/db/transactions.ts';

// The findings report's totals (docs/DATA-MODEL.md, Findings report): an environment off the page counts its open
// issues from its record (openIssues*, openIssuesInfo with them), the page's from their summaries. Every page
// answers the totals a recomputation from the finding records gives, and its part of the whole report's rows, after
// scans, triage and deletes (scan, environment, application, an application's delete interrupted).

type Env = { applicationId: string; environmentId: string };
type Body = { totalFindings: number; totalIssues: number; findings: { environmentId: string }[] };

const page = async (tenant: Tenant, pageToken: number, pageSize: number): Promise<Body> => {
  const out = await api('GET', `/api/v1/reports/org/${tenant.orgId}/findings`, {
    token: tenant.token,
    query: { pageSize, pageToken },
  });
  expect(out.status, out.text).toBe(200);
  return out.body;
};

/** The totals from the finding records: the rows of every page, the open issues of each environment with a scan. */
async function recomputed(tenant: Tenant, envs: Env[]) {
  const all = await page(tenant, 0, 1000);
  let totalIssues = 0;
  for (const ref of envs) {
    const env = await getEnvironment(ref.applicationId, ref.environmentId);
    if (!env || (await currentScansOf(env, undefined)).length === 0) continue;
    totalIssues += (await issuesOf(env, undefined)).tools.size;
  }
  return { totals: { totalFindings: all.findings.length, totalIssues }, rows: all.findings };
}

/**
 * Every page of 2 rows answers the recomputed totals and, in turn, the rows of one page of them all (each page's
 * offset found as the whole report's); each environment's record counts what its summary counts.
 */
async function expectTotals(tenant: Tenant, envs: Env[]) {
  const { totals: expected, rows } = await recomputed(tenant, envs);
  const pages = Math.max(1, Math.ceil(expected.totalFindings / 2));
  const paged: Body['findings'] = [];
  for (let token = 0; token < pages; token++) {
    const body = await page(tenant, token, 2);
    expect({ totalFindings: body.totalFindings, totalIssues: body.totalIssues }, `page ${token}`).toEqual(expected);
    paged.push(...body.findings);
  }
  expect(paged).toEqual(rows);
  const summaries = await openIssuesOfEnvironments(envs);
  for (const ref of envs) {
    const env = await getEnvironment(ref.applicationId, ref.environmentId);
    const summary = summaries.get(ref.environmentId);
    if (env && summary && !summary.stale) expect(openIssuesTotal(env)).toBe(summary.count);
  }
  return expected;
}

describe('findings report totals', () => {
  it('equal the recomputation on every page after scans, triage, a rescan and deletes', async () => {
    const tenant = await createTenant();
    const alpha = await createApp(tenant, { name: 'alpha', env: 'dev' });
    const beta = await createApp(tenant, { name: 'beta', env: 'dev' });
    const a = await scanOnce(tenant.token, alpha, [
      pluginAlert('40018', 'High', ['/one', '/two']),
      pluginAlert('10038', 'Medium', ['/three']),
      pluginAlert('10020', 'Info', ['/info-only']),
    ]);
    const prod = await scanOnce(tenant.token, alpha, [pluginAlert('10020', 'Info', ['/x', '/y'])], 'prod');
    const b1 = await scanOnce(tenant.token, beta, [
      pluginAlert('10021', 'Low', ['/l']),
      pluginAlert('10020', 'Info', ['/z']),
    ]);
    const envs: Env[] = [
      { applicationId: alpha, environmentId: a.envId },
      { applicationId: alpha, environmentId: prod.envId },
      { applicationId: beta, environmentId: b1.envId },
    ];
    // Each URI its own issue, Info-only ones too: 4 in alpha/dev, 2 in alpha/prod, 2 in beta/dev.
    expect(await expectTotals(tenant, envs)).toEqual({ totalFindings: 8, totalIssues: 8 });

    // A triage moves no issue in or out of the open ones.
    const rows = (await page(tenant, 0, 1000)).findings as unknown as { findingHash: string; environmentId: string }[];
    const hash = rows.find((r) => r.environmentId === a.envId)!.findingHash;
    const triaged = await api('POST', `/api/v1/org/${tenant.orgId}/app/${alpha}/env/${a.envId}/findings/triage`, {
      token: tenant.token,
      body: { actions: [{ findingHash: hash, status: 'FALSE_POSITIVE' }] },
    });
    expect(triaged.status, triaged.text).toBe(200);
    expect(await expectTotals(tenant, envs)).toEqual({ totalFindings: 8, totalIssues: 8 });

    // A rescan fixes /two and the Info-only one.
    await scanOnce(tenant.token, alpha, [
      pluginAlert('40018', 'High', ['/one']),
      pluginAlert('10038', 'Medium', ['/three']),
    ]);
    expect(await expectTotals(tenant, envs)).toEqual({ totalFindings: 6, totalIssues: 6 });

    // beta/dev's newer scan deleted: its previous one is current again; its findings stay as recorded.
    const b2 = await scanOnce(tenant.token, beta, [pluginAlert('10021', 'Low', ['/l'])]);
    expect(await expectTotals(tenant, envs)).toEqual({ totalFindings: 5, totalIssues: 5 });
    expect((await api('DELETE', `/api/v1/scan/${b2.scanId}`, { token: tenant.token })).status).toBe(200);
    expect((await expectTotals(tenant, envs)).totalFindings).toBe(6);

    // An environment deleted leaves the report with its rows and issues.
    expect((await api('DELETE', `/api/v1/app/${alpha}/env/${prod.envId}`, { token: tenant.token })).status).toBe(200);
    const left = await expectTotals(tenant, envs);
    expect(left.totalFindings).toBe(4);

    // An application whose delete has started (its mark committed, its partition not removed yet, as when a DELETE
    // is interrupted) leaves the report at once: its environments are still in the index, the application is not.
    await transactWrite(applicationDeletingMark((await getApplication(beta))!));
    expect(await expectTotals(tenant, envs.slice(0, 1))).toEqual({ totalFindings: 2, totalIssues: 2 });
    // DELETE again resumes it: the same report.
    expect((await api('DELETE', `/api/v1/app/${beta}`, { token: tenant.token })).status).toBe(200);
    expect(await expectTotals(tenant, envs.slice(0, 1))).toEqual({ totalFindings: 2, totalIssues: 2 });
  });
});
