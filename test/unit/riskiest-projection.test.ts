import { describe, expect, it } from 'vitest';
import { project } from '../../shared/applications/projections/riskiest-applications.ts';
import { issueCountsChange, openIssueCountsOf } from '../../shared/results/model.ts';
import {
  applicationHealthOf,
  entryOf,
  NO_HEALTH,
  riskOrder,
  riskRank,
  type ApplicationRecord,
  type RiskFigures,
} from '../../shared/applications/model.ts';
import * as applicationHealth from '../../shared/applications/application-figures.ts';
import type { FindingRecord } from '../../shared/results/model.ts';

// The riskiest applications' ranked projection (docs/GOVERNANCE.md, The overview): its sort key orders as riskOrder,
// its entry follows the application's record, and the open figures count issues in their highest open severity.

const app = (health: Partial<typeof NO_HEALTH>, rest: Partial<ApplicationRecord> = {}): ApplicationRecord => ({
  applicationId: '00000000-0000-4000-8000-000000000001',
  organizationId: 'org',
  name: 'a',
  applicationType: 'STANDARD',
  applicationStatus: 'ACTIVE',
  environmentCount: 1,
  createdAt: 0,
  health: { ...NO_HEALTH, ...health },
  healthVersion: 1,
  ...rest,
});

describe('riskRank', () => {
  it('sorts descending exactly as riskOrder, ties by the smaller id first', () => {
    let s = 42;
    const next = (n: number) => {
      s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
      return s % n;
    };
    const entries = Array.from({ length: 400 }, (_, i) => {
      const figures: RiskFigures = {
        openHigh: next(3),
        openMedium: next(3),
        openLow: next(3),
        high: next(3),
        medium: next(3),
        low: next(3),
        total: next(1000),
      };
      const hex = (i * 7919).toString(16).padStart(12, '0');
      return { ...figures, applicationId: `${next(2) ? 'a' : '1'}0000000-0000-4000-8000-${hex}` };
    });
    const byKey = [...entries].sort((a, b) => (riskRank(a) < riskRank(b) ? 1 : riskRank(a) > riskRank(b) ? -1 : 0));
    expect(byKey).toEqual([...entries].sort(riskOrder));
  });
});

describe('the riskiest entry', () => {
  it('exists for a live application with untriaged findings, moves with its figures and goes with its delete', () => {
    expect(entryOf(app({ total: 0, openHigh: 3 }))).toBeUndefined();
    const a = app({ high: 1, total: 1 });
    const b = app({ high: 1, total: 1, openHigh: 1 });
    const created = project(undefined, a).items!;
    expect(created.map((i) => Object.keys(i)[0])).toEqual(['Put']);
    const moved = project(a, b).items!;
    expect(moved.map((i) => Object.keys(i)[0])).toEqual(['Delete', 'Put']);
    const put = created[0]!.Put!.Item!;
    expect(moved[0]!.Delete!.Key).toEqual({ pk: put.pk, sk: put.sk });
    expect(project(b, { ...b, name: 'renamed' }).items!.map((i) => Object.keys(i)[0])).toEqual(['Put']);
    expect(project(b, { ...b, deleting: true }).items!.map((i) => Object.keys(i)[0])).toEqual(['Delete']);
    expect(project(b, { ...b, healthVersion: 2 })).toEqual({});
  });

  it("moves the application's open figures by its environments' open issues", () => {
    const before = { lastScanTotalUntriaged: 2, lastScanHighUntriaged: 2, openIssuesHigh: 1, openIssuesLow: 0 };
    const after = { ...before, openIssuesHigh: 0, openIssuesLow: 2 };
    const counted = applicationHealth.project(app(applicationHealthOf([before])), [
      { environmentId: 'e', before, after },
    ]);
    expect(counted.health).toMatchObject({ high: 2, total: 2, openHigh: 0, openLow: 2 });
    expect(counted.health).toEqual(applicationHealthOf([after]));
  });
});

describe('open issues by severity', () => {
  const f = (hash: string, issueId: string | undefined, severity: FindingRecord['severity'], fixed = false) =>
    ({ findingHash: hash, issueId, severity, ...(fixed && { fixedAt: 1 }) }) as FindingRecord;

  it('count each open issue once, in the highest severity of its open findings', () => {
    const findings = [
      f('1', 'xss', 'Low'),
      f('2', 'xss', 'High'),
      f('3', 'sqli', 'High', true),
      f('4', 'sqli', 'Medium'),
      f('5', 'info', 'Info'),
      f('6', undefined, 'Low'),
      f('7', 'gone', 'High', true),
    ];
    expect(openIssueCountsOf(findings)).toEqual({
      openIssuesHigh: 1,
      openIssuesMedium: 1,
      openIssuesLow: 1,
      openIssuesInfo: 1,
    });
  });

  it("change by one issue's findings before and after", () => {
    const counts = { openIssuesHigh: 4, openIssuesMedium: 2, openIssuesLow: 0 };
    const was = [f('1', 'xss', 'High'), f('2', 'xss', 'Low')];
    expect(issueCountsChange(counts, was, [f('1', 'xss', 'High', true), f('2', 'xss', 'Low')])).toEqual({
      openIssuesHigh: 3,
      openIssuesMedium: 2,
      openIssuesLow: 1,
    });
    expect(issueCountsChange(counts, was, [f('1', 'xss', 'High', true), f('2', 'xss', 'Low', true)])).toEqual({
      ...counts,
      openIssuesHigh: 3,
    });
  });
});
