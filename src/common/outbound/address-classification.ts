import { isIPv4, isIPv6 } from 'node:net';

/**
 * What an IP address is, as far as calling it from the service is concerned.
 * - metadata, link_local, reserved: never called (cloud credentials live behind these;
 *   multicast and reserved space cannot answer HTTP anyway).
 * - loopback, private, unspecified: called only when OUTBOUND_DENY_PRIVATE is false or
 *   OUTBOUND_ALLOW_HOSTS lists them (a gateway on the same machine or network is a normal
 *   installation).
 */
export type AddressClass =
  'public' | 'private' | 'loopback' | 'unspecified' | 'link_local' | 'metadata' | 'reserved';

interface Range {
  bytes: number[];
  bits: number;
  class: AddressClass;
}

function v4(cidr: string, addressClass: AddressClass): Range {
  const [address, bits] = cidr.split('/');
  return { bytes: address.split('.').map(Number), bits: Number(bits), class: addressClass };
}

function v6(cidr: string, addressClass: AddressClass): Range {
  const [address, bits] = cidr.split('/');
  return { bytes: [...(parseIPv6(address) ?? [])], bits: Number(bits), class: addressClass };
}

/** First match wins, so the narrow metadata addresses come before the ranges holding them. */
const IPV4_RANGES: Range[] = [
  v4('169.254.169.254/32', 'metadata'),
  v4('100.100.100.200/32', 'metadata'),
  v4('169.254.0.0/16', 'link_local'),
  v4('0.0.0.0/8', 'unspecified'),
  v4('127.0.0.0/8', 'loopback'),
  v4('10.0.0.0/8', 'private'),
  v4('172.16.0.0/12', 'private'),
  v4('192.168.0.0/16', 'private'),
  // Carrier-grade NAT and benchmarking space: inside someone's network, never the internet.
  v4('100.64.0.0/10', 'private'),
  v4('198.18.0.0/15', 'private'),
  v4('192.0.0.0/24', 'private'),
  v4('224.0.0.0/4', 'reserved'),
  v4('240.0.0.0/4', 'reserved'),
];

const IPV6_RANGES: Range[] = [
  v6('fd00:ec2::254/128', 'metadata'),
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('fe80::/10', 'link_local'),
  v6('fc00::/7', 'private'),
  // Deprecated site-local space, still routed inside some networks.
  v6('fec0::/10', 'private'),
  // Local-use NAT64 prefix: the IPv4 address may sit anywhere after it, so treat it as internal.
  v6('64:ff9b:1::/48', 'private'),
  v6('ff00::/8', 'reserved'),
];

function inRange(bytes: readonly number[], range: Range): boolean {
  if (bytes.length !== range.bytes.length) {
    return false;
  }
  let bitsLeft = range.bits;
  for (let i = 0; bitsLeft > 0; i += 1) {
    const take = Math.min(8, bitsLeft);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[i] & mask) !== (range.bytes[i] & mask)) {
      return false;
    }
    bitsLeft -= take;
  }
  return true;
}

function classifyBytes(bytes: readonly number[], ranges: Range[]): AddressClass | undefined {
  return ranges.find((range) => inRange(bytes, range))?.class;
}

/**
 * 16 bytes of an IPv6 address, or null when it is not one. Accepts `::` compression, a
 * trailing dotted quad (::ffff:127.0.0.1), a zone id (fe80::1%eth0) and URL brackets.
 */
export function parseIPv6(input: string): number[] | null {
  const address = input.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (!isIPv6(address)) {
    return null;
  }
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (isIPv4(tail)) {
    const [a, b, c, d] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = rest ? rest.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [
    ...headGroups,
    ...Array<string>(rest === undefined ? 0 : missing).fill('0'),
    ...tailGroups,
  ];
  return groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/** The IPv4 address carried inside an IPv6 one (mapped, compatible, translated, NAT64, 6to4). */
function embeddedIPv4(bytes: readonly number[]): number[] | null {
  const zeros = (from: number, to: number): boolean => bytes.slice(from, to).every((b) => b === 0);
  const last4 = bytes.slice(12, 16);
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (translated)
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return last4;
  }
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) {
    return last4;
  }
  // ::a.b.c.d (deprecated IPv4-compatible); :: and ::1 are classified on their own first.
  if (zeros(0, 12)) {
    return last4;
  }
  // 64:ff9b::a.b.c.d (well-known NAT64 prefix)
  if (
    bytes[0] === 0x00 &&
    bytes[1] === 0x64 &&
    bytes[2] === 0xff &&
    bytes[3] === 0x9b &&
    zeros(4, 12)
  ) {
    return last4;
  }
  // 2002:aabb:ccdd::/48 (6to4)
  if (bytes[0] === 0x20 && bytes[1] === 0x02) {
    return bytes.slice(2, 6);
  }
  return null;
}

/** The class of an IP address (v4 or v6, any textual form), or null when `ip` is not one. */
export function classifyAddress(ip: string): AddressClass | null {
  if (isIPv4(ip)) {
    return classifyBytes(ip.split('.').map(Number), IPV4_RANGES) ?? 'public';
  }
  const bytes = parseIPv6(ip);
  if (!bytes) {
    return null;
  }
  const own = classifyBytes(bytes, IPV6_RANGES);
  if (own) {
    return own;
  }
  const inner = embeddedIPv4(bytes);
  return inner ? (classifyBytes(inner, IPV4_RANGES) ?? 'public') : 'public';
}

const ALWAYS_REFUSED: ReadonlySet<AddressClass> = new Set(['metadata', 'link_local', 'reserved']);
const REFUSED_WHEN_DENYING_PRIVATE: ReadonlySet<AddressClass> = new Set([
  'loopback',
  'private',
  'unspecified',
]);

/** Whether the service may open a connection to an address of this class. */
export function isAddressClassAllowed(addressClass: AddressClass, denyPrivate: boolean): boolean {
  if (ALWAYS_REFUSED.has(addressClass)) {
    return false;
  }
  return !(denyPrivate && REFUSED_WHEN_DENYING_PRIVATE.has(addressClass));
}

/**
 * An IP address as WHATWG URLs write it (IPv6 compressed, lower case), to compare addresses;
 * one URLs cannot hold (an IPv6 address with a zone) stays as it is.
 */
export function canonicalAddress(ip: string): string {
  try {
    return new URL(`http://${isIPv6(ip) ? `[${ip}]` : ip}`).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return ip;
  }
}
