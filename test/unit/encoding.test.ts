import { describe, expect, it } from 'vitest';
import protobuf from 'protobufjs/light.js';
import {
  assertConvertible,
  enumNames,
  messageProblems,
  toJsonObject,
  toProtobuf,
} from '../../shared/proto/encoding.ts';
import { fromProtobuf, referenceJson, referenceType } from '../protobuf-reference.ts';
import descriptor from '../../shared/proto/descriptor.json' with { type: 'json' };

describe('response encoding through protobuf messages (proto3 JSON mapping)', () => {
  const user = { user: { createdTimestamp: 1700000000123, external: { id: 'u1', email: 'a@b.c', organizations: [] } } };

  it('emits int64 as strings, fills defaults, lists as [] and never null', () => {
    const json = toJsonObject('user.UserResponse', user) as any;
    expect(json.user.createdTimestamp).toBe('1700000000123');
    expect(json.user.external.organizations).toEqual([]);
    expect(json.user.external.fullName).toBe('');
    expect(JSON.stringify(json)).not.toContain('null');
    expect(json.user).not.toHaveProperty('provider'); // an unset sub-message is omitted, not null
  });

  it('emits enums by name and an unset enum as UNKNOWN', () => {
    const json = toJsonObject('user.UserResponse', {
      user: { provider: { slug: 'GITHUB' }, external: { organizations: [{ role: 'OWNER' }, {}] } },
    }) as any;
    expect(json.user.provider.slug).toBe('GITHUB');
    expect(json.user.external.organizations.map((o: any) => o.role)).toEqual(['OWNER', 'UNKNOWN']);
  });

  it('leaves out enum values the public enum lacks: an unset field, list and map entries, unnamed numbers', () => {
    // scanpolicy.Plugin.status: ADDON_STATUS_ALPHA, _BETA, _RELEASE and no UNKNOWN; defaultRisk has a public UNKNOWN.
    const policy = (plugins: object[]) =>
      toJsonObject('scanpolicy.ScanPolicy', { plugins }) as { plugins: Record<string, unknown>[] };
    const [unset, named, unspecified, unnamed] = policy([
      { pluginId: '1' },
      { pluginId: '2', status: 'ADDON_STATUS_BETA' },
      { pluginId: '3', status: 'UNSPECIFIED', pluginType: 'UNKNOWN' },
      { pluginId: '4', status: 99 },
    ]).plugins;
    expect(unset).not.toHaveProperty('status');
    expect(unset).not.toHaveProperty('pluginType');
    expect(unset.defaultRisk).toBe('UNKNOWN');
    expect(named.status).toBe('ADDON_STATUS_BETA');
    expect(unspecified).not.toHaveProperty('status');
    expect(unspecified).not.toHaveProperty('pluginType');
    expect(unnamed).not.toHaveProperty('status');
    const conf = toJsonObject('hawkscan.HawkscanConf', {
      hawk: { spider: { ajaxBrowser: 'UNSPECIFIED' } },
      app: { openApiConf: { includedMethods: ['GET', 'UNSPECIFIED', 'NOT_A_METHOD', 'POST'] } },
    }) as any;
    expect(conf.app.openApiConf.includedMethods).toEqual(['GET', 'POST']);
    expect(conf.hawk.spider).not.toHaveProperty('ajaxBrowser');
    expect(enumNames('scanpolicy.Plugin.Status')).toEqual([
      'ADDON_STATUS_ALPHA',
      'ADDON_STATUS_BETA',
      'ADDON_STATUS_RELEASE',
    ]);
    expect(messageProblems('hawkscan.HawkscanConf', { hawk: { spider: { ajaxBrowser: 'UNSPECIFIED' } } })).toEqual([
      'hawk.spider.ajaxBrowser: must be one of FIREFOX_HEADLESS, CHROME_HEADLESS, FIREFOX, CHROME',
    ]);
  });

  it('round-trips the same content through the protobuf wire format (decoded by protobufjs)', () => {
    expect(fromProtobuf('user.UserResponse', toProtobuf('user.UserResponse', user))).toEqual(
      toJsonObject('user.UserResponse', user),
    );
  });

  it('names the enum values and refuses a shape that cannot be the message, as protobufjs does', () => {
    expect(enumNames('user.UserOrganization.Permissions')).toEqual(
      Object.keys(referenceType('user.UserOrganization').lookupEnum('Permissions').values).filter(
        (name) => name !== 'UNSPECIFIED',
      ),
    );
    expect(() => assertConvertible('hawkscan.HawkscanConf', { app: 'x' })).toThrow(
      '.hawkscan.HawkscanConf.app: object expected',
    );
    expect(() => assertConvertible('hawkscan.HawkscanConf', 'x')).toThrow('.hawkscan.HawkscanConf: object expected');
    expect(messageProblems('hawkscan.HawkscanConf', { app: { constructor: 1, applicationId: 3 } })).toEqual([
      'app.constructor: unknown key',
      'app.applicationId: must be a string',
    ]);
  });
});

// shared/proto/encoding.ts does what protobufjs' reflection runtime does, without it (66 KB of every bundle): for
// every message of the descriptor, generated objects (well-formed, and with the values a sloppy caller sends:
// numbers as strings, unknown enum names and numbers, nulls, wrong kinds) must give the same JSON, key order
// included, the same protobuf bytes, and the same TypeError. As deployed: int64 without `long` (infra/no-long.cjs).
describe('encoding.ts against protobufjs reflection, every message', () => {
  protobuf.util.Long = null as never;
  protobuf.configure();

  type Json = {
    nested?: Record<string, Json>;
    fields?: Record<string, { type: string; rule?: string; keyType?: string }>;
    values?: Record<string, number>;
  };
  const messages: string[] = [];
  (function walk(ns: Json, prefix: string) {
    for (const [name, nested] of Object.entries(ns.nested ?? {})) {
      if (nested.fields) messages.push(`${prefix}${name}`);
      walk(nested, `${prefix}${name}.`);
    }
  })(descriptor as Json, '');

  let seed = 17;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)];

  function sample(type: protobuf.Type, depth: number, sloppy: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const field of type.fieldsArray) {
      if (random() < 0.3) continue;
      const one = () => value(field, depth, sloppy);
      if (field.map)
        out[field.name] = Object.fromEntries([0, 1, 2].slice(0, Math.floor(random() * 3)).map((i) => [`k${i}`, one()]));
      else if (field.repeated)
        out[field.name] =
          sloppy && random() < 0.05 ? pick([null, 0, '', 'x']) : Array.from({ length: Math.floor(random() * 3) }, one);
      else out[field.name] = one();
    }
    return out;
  }

  function value(field: protobuf.Field, depth: number, sloppy: boolean): unknown {
    const resolved = field.resolve().resolvedType;
    if (resolved instanceof protobuf.Type) {
      if (depth > 3) return {};
      return sloppy && random() < 0.05 ? pick(['x', 3, null]) : sample(resolved, depth + 1, sloppy);
    }
    if (resolved instanceof protobuf.Enum) {
      const names = Object.keys(resolved.values);
      return sloppy && random() < 0.3
        ? pick([names.length + 7, 'NOT_A_VALUE', null, 0, resolved.values[pick(names)], 'toString'])
        : pick(names);
    }
    const sloppyValue = () =>
      pick([null, '42', '-7', 'abc', 3.7, true, 12345678901234, '12345678901234', { low: 5, high: 1 }, '']);
    if (sloppy && random() < 0.4) return sloppyValue();
    switch (field.type) {
      case 'string':
        return pick(['', 'a', 'ünïcode ✓', 'x'.repeat(200)]);
      case 'bool':
        return random() < 0.5;
      case 'int32':
        return pick([0, 1, -1, 150, 2147483647, -2147483648]);
      case 'int64':
        return pick([0, 1, 1700000000123, -5, '1700000000123', 2 ** 40]);
      case 'double':
        return pick([0, 1.5, -2.25, 1e300]);
      default:
        throw new Error(`no sample for ${field.type}`);
    }
  }

  const outcome = (fn: () => unknown) => {
    try {
      return { value: fn() };
    } catch (error) {
      return { error: `${(error as Error).name}: ${(error as Error).message}` };
    }
  };

  it(`covers the ${messages.length} messages`, () => {
    expect(messages.length).toBeGreaterThan(150);
  });

  for (const sloppy of [false, true]) {
    it(`gives the same JSON and bytes for ${sloppy ? 'sloppy' : 'well-formed'} objects`, () => {
      let compared = 0;
      let thrown = 0;
      for (const name of messages) {
        const type = referenceType(name);
        for (let round = 0; round < 8; round++) {
          const input = sample(type, 0, sloppy);
          const json = outcome(() => JSON.stringify(toJsonObject(name, input)));
          const expectedJson = outcome(() => JSON.stringify(referenceJson(type, type.fromObject(input))));
          expect(json, `${name} ${JSON.stringify(input)}`).toEqual(expectedJson);
          const bytes = outcome(() => Buffer.from(toProtobuf(name, input)).toString('hex'));
          const expectedBytes = outcome(() =>
            Buffer.from(type.encode(type.fromObject(input)).finish()).toString('hex'),
          );
          expect(bytes, `${name} ${JSON.stringify(input)}`).toEqual(expectedBytes);
          compared++;
          if ('error' in json) thrown++;
        }
      }
      expect(compared).toBe(messages.length * 8);
      if (sloppy) expect(thrown).toBeGreaterThan(0);
      else expect(thrown).toBe(0);
    });
  }
});
