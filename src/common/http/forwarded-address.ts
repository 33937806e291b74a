import type { IncomingMessage } from 'node:http';

/** Express's compiled TRUST_PROXY (`app.get('trust proxy fn')`): is the address at this hop a proxy of ours? */
export type TrustedHop = (address: string | undefined, hop: number) => boolean;

/**
 * The client's address as Express's `request.ip` reads it (proxy-addr): the socket's peer,
 * then each X-Forwarded-For hop from the nearest, up to the first one not trusted. For a
 * request answered before Express saw it.
 */
export function forwardedAddressOf(
  request: IncomingMessage,
  trusted: TrustedHop,
): string | undefined {
  const header = request.headers['x-forwarded-for'];
  const hops = typeof header === 'string' ? header.split(',').map((hop) => hop.trim()) : [];
  const addresses = [request.socket.remoteAddress, ...hops.filter((hop) => hop !== '').reverse()];
  let hop = 0;
  while (hop < addresses.length - 1 && trusted(addresses[hop], hop)) {
    hop += 1;
  }
  return addresses[hop];
}
