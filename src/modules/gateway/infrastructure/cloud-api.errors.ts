import { kindOfMetaCode } from '../domain/meta-error-codes';
import { GatewayError, GatewayErrorKind } from '../domain/messaging-gateway';

const DETAIL_MAX_CHARS = 200;

/** Graph API object not found (code 100, subcode 33): the phone number id or account is wrong. */
const UNKNOWN_OBJECT_SUBCODE = 33;

/** Meta's `{error: {message, code, error_subcode, error_data: {details}}}`, when it is that. */
export interface GraphErrorBody {
  code: number | null;
  subcode: number | null;
  message: string;
  details: string | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The error envelope of a Graph API answer; null for a body that is not Meta's. */
export function graphErrorOf(body: unknown): GraphErrorBody | null {
  const error = isRecord(body) ? body.error : undefined;
  if (!isRecord(error) || typeof error.code !== 'number') {
    return null;
  }
  const data = isRecord(error.error_data) ? error.error_data : {};
  return {
    code: error.code,
    subcode: typeof error.error_subcode === 'number' ? error.error_subcode : null,
    message: typeof error.message === 'string' ? error.message : '',
    details: typeof data.details === 'string' ? data.details : null,
  };
}

/** Meta's own words (its details say more than its message), one line, cut, with the code. */
function describe(error: GraphErrorBody): string {
  const text = (error.details ?? error.message).replace(/\s+/g, ' ').trim();
  const cut = text.length > DETAIL_MAX_CHARS ? `${text.slice(0, DETAIL_MAX_CHARS)}…` : text;
  return `${cut || 'erro da API do WhatsApp'} (código ${error.code})`;
}

/** The kind Meta's code proves; by the HTTP status for a code this table does not know. */
function kindOf(status: number, error: GraphErrorBody | null): GatewayErrorKind {
  if (error?.code === 100 && error.subcode === UNKNOWN_OBJECT_SUBCODE) {
    return 'unknown_instance';
  }
  const known = error?.code === null || error === null ? undefined : kindOfMetaCode(error.code);
  if (known) {
    return known;
  }
  if (status === 401 || status === 403) {
    return 'bad_credentials';
  }
  if (status === 404) {
    return 'unknown_instance';
  }
  if (status === 429) {
    return 'throttled';
  }
  // Meta's other 4xx errors are its refusal of this request, with no message id: not sent.
  // A 5xx, or an answer that is not Meta's (a proxy), proves nothing: never sent twice.
  return status >= 400 && status < 500 && error ? 'rejected' : 'uncertain';
}

/** A non-2xx answer of the Graph API as the GatewayError its code proves. */
export function cloudApiErrorFromResponse(status: number, body: unknown): GatewayError {
  const error = graphErrorOf(body);
  const kind = kindOf(status, error);
  const message = error
    ? describe(error)
    : `A API do WhatsApp respondeu HTTP ${status} sem o corpo de erro da Meta`;
  return new GatewayError(kind, message, status);
}
