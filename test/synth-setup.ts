import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

// Synthesizes the CDK app once, as `cdk synth` does (esbuild bundles every function locally; no Docker, no AWS
// credentials), for the tests that read what would be deployed: the template (test/infra) and each function's
// bundle (the IAM coverage test, the Lambda-event harness). Workers get the cloud assembly's directory.

declare module 'vitest' {
  export interface ProvidedContext {
    cloudAssembly: { dir: string; stackName: string };
  }
}

const STACK_NAME = 'TestStack';
let synthesized: Promise<string> | undefined;

async function synthesize(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'hawk-synth-'));
  const { App } = await import('aws-cdk-lib');
  const { HawkApiStack } = await import('../infra/stack.ts');
  const { quietBundling } = await import('../infra/quiet.ts');
  const app = new App({ outdir: dir, context: { 'aws:cdk:enable-asset-metadata': true } });
  quietBundling(() => new HawkApiStack(app, STACK_NAME));
  app.synth();
  return dir;
}

export default async function setup(project: TestProject) {
   synthesized ??= synthesize();
  const dir = await synthesized;
  project.provide('cloudAssembly', { dir, stackName: STACK_NAME });
  return () => rmSync(dir, { recursive: true, force: true });
}

/** The synthesized template and, by function logical id, the bundle (index.mjs) CDK staged for it. */
export function readCloudAssembly({ dir, stackName }: { dir: string; stackName: string }) {
  const template = JSON.parse(readFileSync(join(dir, `${stackName}.template.json`), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: Record<string, any>; Metadata?: Record<string, string> }>;
  };
  const bundles = new Map<string, string>();
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type === 'AWS::Lambda::Function') bundles.set(id, join(dir, resource.Metadata!['aws:asset:path'], 'index.mjs'));
  }
  return { template, bundles };
}
