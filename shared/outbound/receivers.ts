import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Where a webhook may be sent (docs/WEBHOOKS.md, Receivers). A receiver's host is resolved once per request and
// the connection pinned to the address checked here, so a name that resolves differently a moment later (DNS
// rebinding) cannot reach an address that was not checked. Link-local and metadata addresses are never reached;
// private, loopback and shared (CGNAT) ones only when the organization allows private receivers.

const NEVER = new BlockList();
NEVER.addSubnet('0.0.0.0', 8, 'ipv4');
NEVER.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, cloud metadata (169.254.169.254)
NEVER.addSubnet('224.0.0.0', 3, 'ipv4'); // multicast, reserved, broadcast
NEVER.addAddress('::', 'ipv6');
NEVER.addSubnet('fe80::', 10, 'ipv6'); // link-local
NEVER.addSubnet('ff00::', 8, 'ipv6'); // multicast
NEVER.addAddress('fd00:ec2::254', 'ipv6'); // EC2 metadata over IPv6

const PRIVATE = new BlockList();
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addSubnet('127.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4'); // shared address space (CGNAT)
PRIVATE.addSubnet('198.18.0.0', 15, 'ipv4'); // benchmarking
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6'); // unique local

export class ReceiverRefused extends Error {}
/** The host does not resolve (now): refused when a subscription is saved, retried when a delivery is sent. */
export class ReceiverUnresolved extends ReceiverRefused {}

/** An IPv4 address mapped into IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it is. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Why `address` may not be reached, or undefined when it may. */
export function refusalOf(address: string, allowPrivate: boolean): string | undefined {
  const { address: plain, family } = unmapped(address);
  if (NEVER.check(plain, family)) return `${address} is a link-local, metadata or reserved address`;
  if (!allowPrivate && PRIVATE.check(plain, family))
    return `${address} is a private or loopback address (an owner can allow private receivers in the organization's integration settings)`;
  return undefined;
}

/** The receiver URLs accepted: http(s), no user or password in them. */
export function receiverUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (url.username || url.password) return 'must not carry a user name or password (use the custom header)';
  if (!url.hostname) return 'must name a host';
  return undefined;
}

export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves the URL's host once and checks every address it has; the first is the one to connect to. */
export async function resolveReceiver(raw: string, allowPrivate: boolean): Promise<PinnedAddress> {
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      throw new ReceiverUnresolved(`${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new ReceiverUnresolved(`${host} does not resolve`);
  for (const { address } of addresses) {
    const refusal = refusalOf(address, allowPrivate);
    if (refusal) throw new ReceiverRefused(`${host} resolves to ${refusal}`);
  }
  return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}
