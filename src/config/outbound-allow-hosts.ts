import { isIP } from 'node:net';
import {
  canonicalAddress,
  classifyAddress,
  isAddressClassAllowed,
} from '../common/outbound/address-classification';

/**
 * One OUTBOUND_ALLOW_HOSTS entry: a host name or an IP address (lower case, IPv6 without
 * brackets, as WHATWG URLs write them), and the only port it is open on, if it names one.
 */
export interface OutboundAllowedHost {
  host: string;
  port?: number;
}

/** Letters, digits, `-` and `_` (compose service names), dot-separated. */
const HOST_NAME = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;

/**
 * OUTBOUND_ALLOW_HOSTS as entries, or why it is refused. An entry only matters for loopback and
 * private addresses, so one naming a link-local, metadata or reserved address is a mistake:
 * those are refused whatever the list says.
 */
export function parseOutboundAllowHosts(raw: string): OutboundAllowedHost[] | string {
  if (raw.trim() === '') {
    return [];
  }
  const entries: OutboundAllowedHost[] = [];
  for (const item of raw.split(',').map((part) => part.trim())) {
    const entry = parseAllowedHost(item);
    if (typeof entry === 'string') {
      return `${JSON.stringify(item)} ${entry}`;
    }
    entries.push(entry);
  }
  return entries;
}

const BRACKETED_IPV6 = /^\[([^\]]+)\](?::(\d{1,5}))?$/;
const HOST_AND_PORT = /^([^:[\]]+)(?::(\d{1,5}))?$/;

/** `[host, port]` of an entry, or `[]` when it has neither form. */
function splitHostPort(item: string): [string?, string?] {
  if (isIP(item) === 6) {
    return [item];
  }
  const bracketed = BRACKETED_IPV6.exec(item);
  if (bracketed) {
    return isIP(bracketed[1]) === 6 ? [bracketed[1], bracketed[2]] : [];
  }
  const plain = HOST_AND_PORT.exec(item);
  return plain ? [plain[1], plain[2]] : [];
}

function parseAllowedHost(item: string): OutboundAllowedHost | string {
  const [host, port] = splitHostPort(item);
  if (!host) {
    return 'is not host or host:port (a name, an IPv4 address or [IPv6], no scheme or path)';
  }
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) {
    return 'has a port outside 1-65535';
  }
  const entry = isIP(host) !== 0 ? allowedAddress(host) : allowedName(host.toLowerCase());
  return typeof entry === 'string' || port === undefined ? entry : { ...entry, port: Number(port) };
}

function allowedName(name: string): OutboundAllowedHost | string {
  if (/^[\d.]+$/.test(name)) {
    return 'is not a valid IPv4 address';
  }
  return HOST_NAME.test(name) ? { host: name } : 'is not a valid host name';
}

/** The address as URLs write it (IPv6 compressed), if it is one the list may open. */
function allowedAddress(address: string): OutboundAllowedHost | string {
  const host = canonicalAddress(address);
  const addressClass = classifyAddress(host);
  return addressClass && isAddressClassAllowed(addressClass, false)
    ? { host }
    : 'is a link-local, metadata or reserved address, which is never called';
}
