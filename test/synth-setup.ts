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

/** The synthesized template and, by function logical id, the bundle (index.js, infra/bundling.ts) CDK staged for it. */
export function readCloudAssembly({ dir, stackName }: { dir: string; stackName: string }) {
  if (!dir)
    throw new Error('no cloud assembly: this run named files that do not read it (test/synth-setup.ts READERS)');
  const template = JSON.parse(readFileSync(join(dir, `${stackName}.template.json`), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: Record<string, any>; Metadata?: Record<string, string> }>;
  };
  const bundles = new Map<string, string>();
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type === 'AWS::Lambda::Function')
      bundles.set(id, join(dir, resource.Metadata!['aws:asset:path'], FUNCTION_BUNDLE.file));
  }
  return { template, bundles };
}
