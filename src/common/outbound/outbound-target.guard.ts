import { Injectable } from '@nestjs/common';
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppConfig } from '../../config/app-config.service';
import type { OutboundAllowedHost } from '../../config/outbound-allow-hosts';
import { canonicalAddress, classifyAddress, isAddressClassAllowed } from './address-classification';
import { OutboundError, OutboundTargetRefusedError } from './outbound.errors';

/** A URL whose every address passed the check; connections must go to these addresses only. */
export interface CheckedTarget {
  url: URL;
  /** The host without IPv6 brackets, as the TLS server name and the Host header use it. */
  hostname: string;
  addresses: LookupAddress[];
}

export const OUTBOUND_URL_PROTOCOLS = ['http:', 'https:'] as const;

/** An absolute http(s) URL without credentials, or an `invalid_url` error. */
export function parseOutboundUrl(raw: string | URL): URL {
  let url: URL;
  try {
    url = typeof raw === 'string' ? new URL(raw) : raw;
  } catch {
    throw new OutboundError('invalid_url', 'URL inválida');
  }
  if (!(OUTBOUND_URL_PROTOCOLS as readonly string[]).includes(url.protocol)) {
    throw new OutboundError('invalid_url', 'A URL deve começar com http:// ou https://');
  }
  if (url.username || url.password) {
    throw new OutboundError('invalid_url', 'A URL não pode conter usuário ou senha');
  }
  if (!url.hostname) {
    throw new OutboundError('invalid_url', 'A URL não tem host');
  }
  return url;
}

/**
 * Throws when any address of `host` may not be called; one bad address spoils the name.
 * `isListed` says whether OUTBOUND_ALLOW_HOSTS opens an address (loopback and private only).
 */
export function assertAddressesAllowed(
  host: string,
  addresses: readonly LookupAddress[],
  denyPrivate: boolean,
  isListed: (address: string) => boolean = () => false,
): void {
  for (const { address } of addresses) {
    const addressClass = classifyAddress(address);
    if (!addressClass || !isAddressClassAllowed(addressClass, denyPrivate && !isListed(address))) {
      throw new OutboundTargetRefusedError(host, address);
    }
  }
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * Which addresses OUTBOUND_ALLOW_HOSTS opens for this URL: all of them when an entry names its
 * host as written, else those an entry names; an entry with a port only on that port.
 */
function allowListed(
  url: URL,
  hostname: string,
  entries: readonly OutboundAllowedHost[],
): (address: string) => boolean {
  const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
  const onPort = entries.filter((entry) => entry.port === undefined || entry.port === port);
  const hosts = new Set(onPort.map((entry) => entry.host));
  if (hosts.has(hostname.toLowerCase())) {
    return () => true;
  }
  return (address) => hosts.has(canonicalAddress(address));
}

/**
 * The target check that runs before every outbound request (gateway, media, webhooks):
 * link-local and cloud-metadata addresses are refused always, loopback and private ranges
 * when OUTBOUND_DENY_PRIVATE is true, unless OUTBOUND_ALLOW_HOSTS lists the host (the
 * gateway's private address in a compose network). The client then connects to the checked
 * addresses only, so a DNS answer that changes between check and connect cannot slip past it.
 */
@Injectable()
export class OutboundTargetGuard {
  constructor(private readonly config: AppConfig) {}

  async check(raw: string | URL): Promise<CheckedTarget> {
    const url = parseOutboundUrl(raw);
    const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const addresses = await this.resolve(hostname);
    assertAddressesAllowed(
      hostname,
      addresses,
      this.config.outboundDenyPrivate,
      allowListed(url, hostname, this.config.outboundAllowHosts),
    );
    return { url, hostname, addresses };
  }

  private async resolve(hostname: string): Promise<LookupAddress[]> {
    const family = isIP(hostname);
    if (family !== 0) {
      return [{ address: hostname, family }];
    }
    try {
      const addresses = await lookup(hostname, { all: true, verbatim: true });
      if (addresses.length === 0) {
        throw new Error('no addresses');
      }
      return addresses;
    } catch (error) {
      throw new OutboundError('unresolvable', `Não foi possível resolver o host ${hostname}`, {
        cause: error,
      });
    }
  }
}
