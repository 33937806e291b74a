import type { OutboundHttpClient } from '../../../common/outbound/outbound-http.client';
import { OutboundError } from '../../../common/outbound/outbound.errors';

/** Redirects followed before giving up; the gateway's HTTP client follows more, so past this we refuse. */
const MAX_MEDIA_REDIRECTS = 5;
/** The whole chain's time budget, DNS and every hop included: campaign creation waits for it. */
const PROBE_BUDGET_MS = 5_000;
/** A server that ignores the Range header sends the file itself: reading this much shows that. */
const MAX_PROBE_BYTES = 64 * 1024;

/**
 * What the gateway would fetch for `mediaUrl`, checked hop by hop: a GET of one byte through
 * the outbound client, whose target check runs on every hop (redirects are followed here, by
 * Location, not by the client). Null when the chain ends at an answer that is no redirect,
 * whatever its status; otherwise why the URL is refused, as a Portuguese message. The
 * messages never tell a closed port from a silent one, nor echo where a redirect led.
 */
export async function mediaUrlProblem(
  client: OutboundHttpClient,
  mediaUrl: string,
): Promise<string | null> {
  const deadline = Date.now() + PROBE_BUDGET_MS;
  let url = mediaUrl;
  for (let hop = 0; hop <= MAX_MEDIA_REDIRECTS; hop += 1) {
    let next: string | null;
    try {
      next = await redirectOf(client, url, deadline);
    } catch (error) {
      if (!(error instanceof OutboundError)) {
        throw error;
      }
      return problemOf(error, hop);
    }
    if (next === null) {
      return null;
    }
    url = next;
  }
  return `redireciona mais de ${MAX_MEDIA_REDIRECTS} vezes`;
}

/** Where `url` redirects to (absolute), or null when it answers with anything else. */
async function redirectOf(
  client: OutboundHttpClient,
  url: string,
  deadline: number,
): Promise<string | null> {
  let response;
  try {
    response = await client.request({
      method: 'GET',
      url,
      headers: { Range: 'bytes=0-0' },
      timeoutMs: Math.max(1, deadline - Date.now()),
      maxResponseBytes: MAX_PROBE_BYTES,
    });
  } catch (error) {
    // The server answered with a body larger than any redirect's: the file itself.
    if (error instanceof OutboundError && error.kind === 'response_too_large') {
      return null;
    }
    throw error;
  }
  const location = response.headers.location;
  // As the gateway's client (follow-redirects) does: any 3xx with a Location is followed.
  if (response.status < 300 || response.status >= 400 || !location) {
    return null;
  }
  try {
    return new URL(location, url).toString();
  } catch {
    throw new OutboundError('invalid_url', 'Location inválido');
  }
}

function problemOf(error: OutboundError, hop: number): string {
  switch (error.kind) {
    case 'target_refused':
      return hop === 0
        ? 'aponta para um endereço de rede não permitido'
        : 'redireciona para um endereço de rede não permitido';
    case 'unresolvable':
      return hop === 0
        ? 'o nome do host não resolve: use uma URL pública'
        : 'redireciona para um host cujo nome não resolve';
    case 'invalid_url':
      return 'leva a uma URL que não é http(s) sem usuário e senha';
    case 'network':
    case 'timeout':
    case 'aborted':
    case 'response_too_large':
      return 'não pôde ser acessada para verificar o que o gateway baixaria; confira a URL e tente de novo';
  }
}
