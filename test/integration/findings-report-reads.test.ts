import { describe, expect, it } from 'vitest';
import { api } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { alert, createApp, scanOnce } from './scan-helpers.ts';
import { findingsReport, reportReads } from '../../shared/findings/report.ts';
import { createCaller } from '../../shared/identity/caller.ts';
import { runInScope, type RequestScope } from '../../shared/context/request-scope.ts';
import { RawResponse } from '../../shared/context/responses.ts';
import type { FindingsReportQuery } from '../../shared/findings/inputs.ts';

// The findings report's reads of small environments as one range each (shared/findings/report.ts, envRanges):
// every page answers exactly what the reads by key and by scan answer (reportReads.envRanges off), JSON and CSV,
// over many small environments (one with an older scan and fixed findings, triaged findings) and one big scan, on
// the first, middle and last pages; and it costs fewer read units.

const apiKeyIdOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).akid;

async function triage(tenant: Tenant, appId: string, envId: string, hashes: string[]) {
  const out = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
    token: tenant.token,
    body: { actions: hashes.map((findingHash) => ({ findingHash, status: 'FALSE_POSITIVE', note: 'checked' })) },
  });
  expect(out.status, out.text).toBe(200);
}

/** One page as JSON (its body) or CSV (its text), with the envRanges reads on or off, and its read units. */
async function page(tenant: Tenant, query: Partial<FindingsReportQuery>, csv: boolean, ranges: boolean) {
  const caller = createCaller({ userId: tenant.userId, apiKeyId: apiKeyIdOf(tenant.token) }, undefined);
  const q: FindingsReportQuery = { appIds: [], envs: [], pageSize: 500, pageToken: 0, ...query } as FindingsReportQuery;
  const scope: RequestScope = { requestId: 'report-reads', dynamodbCalls: 0 };
  reportReads.envRanges = ranges;
  try {
    const out = await runInScope(scope, () =>
      findingsReport(caller, tenant.orgId, q, csv ? 'text/csv' : 'application/json'),
    );
    const body = out instanceof RawResponse ? out : JSON.parse(JSON.stringify(out));
    return { body, readUnits: scope.readUnits ?? 0 };
  } finally {
    reportReads.envRanges = true;
  }
}

describe('findings report reads of small environments', () => {
  it('answer every page as the reads by key and by scan do, JSON and CSV, for fewer read units', async () => {
    const tenant = await createTenant();
    // Many small environments: three applications of three environments, 1 to 4 findings each.
    const small: { appId: string; envId: string; env: string }[] = [];
    for (const name of ['alpha', 'beta', 'gamma']) {
      const appId = await createApp(tenant, { name, env: 'dev' });
      for (const [i, env] of ['dev', 'prod', 'stage'].entries()) {
        const scan = await scanOnce(
          tenant.token,
          appId,
          [alert('40018', 'High', 1 + i), alert('10038', 'Low', 1, 50)],
          env,
        );
        small.push({ appId, envId: scan.envId, env });
      }
    }
    // One with an older, bigger scan (its fixed findings and older data lie within the range) and triage.
    const older = small[4]!;
    const rescanned = await scanOnce(tenant.token, older.appId, [alert('40018', 'High', 1)], older.env);
    expect(rescanned.envId).toBe(older.envId);
    const rows = (await page(tenant, { pageSize: 500 }, false, false)).body.findings as Record<string, string>[];
    const of = (envId: string) => rows.filter((r) => r.environmentId === envId).map((r) => r.findingHash);
    await triage(tenant, older.appId, older.envId, of(older.envId));
    await triage(tenant, small[1]!.appId, small[1]!.envId, of(small[1]!.envId).slice(0, 1));
    // One big scan (40 rows: read by scan and range as before), after them in report order, partly triaged.
    const bigApp = await createApp(tenant, { name: 'zulu', env: 'big' });
    const big = await scanOnce(
      tenant.token,
      bigApp,
      [alert('40018', 'High', 25, 100), alert('10020', 'Medium', 15, 200, '89')],
      'big',
    );
    const bigRows = (await page(tenant, { pageSize: 500 }, false, false)).body.findings as Record<string, string>[];
    await triage(
      tenant,
      bigApp,
      big.envId,
      bigRows
        .filter((r) => r.environmentId === big.envId)
        .slice(0, 5)
        .map((r) => r.findingHash),
    );

    const total = (await page(tenant, { pageSize: 500 }, false, true)).body.totalFindings as number;
    expect(total).toBe(3 * (2 + 3 + 4) - 3 + 1 + 40); // 3 applications of 2-4 rows, one env rescanned (3 to 1), and 40
    for (const pageSize of [500, 7, 3]) {
      const last = Math.ceil(total / pageSize) - 1;
      for (const pageToken of [...new Set([0, 1, Math.floor(last / 2), last - 1, last])]) {
        for (const csv of [false, true]) {
          const before = await page(tenant, { pageSize, pageToken }, csv, false);
          const now = await page(tenant, { pageSize, pageToken }, csv, true);
          expect(now.body, `page ${pageToken} of ${pageSize}, ${csv ? 'CSV' : 'JSON'}`).toEqual(before.body);
          if (pageToken === 0 && pageSize === 500) expect(now.readUnits).toBeLessThan(before.readUnits);
        }
      }
    }
  });
});
