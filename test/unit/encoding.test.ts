import { describe, expect, it } from 'vitest';
import { fromProtobuf, toJsonObject, toProtobuf } from '../../shared/proto/encoding.ts';

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
    const json = toJsonObject('user.UserResponse', { user: { provider: { slug: 'GITHUB' }, external: { organizations: [{ role: 'OWNER' }, {}] } } }) as any;
    expect(json.user.provider.slug).toBe('GITHUB');
    expect(json.user.external.organizations.map((o: any) => o.role)).toEqual(['OWNER', 'UNKNOWN']);
  });

  it('round-trips the same content through the protobuf wire format', () => {
    expect(fromProtobuf('user.UserResponse', toProtobuf('user.UserResponse', user))).toEqual(toJsonObject('user.UserResponse', user));
  });
});
