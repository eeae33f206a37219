import { describe, expect, inject, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { HawkApiStack, table } from '../../infra/stack.ts';
import { declaredTable, indexSteps, MAIN_TABLE_INDEXES_CONTEXT } from '../../infra/index-steps.ts';
import { declaresOperationRoutes, holdsOperationRoutes, OPERATION_ROUTES_CONTEXT } from '../../infra/route-move.ts';
import { mainTable } from '../../shared/db/tables.ts';
import { routes } from '../../shared/routes.ts';
import { SERVICE_PATHS } from '../../shared/service/pages.ts';
import { readCloudAssembly } from '../synth-setup.ts';

// Deploying over a stack whose table lacks indexes (npm run upgrade): CloudFormation creates at most one global
// secondary index per table update, so each step's template must differ from the one before by one added index.
// And over a stack whose API stack holds the operations' routes: a deploy without them first (infra/route-move.ts).

type Gsi = { IndexName: string; [key: string]: unknown };
const gsisOf = (template: { Resources: Record<string, { Type: string; Properties: Record<string, any> }> }): Gsi[] => {
  const tables = Object.values(template.Resources).filter((r) => r.Type === 'AWS::DynamoDB::GlobalTable');
  return (
    tables.find((t) => (t.Properties.GlobalSecondaryIndexes ?? []).length > 0)?.Properties.GlobalSecondaryIndexes ?? []
  );
};

/**
 * The first deploy of `npm run upgrade` over a stack of an earlier version (scripts/upgrade.ts): the table with the
 * indexes it has, and no operation routes (infra/route-move.ts). The API stack's template and its nested stacks',
 * synthesized without bundling (slow: once).
 */
const upgradeStep = (() => {
  let templates: { parent: Template; nested: Template[] } | undefined;
  return () => {
    if (templates) return templates;
    const outdir = mkdtempSync(join(tmpdir(), 'hawk-steps-'));
    try {
      const app = new App({
        outdir,
        context: {
          'aws:cdk:bundling-stacks': [],
          [MAIN_TABLE_INDEXES_CONTEXT]: 'gsi1,gsi2,gsi3,gsi1c',
          [OPERATION_ROUTES_CONTEXT]: 'none',
        },
      });
      const stack = new HawkApiStack(app, 'StepStack');
      const nested = stack.node.children.filter((c): c is NestedStack => NestedStack.isNestedStack(c));
      templates = { parent: Template.fromStack(stack), nested: nested.map((n) => Template.fromStack(n)) };
      return templates;
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  };
})();

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
      'gsi1,gsi2,gsi3,gsi1c,gsi2c,gsi3c,gsi4,gsi5,gsi6,gsi7,gsi2r',
    ]);
    // Resumed after step 2 (whatever order the table lists its indexes in).
    expect(indexSteps(mainTable, ['gsi2c', 'gsi3', 'gsi1', 'gsi1c', 'gsi2'])).toHaveLength(6);
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
    const gsis = gsisOf(upgradeStep().parent.toJSON() as never);
    expect(gsis.map((g) => g.IndexName)).toEqual(['gsi1', 'gsi2', 'gsi3', 'gsi1c']);
  }, 300_000);

  it("moves the operations' routes into the nested stacks over two deploys: first none, functions already there", () => {
    const { parent, nested } = upgradeStep();
    const count = (template: Template, type: string) => Object.keys(template.findResources(type)).length;
    // Every operation's function (and webhook delivery's relay and consumer, which serve no route).
    const operationFunctions = (template: Template) =>
      Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) =>
        routes.some((r) => fn.Properties.Description === `${r.method} ${r.path}`),
      ).length;
    expect(nested.reduce((n, t) => n + operationFunctions(t), 0)).toBe(routes.length);
    for (const type of ['AWS::ApiGatewayV2::Route', 'AWS::ApiGatewayV2::Integration'])
      expect(
        nested.reduce((n, t) => n + count(t, type), 0),
        type,
      ).toBe(0);
    // No permission for API Gateway to invoke (the relay's schedule keeps its own, for EventBridge).
    const apiPermissions = (template: Template) =>
      Object.values(template.findResources('AWS::Lambda::Permission')).filter(
        (p) => p.Properties.Principal === 'apigateway.amazonaws.com',
      ).length;
    expect(nested.reduce((n, t) => n + apiPermissions(t), 0)).toBe(0);
    // The service function keeps its routes.
    expect(count(parent, 'AWS::ApiGatewayV2::Route')).toBe(SERVICE_PATHS.length);

    // The upgrade takes that step over an API stack that holds more routes than the service's, and only then.
    const flat = [...SERVICE_PATHS, ...routes].map(() => 'AWS::ApiGatewayV2::Route');
    expect(holdsOperationRoutes(['AWS::Lambda::Function', ...flat], SERVICE_PATHS)).toBe(true);
    const now = [...SERVICE_PATHS.map(() => 'AWS::ApiGatewayV2::Route'), 'AWS::CloudFormation::Stack'];
    expect(holdsOperationRoutes(now, SERVICE_PATHS)).toBe(false);
    expect(declaresOperationRoutes(undefined)).toBe(true);
    expect(declaresOperationRoutes('none')).toBe(false);
    expect(() => declaresOperationRoutes('some')).toThrow(/operationRoutes/);
  }, 300_000);

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
