import { describe, expect, it } from 'vitest';
import { attributeChange } from '../../shared/db/entity-write.ts';

// An entity's Update writes the fields whose value changes (shared/db/entity-write.ts): a set-valued field (a
// DynamoDB set, read by lib-dynamodb as a Set) is compared by its members.
describe('attributeChange', () => {
  it('sets a Set-valued field whose members change, and only then', () => {
    const before = { tags: new Set(['a']), name: 'x' };
    expect(attributeChange(before, { tags: new Set(['a', 'b']), name: 'x' }).set).toEqual({
      tags: new Set(['a', 'b']),
    });
    expect(attributeChange(before, { tags: new Set(['a']), name: 'x' }).set).toEqual({});
    expect(attributeChange({ tags: new Set(['b', 'a']) }, { tags: new Set(['a', 'b']) }).set).toEqual({});
  });

  it('compares nested values as stored: an undefined field is no field', () => {
    const before = { health: { total: 1, scannedAt: 5 } };
    expect(attributeChange(before, { health: { total: 1, scannedAt: 5, extra: undefined } }).set).toEqual({});
    expect(attributeChange(before, { health: { total: 2, scannedAt: 5 } }).set).toEqual({
      health: { total: 2, scannedAt: 5 },
    });
  });

  it('removes the fields the record no longer has', () => {
    expect(attributeChange({ a: 1, b: 2 }, { a: 1 })).toEqual({ set: {}, remove: ['b'] });
  });
});
