import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { defaultEngines } from '../src/agent/agent.ts';
import { EngineError } from '../src/engines/engine.ts';
import { ZAP_INSTALL, zapBudget, zapEngine, zapPlan } from '../src/engines/zap.ts';

// OWASP ZAP as an engine (docs/HOSTED-SCANS.md, Engines): the Automation Framework plan generated from a run, and a
// ZAP that is not installed. ZAP itself is not installed here; its runs are not faked.

const now = Date.UTC(2026, 0, 1, 12, 0, 0);
const run = {
  targetUrl: 'https://shop.example.test:8443/app/index.html',
  headers: { cookie: 'sid=abc; other=1', authorization: 'Bearer t0k3n' },
  startUrls: ['https://shop.example.test:8443/app/account'],
  deadline: now + 30 * 60_000,
  workDir: '/tmp/hawk-agent-x',
};

describe('the ZAP plan', () => {
  it('scopes a context to the target, sets the session through the replacer, seeds, spiders, scans and reports traditional-json', () => {
    const plan = parse(zapPlan(run, now));
    expect(plan.env).toEqual({
      contexts: [
        {
          name: 'hawk',
          urls: [run.targetUrl],
          includePaths: ['https://shop\\.example\\.test:8443/app/.*'],
        },
      ],
      parameters: { failOnError: true, failOnWarning: false, progressToStdout: true },
    });
    const scope = new RegExp(`^${plan.env.contexts[0].includePaths[0]}$`);
    expect(scope.test('https://shop.example.test:8443/app/notes?x=1')).toBe(true);
    expect(scope.test('https://shopXexample.test:8443/app/')).toBe(false);
    expect(scope.test('https://shop.example.test:8443/other/')).toBe(false);
    expect(plan.jobs.map((job: { type: string }) => job.type)).toEqual([
      'replacer',
      'requestor',
      'spider',
      'passiveScan-wait',
      'activeScan',
      'report',
    ]);
    expect(plan.jobs[0]).toMatchObject({
      parameters: { deleteAllRules: true },
      rules: [
        { matchType: 'req_header', matchString: 'cookie', matchRegex: false, replacementString: 'sid=abc; other=1' },
        { matchType: 'req_header', matchString: 'authorization', replacementString: 'Bearer t0k3n' },
      ],
    });
    expect(plan.jobs[1].requests).toEqual([{ url: 'https://shop.example.test:8443/app/account', method: 'GET' }]);
    expect(plan.jobs[2].parameters).toMatchObject({ context: 'hawk', url: run.targetUrl });
    expect(plan.jobs[5].parameters).toEqual({
      template: 'traditional-json',
      reportDir: '/tmp/hawk-agent-x',
      reportFile: 'zap-report',
    });
  });

  it('keeps every job within the deadline, and has no replacer without a session', () => {
    const plan = parse(zapPlan({ ...run, headers: {}, startUrls: [] }, now));
    expect(plan.jobs.map((job: { type: string }) => job.type)).toEqual([
      'spider',
      'passiveScan-wait',
      'activeScan',
      'report',
    ]);
    const [spider, passive, active] = plan.jobs;
    // 30 minutes to the deadline: 29 for the jobs, one for ZAP's start and its report.
    expect(
      spider.parameters.maxDuration + passive.parameters.maxDuration + active.parameters.maxScanDurationInMins,
    ).toBe(29);
    expect(active.parameters.maxRuleDurationInMins).toBeLessThanOrEqual(active.parameters.maxScanDurationInMins);
    for (const minutes of [3, 4, 10, 59, 600]) {
      const budget = zapBudget(minutes);
      expect(budget.spider + budget.passive + budget.active).toBeLessThanOrEqual(Math.max(minutes, 3));
      expect(Math.min(budget.spider, budget.passive, budget.active)).toBeGreaterThanOrEqual(1);
    }
    expect(() => zapPlan({ ...run, deadline: now + 3 * 60_000 }, now)).toThrow(EngineError);
  });
});

describe("the ZAP plan's scan policy", () => {
  it("turns the policy's disabled plugins off in the passive scanner, before any request, and in the active scan", () => {
    const plan = parse(zapPlan({ ...run, excludedPluginIds: ['40018', '10010', 'hawk.authz.bola'] }, now));
    expect(plan.jobs.map((job: { type: string }) => job.type)).toEqual([
      'replacer',
      'passiveScan-config',
      'requestor',
      'spider',
      'passiveScan-wait',
      'activeScan',
      'report',
    ]);
    // Only ZAP's numbered rules: another plugin id names no rule of ZAP's.
    expect(plan.jobs[1].rules).toEqual([
      { id: 40018, threshold: 'off' },
      { id: 10010, threshold: 'off' },
    ]);
    expect(plan.jobs[5].policyDefinition).toEqual({
      rules: [
        { id: 40018, strength: 'medium', threshold: 'off' },
        { id: 10010, strength: 'medium', threshold: 'off' },
      ],
    });
    // A policy that disables nothing leaves ZAP's defaults.
    const all = parse(zapPlan({ ...run, excludedPluginIds: [] }, now));
    expect(all.jobs.map((job: { type: string }) => job.type)).not.toContain('passiveScan-config');
    expect(all.jobs.find((job: { type: string }) => job.type === 'activeScan').policyDefinition).toBeUndefined();
  });
});

describe('a ZAP that is not installed', () => {
  const missing = zapEngine({ command: '/nonexistent/zap.sh' });

  it('reads as not installed, and its run fails saying how to install it', async () => {
    expect(await missing.version()).toBeUndefined();
    expect(missing.install).toBe(ZAP_INSTALL);
    const lines: string[] = [];
    const workDir = await mkdtemp(join(tmpdir(), 'hawk-zap-test-'));
    await expect(
      missing.run({
        ...run,
        targetUrl: 'http://127.0.0.1:9/',
        deadline: Date.now() + 30 * 60_000,
        workDir,
        signal: new AbortController().signal,
        log: (line) => lines.push(line),
      }),
    ).rejects.toThrow(/ZAP could not start .*install OWASP ZAP 2\.14 or later.*HAWK_ZAP/);
    // The session's values never reach the log.
    expect(lines.join('\n')).not.toContain('t0k3n');
    await rm(workDir, { recursive: true, force: true });
  });

  it('is chosen alone with HAWK_ENGINE=zap; an unknown engine is refused', () => {
    expect(defaultEngines('zap').map((engine) => engine.name)).toEqual(['zap']);
    expect(defaultEngines(undefined).map((engine) => engine.name)).toEqual(['wapiti', 'zap']);
    expect(() => defaultEngines('nikto')).toThrow(/HAWK_ENGINE must be wapiti or zap/);
  });
});
