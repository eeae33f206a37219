import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openApiText } from '../../scripts/openapi.ts';
import { compileDescriptor, generatedProtoFiles } from '../../scripts/proto.ts';
import { routes } from '../../shared/routes.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('generated artefacts are current (regenerate with `npm run proto && npm run openapi`)', () => {
  it('shared/proto/*.proto match the public OpenAPI schemas the route table answers with', () => {
    for (const [file, text] of generatedProtoFiles()) expect(read(`shared/proto/${file}`), file).toBe(text);
  });

  it('shared/proto/descriptor.json is compiled from the .proto files', () => {
    expect(read('shared/proto/descriptor.json')).toBe(compileDescriptor());
  });

  it('openapi.json is generated from the route table', () => {
    expect(read('openapi.json')).toBe(openApiText());
  });

  it("scanner/src/api/schema.gen.ts (the scanner client's types) is what its generate script makes of openapi.json", () => {
    // The script's own arguments, written to stdout instead of its -o file.
    const script: string = JSON.parse(read('scanner/package.json')).scripts.generate;
    const [command, ...args] = script.split(' ');
    const output = args.indexOf('-o');
    args.splice(output, 2);
    expect([command, output]).toEqual(['openapi-typescript', 1]);
    const cli = new URL('../../node_modules/openapi-typescript/bin/cli.js', import.meta.url).pathname;
    const cwd = new URL('../../scanner', import.meta.url).pathname;
    const generated = execFileSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(read('scanner/src/api/schema.gen.ts') === generated, 'run `npm run openapi`').toBe(true);
  });
});

describe('openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(JSON.parse(read('openapi.json')));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every route with its permission and audit type', () => {
    const document = JSON.parse(read('openapi.json'));
    for (const route of routes) {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      expect(operation.operationId).toBe(route.operationId);
      expect(operation['x-permission']).toBe(route.permission);
      expect(operation['x-audit-type']).toBe(route.audit);
    }
  });
});
