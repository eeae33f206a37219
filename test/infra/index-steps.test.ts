import { describe, expect, inject, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { HawkApiStack, table } from '../../infra/stack.ts';
import { declaredTable, indexSteps, MAIN_TABLE_INDEXES_CONTEXT } from '../../infra/index-steps.ts';
import { mainTable } from '../../shared/db/tables.ts';
import { readCloudAssembly } from '../synth-setup.ts';

// Deploying over a stack whose table lacks indexes (npm run upgrade): CloudFormation creates at most one global
// secondary index per table update, so each step's template must differ from the one before by one added index.

type Gsi = { IndexName: string; [key: string]: unknown };
const gsisOf = (template: { Resources: Record<string, { Type: string; Properties: Record<string, any> }> }): Gsi[] => {
  const tables = Object.values(template.Resources).filter((r) => r.Type === 'AWS::DynamoDB::GlobalTable');
  return (
    tables.find((t) => (t.Properties.GlobalSecondaryIndexes ?? []).length > 0)?.Properties.GlobalSecondaryIndexes ?? []
  );
};

/** The API stack's template with this context value, synthesized without bundling (slow: once). */
function stackSynthesized(indexes: string): Gsi[] {
  const outdir = mkdtempSync(join(tmpdir(), 'hawk-steps-'));
  try {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], [MAIN_TABLE_INDEXES_CONTEXT]: indexes } });
    const stack = new HawkApiStack(app, 'StepStack');
    return gsisOf(Template.fromStack(stack).toJSON() as never);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The main table as the stack builds it (infra/stack.ts table()) for this context value, in a stack of its own. */
function tableSynthesized(indexes: string): Gsi[] {
  const stack = new Stack(new App(), 'TableStack');
  table(stack, declaredTable(mainTable, indexes), true);
  return gsisOf(Template.fromStack(stack).toJSON() as never);
}

describe('index steps', () => {
  const earlier = ['gsi1', 'gsi2', 'gsi3'];

  it('plans one added index per deploy, in the definition order, and nothing when none is missing', () => {
    expect(indexSteps(mainTable, earlier)).toEqual([
      'gsi1,gsi2,gsi3,gsi1c',
      'gsi1,gsi2,gsi3,gsi1c,gsi2c',
      'gsi1,gsi2,gsi3,gsi1c,gsi2c,gsi3c',
      'gsi1,gsi2,gsi3,gsi1c,gsi2c,gsi3c,gsi4',
      'gsi1,gsi2,gsi3,gsi1c,gsi2c,gsi3c,gsi4,gsi5',
      'gsi1,gsi2,gsi3,gsi1c,gsi2c,gsi3c,gsi4,gsi5,gsi6',
      'gsi1,gsi2,gsi3,gsi1c,gsi2c,gsi3c,gsi4,gsi5,gsi6,gsi7',
    ]);
    // Resumed after step 2 (whatever order the table lists its indexes in).
    expect(indexSteps(mainTable, ['gsi2c', 'gsi3', 'gsi1', 'gsi1c', 'gsi2'])).toHaveLength(5);
    expect(
      indexSteps(
        mainTable,
        mainTable.globalSecondaryIndexes.map((i) => i.indexName),
      ),
    ).toEqual([]);
    expect(() => indexSteps(mainTable, [...earlier, 'gsi9'])).toThrow(/gsi9/);
  });

  it('declares every index without the context value, refuses names the table does not define', () => {
    expect(declaredTable(mainTable, undefined)).toBe(mainTable);
    expect(declaredTable(mainTable, 'gsi1,gsi2').globalSecondaryIndexes.map((i) => i.indexName)).toEqual([
      'gsi1',
      'gsi2',
    ]);
    expect(() => declaredTable(mainTable, 'gsi1,gsi8')).toThrow(/gsi8/);
  });

  it('the stack declares the indexes the context value names (synthesized without bundling)', () => {
    expect(stackSynthesized('gsi1,gsi2,gsi3,gsi1c').map((g) => g.IndexName)).toEqual(['gsi1', 'gsi2', 'gsi3', 'gsi1c']);
  }, 120_000);

  it('each step synthesizes the table of the step before plus one index; the last is the full stack table', () => {
    const full = gsisOf(readCloudAssembly(inject('cloudAssembly')).template);
    expect(full.map((g) => g.IndexName)).toEqual(mainTable.globalSecondaryIndexes.map((i) => i.indexName));
    let before = tableSynthesized(earlier.join(','));
    expect(before.map((g) => g.IndexName)).toEqual(earlier);
    for (const step of indexSteps(mainTable, earlier)) {
      const after = tableSynthesized(step);
      const added = after.filter((g) => !before.some((b) => b.IndexName === g.IndexName));
      expect(added, step).toHaveLength(1);
      // The indexes already there are declared exactly as before (a changed one would be replaced: two changes).
      expect(
        after.filter((g) => g !== added[0]),
        step,
      ).toEqual(before);
      before = after;
    }
    expect(before).toEqual(full);
  });
});
