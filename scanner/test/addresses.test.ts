import { describe, expect, it } from 'vitest';
import { isPrivateAddress, pinnedAddress, TargetRefused } from '../src/net/addresses.ts';

// Which addresses a hosted scan may reach (docs/HOSTED-SCANS.md, Verification), resolved once and pinned.
describe('isPrivateAddress', () => {
  it('refuses loopback, private, shared, link-local (cloud metadata), multicast and reserved addresses', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fd00:ec2::254',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      'not an address',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
  });

  it('lets public addresses through', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(address), address).toBe(false);
  });
});

describe('pinnedAddress', () => {
  it('refuses a name or literal that resolves to a private address, saying why', async () => {
    await expect(pinnedAddress('localhost', { allowPrivate: false })).rejects.toThrow(TargetRefused);
    await expect(pinnedAddress('169.254.169.254', { allowPrivate: false })).rejects.toThrow(
      /resolves to 169\.254\.169\.254, a loopback, private, link-local or metadata address/,
    );
    await expect(pinnedAddress('[::1]', { allowPrivate: false })).rejects.toThrow(TargetRefused);
  });

  it('answers the one address to use: private ones when allowed', async () => {
    expect(await pinnedAddress('127.0.0.1', { allowPrivate: true })).toBe('127.0.0.1');
    expect(['127.0.0.1', '::1']).toContain(await pinnedAddress('localhost', { allowPrivate: true }));
    expect(await pinnedAddress('93.184.216.34', { allowPrivate: false })).toBe('93.184.216.34');
  });
});
