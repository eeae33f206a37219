import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { FUNCTION_BUNDLE } from '../infra/bundling.ts';

// Synthesizes the CDK app once per test run, as `cdk synth` does (esbuild bundles every function locally; no
// Docker, no AWS credentials), for the tests that read what would be deployed: the template (test/infra) and each
// function's bundle (the IAM coverage test, the Lambda-event harness). Workers get the cloud assembly's directory.
// It is written under the repository's cdk.out/ so that a bundle's `@aws-sdk/*` imports resolve to
// node_modules, as the Lambda runtime provides the SDK.

declare module 'vitest' {
  export interface ProvidedContext {
    cloudAssembly: { dir: string; stackName: string };
  }
}

const STACK_NAME = 'TestStack';
const ROOT = new URL('..', import.meta.url).pathname;
// Both test projects list this setup; one synthesis serves both (globalThis: one per vitest process).
const shared = globalThis as { hawkSynthesis?: Promise<string>; hawkSynthesisUsers?: number };

async function synthesize(): Promise<string> {
  mkdirSync(join(ROOT, 'cdk.out'), { recursive: true });
  const dir = mkdtempSync(join(ROOT, 'cdk.out', 'test-'));
  const { App } = await import('aws-cdk-lib');
  const { HawkApiStack } = await import('../infra/stack.ts');
  const { quietBundling } = await import('../infra/quiet.ts');
  const app = new App({ outdir: dir, context: { 'aws:cdk:enable-asset-metadata': true } });
  quietBundling(() => new HawkApiStack(app, STACK_NAME));
  app.synth();
  return dir;
}

// The test files that read the cloud assembly. A run that names only other files (`vitest run test/x.test.ts`, as
// while working on one area) skips the synthesis, which bundles every function and costs a minute of CPU.
const READERS = [
  'test/infra/iam.test.ts',
  'test/infra/index-steps.test.ts',
  'test/infra/proto-descriptors.test.ts',
  'test/infra/stack.test.ts',
  'test/integration/lambda-events.test.ts',
];

function namedFilesSkipAssembly(): boolean {
  const args = process.argv.slice(process.argv.indexOf('run') + 1);
  const filters = args.filter((arg) => !arg.startsWith('-'));
  if (process.argv.indexOf('run') < 0 || !filters.length || filters.length !== args.length) return false;
  return !READERS.some((file) => filters.some((filter) => file.includes(filter.replace(/^\.\//, ''))));
}

export default async function setup(project: TestProject) {
  if (namedFilesSkipAssembly()) {
    project.provide('cloudAssembly', { dir: '', stackName: STACK_NAME });
    return;
  }
  shared.hawkSynthesis ??= synthesize();
  shared.hawkSynthesisUsers = (shared.hawkSynthesisUsers ?? 0) + 1;
  const dir = await shared.hawkSynthesis;
  project.provide('cloudAssembly', { dir, stackName: STACK_NAME });
  return () => {
    shared.hawkSynthesisUsers! -= 1;
    if (shared.hawkSynthesisUsers === 0) rmSync(dir, { recursive: true, force: true });
  };
}

type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any> };
type Template = { Resources: Record<string, Resource>; Parameters?: Record<string, unknown> };

/** A template with each `{ Ref: parameter }` replaced by the value given for it. */
function substituted(value: unknown, parameters: Record<string, unknown>): any {
  if (Array.isArray(value)) return value.map((v) => substituted(v, parameters));
  if (value === null || typeof value !== 'object') return value;
  const { Ref: name, ...rest } = value as { Ref?: unknown };
  if (typeof name === 'string' && !Object.keys(rest).length && name in parameters) return parameters[name];
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substituted(v, parameters)]));
}

/**
 * The synthesized templates and, by function logical id, the bundle (index.js, infra/bundling.ts) CDK staged for it.
 * `stacks`: the API stack's template and each of its nested stacks' (infra/stack.ts puts the operations in nested
 * stacks), by file name. `template`: every resource of all of them in one template, as if deployed as one stack:
 * a nested stack's parameters are replaced by what its parent passes (so a function's TABLE_NAME reads
 * `{ Ref: MainTable... }`, the table the API stack declares), and a logical id used twice throws.
 */
export function readCloudAssembly({ dir, stackName }: { dir: string; stackName: string }) {
  if (!dir)
    throw new Error('no cloud assembly: this run named files that do not read it (test/synth-setup.ts READERS)');
  const read = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Template;
  const stacks: { file: string; template: Template }[] = [];
  const template: Template = { Resources: {} };
  const add = (file: string, parameters: Record<string, unknown>) => {
    const own = read(file);
    stacks.push({ file, template: own });
    for (const [id, resource] of Object.entries(own.Resources)) {
      if (id in template.Resources) throw new Error(`logical id ${id} is in two stacks (${file})`);
      const merged = substituted(resource, parameters);
      template.Resources[id] = merged;
      if (resource.Type === 'AWS::CloudFormation::Stack')
        add(resource.Metadata!['aws:asset:path'], merged.Properties.Parameters ?? {});
    }
  };
  add(`${stackName}.template.json`, {});
  const bundles = new Map<string, string>();
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type === 'AWS::Lambda::Function')
      bundles.set(id, join(dir, resource.Metadata!['aws:asset:path'], FUNCTION_BUNDLE.file));
  }
  return { template, stacks, bundles };
}
