import { describe, expect, inject, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs/light.js';
import { descriptorOf, typesNamedIn } from '../../infra/proto-descriptors.ts';
import { routes } from '../../shared/routes.ts';

// Per-function protobuf descriptors: each deployed function carries the messages its code names and those
// they refer to. What the synthesized app wrote for each function must hold its route's response, complete (every
// referenced type resolves); the lambda-events test then runs those bundles.
const { dir } = inject('cloudAssembly');
const functionId = (operationId: string) => `${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}Function`;

describe('per-function protobuf descriptors', () => {
  it("give every route's function its response message and everything it refers to, and little else", () => {
    for (const route of routes.filter((r) => !['empty', 'noContent', 'raw'].includes(r.response))) {
      const descriptor = JSON.parse(
        readFileSync(join(dir, 'descriptors', `${functionId(route.operationId)}.json`), 'utf8'),
      );
      const root = protobuf.Root.fromJSON(descriptor);
      expect(() => root.resolveAll(), route.operationId).not.toThrow();
      expect(root.lookupType(route.response).fullName, route.operationId).toBe(`.${route.response}`);
    }
    const single = JSON.stringify(
      JSON.parse(readFileSync(join(dir, 'descriptors', 'GetApplicationFunction.json'), 'utf8')),
    );
    const whole = JSON.stringify(
      JSON.parse(readFileSync(new URL('../../shared/proto/descriptor.json', import.meta.url), 'utf8')),
    );
    expect(single.length).toBeLessThan(whole.length / 20);
  });

  it('reads the message names a bundle spells out, and closes them over their references', () => {
    expect(
      typesNamedIn(`const a = "application.Application"; validate('hawkscan.HawkscanConf'); "application.Nope"`).sort(),
    ).toEqual(['application.Application', 'hawkscan.HawkscanConf']);
    const root = protobuf.Root.fromJSON(descriptorOf(['application.Application']));
    root.resolveAll();
    expect(root.lookupType('application.CloudScanTarget')).toBeTruthy(); // referenced by Application.cloudScanTarget
    expect(root.lookup('user.UserResponse')).toBeNull();
  });
});
