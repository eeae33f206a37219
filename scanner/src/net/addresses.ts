// Which addresses an outbound request of a hosted scan may reach. Loopback, private, shared (CGNAT), link-local
// (cloud metadata: 169.254.169.254, fd00:ec2::254), multicast and reserved ranges are refused unless the
// organization allowed the host. A host is resolved once and the connection pinned to that address, so a second
// DNS answer (rebinding) cannot send the request elsewhere.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns/promises';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(network, prefix, 'ipv6');

/** Whether an IP address is loopback, private, link-local, metadata or otherwise not a public internet address. */
export function isPrivateAddress(address: string): boolean {
  const mapped = address.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i);
  if (mapped) return blocked.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export class TargetRefused extends Error {
  override name = 'TargetRefused';
}

/**
 * The one address a host is reached at: resolved once (the first answer). Unless `allowPrivate`, a host any of
 * whose addresses is private is refused (a name answering both a public and a private address is a rebinding
 * setup).
 */
export async function pinnedAddress(host: string, { allowPrivate }: { allowPrivate: boolean }): Promise<string> {
  const bare = host.replace(/^\[|\]$/g, '');
  const answers = isIP(bare) ? [{ address: bare }] : await lookup(bare, { all: true, verbatim: true });
  if (!answers.length) throw new TargetRefused(`${host} does not resolve`);
  const privateOne = answers.find((a) => isPrivateAddress(a.address));
  if (privateOne && !allowPrivate)
    throw new TargetRefused(
      `${host} resolves to ${privateOne.address}, a loopback, private, link-local or metadata address, which hosted scans do not reach unless the organization allowlists the host`,
    );
  return answers[0].address;
}
