import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, baseUrl } from './client.ts';
import { createTenant, type Tenant } from './fixtures.ts';
import { createApp } from './scan-helpers.ts';
import { expectMatches, readBack } from './import-helpers.ts';
import { FIXTURES, SAMPLES, expectedAlerts } from '../../scanner/test/zap-expected.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../shared/db/client.ts';
import { keys } from '../../shared/db/keys.ts';
import { findingsOfEnvironment } from '../../shared/results/finding-repository.ts';

// The scanner client's `import` command, run as a real process against the test server: every sample imported and
// read back through the public read operations; a lost answer, a failed run resumed, --fail-on, the summary line.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const stateDirs: string[] = [];
const newStateDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hawk-import-state-'));
  stateDirs.push(dir);
  return dir;
};
afterAll(() => stateDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `hawk-scanner import ...` (or, with `viaNpm`, `npm run --silent scanner -- import ...` from the repository root). */
function runCli(args: string[], env: Record<string, string>, viaNpm = false): Promise<Run> {
  const [command, prefix] = viaNpm
    ? ['npm', ['run', '--silent', 'scanner', '--', 'import']]
    : [process.execPath, [join(ROOT, 'scanner/bin/hawk-scanner.mjs'), 'import']];
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefix, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const cliEnv = (tenant: Tenant, stateDir: string, url = baseUrl()) => ({
  HAWK_API_KEY: tenant.apiKey,
  HAWK_API_URL: url,
  HAWK_STATE_DIR: stateDir,
});
const scanIdOf = (run: Run) => run.stdout.match(/imported as scan ([0-9a-f-]{36}) /)?.[1] ?? '';

describe('hawk-scanner import on every sample', () => {
  it.each(SAMPLES)(
    '%s: the scan read back matches the count from the file',
    async (file) => {
      const tenant = await createTenant();
      const appId = await createApp(tenant, { name: 'cli' });
      const run = await runCli(['--app', appId, '--env', 'ci', join(FIXTURES, file)], cliEnv(tenant, newStateDir()));
      expect(run.code, run.stderr).toBe(0);
      const expected = expectedAlerts(file);
      const uris = expected.reduce((n, a) => n + a.uriCount, 0);
      // One summary line on stdout.
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      expect(run.stdout).toMatch(
        new RegExp(
          `^hawk-scanner import: .*${file.replace(/\./g, '\\.')} \\(ZAP [a-z-]+ .*\\) imported as scan [0-9a-f-]{36} of environment ci: ${expected.length} alerts, ${uris} findings; untriaged High \\d+, Medium \\d+, Low \\d+, Info \\d+`,
        ),
      );
      expect(run.stderr).toMatch(/100% \(\d+\/\d+ findings\)/); // progress (not a terminal: a line per tenth)
      const back = await readBack(tenant.token, scanIdOf(run));
      expectMatches(back, expected);
      expect(back.result.scan.status).toBe('COMPLETED');
    },
    180_000,
  );

  it('is reachable from the repository root as npm run scanner -- import', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'npm' });
    const file = 'zap-xml_2.7.0_crlf_defectdojo-zap_sample.xml';
    const run = await runCli(
      ['--app', appId, '--env', 'ci', join(FIXTURES, file)],
      cliEnv(tenant, newStateDir()),
      true,
    );
    expect(run.code, run.stderr).toBe(0);
    expectMatches(await readBack(tenant.token, scanIdOf(run)), expectedAlerts(file));
  });
});

/** A proxy in front of the test server that can lose answers and go down, counting the findings reports. */
function flakyProxy() {
  const target = new URL(baseUrl());
  const sockets = new Set<Socket>();
  const behaviour = { reports: 0, loseAnswerOfReport: 0, downAfterReport: Infinity };
  const server: Server = createServer((req, res) => {
    const isReport = req.method === 'POST' && /\/alerts$/.test(req.url ?? '');
    const n = isReport ? ++behaviour.reports : 0;
    if (isReport && n > behaviour.downAfterReport) {
      req.socket.destroy(); // the service is unreachable
      return;
    }
    const forward = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        if (isReport && n === behaviour.loseAnswerOfReport) {
          answer.resume();
          answer.on('end', () => req.socket.destroy()); // counted by the service, the answer lost on the way
          return;
        }
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return {
    behaviour,
    start: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
      ),
    stop: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
}

describe('network failures', () => {
  const proxy = flakyProxy();
  let url = '';
  beforeAll(async () => {
    url = await proxy.start();
  });
  afterAll(() => proxy.stop());

  const file = 'zap-json_2.11.1_itsecgames_bcgov.json'; // 803 findings: 9 reports of 100

  it('resends a findings report whose answer was lost, and the service counts it once', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'lost answer' });
    Object.assign(proxy.behaviour, { reports: 0, loseAnswerOfReport: 3, downAfterReport: Infinity });
    const run = await runCli(
      ['--app', appId, '--env', 'ci', '--batch-size', '100', join(FIXTURES, file)],
      cliEnv(tenant, newStateDir(), url),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('(retrying)');
    expect(proxy.behaviour.reports).toBe(10); // 9 reports, the third sent twice
    expectMatches(await readBack(tenant.token, scanIdOf(run)), expectedAlerts(file));
  }, 180_000);

  it('fails with a clear message when the service stays unreachable, and a second run resumes where the first stopped', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'resumed' });
    const stateDir = newStateDir();
    Object.assign(proxy.behaviour, { reports: 0, loseAnswerOfReport: 0, downAfterReport: 4 });
    const args = ['--app', appId, '--env', 'ci', '--batch-size', '100', join(FIXTURES, file)];
    const failed = await runCli(args, { ...cliEnv(tenant, stateDir, url), HAWK_IMPORT_RETRIES: '1' });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/POST \/api\/v1\/scan\/[0-9a-f-]{36}\/alerts failed after 2 attempts: fetch failed/);
    expect(failed.stderr).toContain('Run the same command again to continue');
    expect(failed.stdout).toBe('');
    expect(readdirSync(stateDir)).toHaveLength(1);
    // Meanwhile the scan is STARTED with the first four reports counted.
    const scans = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token, query: { appIds: appId } });
    const [started] = scans.body.applicationScanResults;
    expect(started.scan.status).toBe('STARTED');
    expect(started.alertStats.totalAlerts).toBe(400);

    Object.assign(proxy.behaviour, { reports: 0, downAfterReport: Infinity });
    const resumed = await runCli(args, cliEnv(tenant, stateDir, url));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming scan ${started.scan.id} at findings report 5 of 9`);
    expect(scanIdOf(resumed)).toBe(started.scan.id);
    expect(proxy.behaviour.reports).toBe(5);
    expect(readdirSync(stateDir)).toHaveLength(0);
    expectMatches(await readBack(tenant.token, started.scan.id), expectedAlerts(file));
  }, 180_000);
});

describe('CI gates and bad input', () => {
  it('--fail-on exits 3 while untriaged findings of that severity or higher remain, 0 once they are triaged', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'gate' });
    const highs = join(FIXTURES, 'zap-json_2.17.0_multisite_insights_ahmedmelenany.json'); // 2 High alerts
    const infos = join(FIXTURES, 'zap-xml-plus_2.16.1_req-resp_defectdojo.xml'); // Informational only
    const env = cliEnv(tenant, newStateDir());
    const gated = await runCli(['--app', appId, '--env', 'ci', '--fail-on', 'high', highs], env);
    expect(gated.code).toBe(3);
    expect(gated.stderr).toMatch(
      /hawk-scanner import: \d+ untriaged findings of severity High or higher \(--fail-on high\)/,
    );
    expect(scanIdOf(gated)).not.toBe(''); // imported all the same
    expect((await runCli(['--app', appId, '--env', 'info', '--fail-on', 'low', infos], env)).code).toBe(0);
    expect((await runCli(['--app', appId, '--env', 'info', '--fail-on', 'info', infos], env)).code).toBe(3);

    // Triage every High finding as a false positive: the same report then passes the gate.
    const back = await readBack(tenant.token, scanIdOf(gated));
    const hashes = back.result.applicationAlerts
      .filter((a: { severity: string }) => a.severity === 'High')
      .flatMap((a: { pluginId: string }) => [...new Set(back.hashes[a.pluginId])]);
    const envId = back.result.scan.envId;
    const triage = await api('POST', `/api/v1/org/${tenant.orgId}/app/${appId}/env/${envId}/findings/triage`, {
      token: tenant.token,
      body: { actions: hashes.map((findingHash: string) => ({ findingHash, status: 'FALSE_POSITIVE' })) },
    });
    expect(triage.status, triage.text).toBe(200);
    const passed = await runCli(['--app', appId, '--env', 'ci', '--fail-on', 'high', highs], env);
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout).toMatch(/untriaged High 0, /);
  }, 120_000);

  it('--fail-on new:high exits 3 only when the import brings a new or regressed High; --summary markdown lists the sets', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'new-gate' });
    const highs = join(FIXTURES, 'zap-json_2.17.0_multisite_insights_ahmedmelenany.json'); // 2 High alerts
    const infos = join(FIXTURES, 'zap-xml-plus_2.16.1_req-resp_defectdojo.xml'); // Informational only
    const env = cliEnv(tenant, newStateDir());
    const gate = ['--app', appId, '--env', 'ci', '--fail-on', 'new:high', '--summary', 'markdown'];
    type Entry = { severity: string; name: string; pluginId: string; method: string; uri: string; param: string };
    const rows = (entries: Entry[]) =>
      entries
        .slice(0, 50)
        .map((f) => `| ${f.severity} | ${f.name} (${f.pluginId}) | ${f.method} | ${f.uri} | ${f.param} |`);
    /** The run's summary against the service's own diff of the imported scan: counts, lists and links. */
    const expectSummary = async (run: Run) => {
      const scanId = run.stderr.match(/imported as scan ([0-9a-f-]{36}) /)?.[1] ?? ''; // the one-line summary: stderr
      const diff = await api('GET', `/api/v1/scan/${scanId}/diff`, { token: tenant.token });
      expect(diff.status, diff.text).toBe(200);
      const sets = diff.body as Record<'new' | 'regressed' | 'fixed' | 'unchanged', Entry[]> & {
        againstScanId: string;
      };
      const link = (id: string) => `${baseUrl()}/org/${tenant.orgId}/scan/${id}`;
      expect(run.stdout).toContain(`[Scan ${scanId}](${link(scanId)}), `);
      if (sets.againstScanId) expect(run.stdout).toContain(`against [the previous scan](${link(sets.againstScanId)})`);
      expect(run.stdout).toContain(
        `**${sets.new.length} new**, **${sets.regressed.length} regressed**, **${sets.fixed.length} fixed**, ${sets.unchanged.length} unchanged.`,
      );
      for (const [title, set] of [
        ['New', sets.new],
        ['Regressed', sets.regressed],
        ['Fixed', sets.fixed],
      ] as const) {
        const listed = run.stdout.split(`### ${title} (`)[1]?.split('\n### ')[0] ?? '';
        expect(listed.split('\n').filter((l) => /^\| (High|Medium|Low|Info) /.test(l))).toEqual(rows(set));
      }
      return sets;
    };

    const first = await runCli([...gate, highs], env); // the stream's first scan: every finding is new
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toMatch(
      /hawk-scanner import: \d+ new or regressed findings of severity High or higher \(--fail-on new:high\)/,
    );
    expect(first.stdout).toMatch(/^## ZAP import\n/);
    const firstSets = await expectSummary(first);
    expect(firstSets.new.some((f) => f.severity === 'High')).toBe(true);

    const again = await runCli([...gate, highs], env); // the same report: nothing new, untriaged Highs all the same
    expect(again.code, again.stderr).toBe(0);
    expect((await expectSummary(again)).new).toEqual([]);

    const smaller = await runCli([...gate, infos], env); // new Info findings only; the Highs are fixed
    expect(smaller.code, smaller.stderr).toBe(0);
    const smallerSets = await expectSummary(smaller);
    expect(smallerSets.new.length).toBeGreaterThan(0);
    expect(smallerSets.fixed.map((f) => f.uri).sort()).toEqual(firstSets.new.map((f) => f.uri).sort());
    expect((await runCli(['--app', appId, '--env', 'ci', '--fail-on', 'new:info,overdue', infos], env)).code).toBe(0);

    const back = await runCli([...gate, highs], env); // the fixed Highs are back: regressed
    expect(back.code, back.stderr).toBe(3);
    expect((await expectSummary(back)).regressed.some((f) => f.severity === 'High')).toBe(true);

    const bad = await runCli(['--app', appId, '--env', 'ci', '--fail-on', 'new:urgent', highs], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('new:<severity>');
    expect((await runCli(['--app', appId, '--env', 'ci', '--summary', 'html', highs], env)).stderr).toContain(
      '--summary must be markdown',
    );
  }, 180_000);

  it('--fail-on overdue exits 3 while findings of the scan are past their due date (the SLA policy), 0 otherwise', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'sla-gate' });
    const highs = join(FIXTURES, 'zap-json_2.17.0_multisite_insights_ahmedmelenany.json'); // 2 High alerts
    const env = cliEnv(tenant, newStateDir());
    const fresh = await runCli(['--app', appId, '--env', 'ci', '--fail-on', 'overdue', highs], env);
    expect(fresh.code, fresh.stderr).toBe(0); // just found: nothing is due yet

    // The same findings, first seen 40 days ago: past the default 30 days of a High finding.
    const envId = (await readBack(tenant.token, scanIdOf(fresh))).result.scan.envId;
    const longAgo = Date.now() - 40 * 86_400_000;
    let highFindings = 0;
    for await (const f of findingsOfEnvironment({ applicationId: appId, environmentId: envId })) {
      if (f.severity === 'High') highFindings++;
      await db.send(
        new UpdateCommand({
          TableName: process.env.TABLE_NAME,
          Key: keys.finding(appId, envId, f.findingHash!),
          UpdateExpression: 'SET firstSeen = :t',
          ExpressionAttributeValues: { ':t': longAgo },
        }),
      );
    }
    expect(highFindings).toBeGreaterThan(0);
    const late = await runCli(['--app', appId, '--env', 'ci', '--fail-on', 'high,overdue', highs], env);
    expect(late.code).toBe(3);
    expect(late.stderr).toMatch(
      new RegExp(
        `hawk-scanner import: \\d+ findings past their due date \\(High ${highFindings}, Medium \\d+, Low \\d+; --fail-on overdue\\)`,
      ),
    );
    expect(late.stderr).toMatch(/High \S+ GET https?:\/\/\S+: due \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ days late\)/);

    // A longer SLA: the same scan is in time again.
    const sla = await api('PUT', `/api/v1/org/${tenant.orgId}/sla`, {
      token: tenant.token,
      body: { days: { High: 60, Medium: 60, Low: 60 } },
    });
    expect(sla.status).toBe(200);
    const inTime = await runCli(['--app', appId, '--env', 'ci', '--fail-on', 'overdue', highs], env);
    expect(inTime.code, inTime.stderr).toBe(0);
    const bad = await runCli(['--app', appId, '--env', 'ci', '--fail-on', 'high,low', highs], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--fail-on takes one severity');
  }, 180_000);

  it('exits 2 on bad usage or a report it cannot read, and 1 when the service refuses, naming why', async () => {
    const tenant = await createTenant();
    const appId = await createApp(tenant, { name: 'refused' });
    const stateDir = newStateDir();
    const sample = join(FIXTURES, SAMPLES[0]);
    const noKey = await runCli(['--app', appId, '--env', 'ci', sample], {
      HAWK_API_URL: baseUrl(),
      HAWK_STATE_DIR: stateDir,
    });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('the API key is missing: set HAWK_API_KEY');
    const noUrl = await runCli(['--app', appId, '--env', 'ci', sample], {
      HAWK_API_KEY: tenant.apiKey,
      HAWK_STATE_DIR: stateDir,
    });
    expect(noUrl.stderr).toContain('pass --url https://... or set HAWK_API_URL');
    expect((await runCli(['--app', 'nope', '--env', 'ci', sample], cliEnv(tenant, stateDir))).stderr).toContain(
      '--app must be the application id',
    );
    const malformed = await runCli(
      ['--app', appId, '--env', 'ci', join(FIXTURES, 'zap-xml_malformed_defectdojo.xml')],
      cliEnv(tenant, stateDir),
    );
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/is not an importable report: malformed XML at line 1, column 1/);
    const other = join(stateDir, 'other.json');
    // JSON, but no known tool's report (a SARIF log of any tool is importable now: docs/IMPORTS.md).
    writeFileSync(other, JSON.stringify({ tool: 'Semgrep', results: [] }));
    const unknown = await runCli(['--app', appId, '--env', 'ci', other], cliEnv(tenant, stateDir));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('not a report of a known tool');
    const badKey = await runCli(['--app', appId, '--env', 'ci', sample], {
      ...cliEnv(tenant, stateDir),
      HAWK_API_KEY: 'hawk.nope.nope',
    });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/login with HAWK_API_KEY failed \(401\)/);
    const stranger = await createTenant();
    const theirs = await runCli(['--app', appId, '--env', 'ci', sample], cliEnv(stranger, stateDir));
    expect(theirs.code).toBe(1);
    expect(theirs.stderr).toMatch(/POST \/api\/v1\/app\/[0-9a-f-]{36}\/scan answered 404/);
    const scans = await api('GET', `/api/v1/scan/${tenant.orgId}`, { token: tenant.token, query: { appIds: appId } });
    expect(scans.body.applicationScanResults).toEqual([]);
    expect(existsSync(join(stateDir, 'other.json'))).toBe(true);
    expect(readdirSync(stateDir)).toEqual(['other.json']);
  });
});
