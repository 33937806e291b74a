import {
  OutboundError,
  OutboundErrorKind,
  OutboundTargetRefusedError,
} from '../../../common/outbound/outbound.errors';
import type { GatewayOperation } from '../../../common/metrics/metric-labels';
import { GatewayErrorKind, InstanceCondition } from '../domain/messaging-gateway';
import {
  envelopeMessage,
  gatewayErrorFromOutbound,
  gatewayErrorFromResponse,
} from './evolution-api.errors';

function envelope(status: number, message: unknown): unknown {
  return { status, error: 'x', response: { message } };
}

function classify(
  status: number,
  body: unknown,
  operation: GatewayOperation = 'send_text',
): GatewayErrorKind {
  return gatewayErrorFromResponse(status, body, JSON.stringify(body ?? ''), 'acme', operation).kind;
}

describe('gatewayErrorFromResponse', () => {
  it.each<[string, number, unknown, GatewayErrorKind]>([
    [
      'a recipient not on WhatsApp',
      400,
      envelope(400, [
        { jid: '5511900000000@s.whatsapp.net', exists: false, number: '5511900000000' },
      ]),
      'refused_number',
    ],
    [
      'exists:false nested in a schema-style array',
      400,
      envelope(400, [[{ exists: false, number: '1' }]]),
      'refused_number',
    ],
    [
      'exists:false without the wrapper (whatsappNumbers)',
      400,
      { status: 400, message: [{ exists: false }] },
      'refused_number',
    ],
    ['a schema violation', 400, envelope(400, [['instance requires property "text"']]), 'rejected'],
    ['an empty text', 400, envelope(400, ['Text is required']), 'rejected'],
    [
      'a failure after WhatsApp accepted the message',
      400,
      envelope(400, ['Error: some DB failure']),
      'uncertain',
    ],
    [
      'a late Connection Closed with 400',
      400,
      envelope(400, ['Error: Connection Closed']),
      'disconnected',
    ],
    ['exists:true in a 400', 400, envelope(400, [{ exists: true }]), 'uncertain'],
    [
      'media the gateway cannot take',
      400,
      envelope(400, ['Owned media must be a url or base64']),
      'rejected',
    ],
    [
      'a base64 document without a file name',
      400,
      envelope(400, ['For base64 the file name must be informed.']),
      'rejected',
    ],
    ['a wrong key', 401, envelope(401, 'Unauthorized'), 'bad_credentials'],
    ['a forbidden key', 403, envelope(403, ['Forbidden']), 'bad_credentials'],
    [
      'an unknown instance',
      404,
      envelope(404, ['The "acme" instance does not exist']),
      'unknown_instance',
    ],
    [
      'an unknown route',
      404,
      envelope(404, ['Cannot POST /message/sendText/acme']),
      'unknown_instance',
    ],
    ['a closed socket', 500, envelope(500, 'Connection Closed'), 'disconnected'],
    [
      'a closed socket found late',
      500,
      envelope(500, ['Error: Connection Closed']),
      'disconnected',
    ],
    [
      'an instance not loaded in memory',
      500,
      envelope(500, "Cannot read properties of undefined (reading 'textMessage')"),
      'disconnected',
    ],
    [
      'an undefined read of another property, in the envelope',
      500,
      envelope(500, "Cannot read properties of undefined (reading 'length')"),
      'transient',
    ],
    [
      'a TypeError that may come after WhatsApp took the message',
      400,
      envelope(400, ["TypeError: Cannot read properties of undefined (reading 'key')"]),
      'uncertain',
    ],
    [
      "the gateway's own Redis refusing a text send",
      500,
      envelope(500, ['Error: connect ECONNREFUSED 127.0.0.1:6379']),
      'transient',
    ],
    [
      'an unactivated 2.4 server',
      503,
      {
        error: 'service not activated',
        code: 'LICENSE_REQUIRED',
        register_url: 'https://x',
        message: 'activate',
      },
      'disconnected',
    ],
    [
      'a cached number on a never-paired socket (recorded)',
      400,
      envelope(400, ["TypeError: Cannot read properties of undefined (reading 'id')"]),
      'disconnected',
    ],
    [
      'a cached number without a socket (recorded)',
      400,
      envelope(400, ["TypeError: Cannot read properties of undefined (reading 'sendMessage')"]),
      'disconnected',
    ],
    [
      'a typing delay without a socket (recorded)',
      400,
      envelope(400, [
        "TypeError: Cannot read properties of undefined (reading 'presenceSubscribe')",
      ]),
      'disconnected',
    ],
    [
      'whatsappNumbers on a closed instance (recorded Boom)',
      400,
      {
        data: null,
        isBoom: true,
        isServer: false,
        output: {
          statusCode: 428,
          payload: {
            statusCode: 428,
            error: 'Precondition Required',
            message: 'Connection Closed',
          },
          headers: {},
        },
      },
      'disconnected',
    ],
    ['a 502 from a proxy, as HTML', 502, undefined, 'uncertain'],
    ['a 504 from a proxy', 504, envelope(504, ['Gateway Timeout']), 'uncertain'],
    ['a 500 without the gateway envelope', 500, { message: 'oops' }, 'uncertain'],
    ['a plain 503', 503, envelope(503, ['busy']), 'transient'],
    ['a 429', 429, undefined, 'transient'],
    ['a 405', 405, undefined, 'rejected'],
    ['a 413', 413, undefined, 'rejected'],
    ['a redirect', 302, undefined, 'rejected'],
  ])('classifies %s (HTTP %s) as %s', (_label, status, body, kind) => {
    expect(classify(status, body)).toBe(kind);
  });

  it.each<[string, GatewayOperation, GatewayErrorKind, unknown]>([
    [
      'a media download failure',
      'send_media',
      'media_unreachable',
      envelope(500, ['AxiosError: Request failed with status code 404']),
    ],
    [
      'media on a host that does not resolve (recorded)',
      'send_media',
      'media_unreachable',
      envelope(500, ['Error: getaddrinfo EAI_AGAIN example.com']),
    ],
    [
      'an audio on a refused port',
      'send_audio',
      'media_unreachable',
      envelope(500, 'Error: connect ECONNREFUSED 127.0.0.1:9'),
    ],
    [
      'a refused connection',
      'send_poll',
      'transient',
      envelope(500, ['Error: connect ECONNREFUSED 127.0.0.1:6379']),
    ],
    [
      'a name that does not resolve',
      'connection_state',
      'transient',
      envelope(500, ['Error: getaddrinfo EAI_AGAIN redis']),
    ],
  ])('reads a 500 naming %s to %s as %s', (_label, operation, kind, body) => {
    expect(classify(500, body, operation)).toBe(kind);
  });

  it.each<[string, number, unknown, InstanceCondition]>([
    [
      'never paired',
      400,
      envelope(400, ["TypeError: Cannot read properties of undefined (reading 'id')"]),
      'not_paired',
    ],
    [
      'no socket',
      500,
      envelope(500, "Cannot read properties of undefined (reading 'onWhatsApp')"),
      'no_socket',
    ],
    [
      'no socket for media',
      500,
      envelope(500, [
        "TypeError: Cannot read properties of undefined (reading 'waUploadToServer')",
      ]),
      'no_socket',
    ],
    ['a closed socket', 500, envelope(500, 'Connection Closed'), 'closed'],
    ['a closed socket found late', 400, envelope(400, ['Error: Connection Closed']), 'closed'],
  ])('says what a disconnected answer proves: %s', (_label, status, body, condition) => {
    const error = gatewayErrorFromResponse(
      status,
      body,
      JSON.stringify(body),
      'acme-sales',
      'send_text',
    );
    expect([error.kind, error.instanceCondition]).toEqual(['disconnected', condition]);
  });

  it('names no address the gateway could not reach when it fails to fetch media', () => {
    const body = envelope(500, ['Error: connect ECONNREFUSED 10.1.2.3:5432']);
    const error = gatewayErrorFromResponse(
      500,
      body,
      JSON.stringify(body),
      'acme-sales',
      'send_media',
    );
    expect([error.kind, error.message]).toEqual([
      'media_unreachable',
      'O gateway não conseguiu baixar a mídia da mensagem',
    ]);
  });

  it('reads Connection Closed from a text body too', () => {
    expect(
      gatewayErrorFromResponse(500, undefined, 'Error: Connection Closed', 'i', 'send_text').kind,
    ).toBe('disconnected');
  });

  it('keeps the HTTP status and names the refused number', () => {
    const error = gatewayErrorFromResponse(
      400,
      envelope(400, [
        { jid: '5511900000000@s.whatsapp.net', exists: false, number: '5511900000000' },
      ]),
      '',
      'acme',
      'send_text',
    );
    expect(error.httpStatus).toBe(400);
    expect(error.message).toBe('O número 5511900000000 não está no WhatsApp');
    expect(error.retryable).toBe(false);
  });

  it('names the instance for an unknown instance and points at the URL for an unknown route', () => {
    expect(
      gatewayErrorFromResponse(404, envelope(404, ['x']), '', 'acme', 'send_text').message,
    ).toContain('"acme"');
    expect(
      gatewayErrorFromResponse(404, envelope(404, ['Cannot GET /x']), '', 'acme', 'send_text')
        .message,
    ).toContain('URL');
  });

  it.each<[string, number, unknown]>([
    ['an envelope', 400, envelope(400, ['Owned media must be a url or base64'])],
    ['an envelope', 503, envelope(503, ['Owned media must be a url or base64'])],
    [
      'the unwrapped schema answer',
      400,
      { status: 400, error: 'Bad Request', message: [['Owned media must be a url or base64']] },
    ],
  ])("shows the gateway's own message from %s (HTTP %s)", (_label, status, body) => {
    const error = gatewayErrorFromResponse(status, body, JSON.stringify(body), 'acme', 'send_text');
    expect(error.message).toContain('Owned media must be a url or base64');
  });

  const SECRET = 'SECRET-INTERNAL-DATA: db_password=hunter2';
  it.each<[string, number, unknown, string]>([
    ['plain text', 400, undefined, SECRET],
    ['plain text', 403, undefined, SECRET],
    ['plain text', 409, undefined, SECRET],
    ['plain text', 429, undefined, SECRET],
    ['plain text', 500, undefined, SECRET],
    ['plain text', 502, undefined, SECRET],
    ['a top-level message', 503, { message: SECRET }, ''],
    ['an envelope whose status differs', 500, { ...(envelope(400, SECRET) as object) }, ''],
    ['a response without error', 400, { status: 400, response: { message: SECRET } }, ''],
    [
      'a framework error without the wrapper',
      500,
      { status: 500, error: 'x', message: 'db_password=hunter2' },
      '',
    ],
    [
      'a framework error listing its messages',
      400,
      { status: 400, error: 'Bad Request', message: ['db_password=hunter2'] },
      '',
    ],
  ])('never shows the text of %s that is not the gateway (HTTP %s)', (_l, status, body, text) => {
    const raw = text || JSON.stringify(body);
    const error = gatewayErrorFromResponse(status, body, raw, 'acme', 'send_text');
    expect(error.message).not.toContain('db_password');
    expect(error.message).toContain(String(status));
  });

  it('keeps the detail of a rejection short and on one line', () => {
    const error = gatewayErrorFromResponse(
      400,
      envelope(400, ['a\n'.repeat(500)]),
      '',
      'acme',
      'send_text',
    );
    expect(error.message).not.toContain('\n');
    expect(error.message.length).toBeLessThan(300);
  });

  it('marks only transient failures as retryable', () => {
    expect(
      gatewayErrorFromResponse(503, envelope(503, ['busy']), '', 'i', 'send_text').retryable,
    ).toBe(true);
    expect(gatewayErrorFromResponse(429, undefined, '', 'i', 'send_text').retryable).toBe(true);
    expect(gatewayErrorFromResponse(503, undefined, '', 'i', 'send_text').retryable).toBe(false);
    expect(gatewayErrorFromResponse(401, undefined, '', 'i', 'send_text').retryable).toBe(false);
    expect(
      gatewayErrorFromResponse(400, envelope(400, ['x']), '', 'i', 'send_text').retryable,
    ).toBe(false);
  });
});

describe('gatewayErrorFromOutbound', () => {
  it.each<[OutboundErrorKind, GatewayErrorKind]>([
    ['invalid_url', 'target_refused'],
    ['target_refused', 'target_refused'],
    ['unresolvable', 'transient'],
    ['timeout', 'transient'],
    ['network', 'transient'],
    ['response_too_large', 'uncertain'],
    ['aborted', 'transient'],
  ])('maps %s before the request was written to %s', (outbound, kind) => {
    expect(gatewayErrorFromOutbound(new OutboundError(outbound, 'm')).kind).toBe(kind);
  });

  it.each<[OutboundErrorKind, GatewayErrorKind]>([
    ['timeout', 'uncertain'],
    ['network', 'uncertain'],
    ['aborted', 'uncertain'],
  ])('maps %s after the request was written to %s: never resent', (outbound, kind) => {
    const error = new OutboundError(outbound, 'm').afterRequestWritten();
    expect(gatewayErrorFromOutbound(error).kind).toBe(kind);
    expect(gatewayErrorFromOutbound(error).retryable).toBe(false);
  });

  it('names the refused host, not the internal address its name resolved to', () => {
    const error = gatewayErrorFromOutbound(new OutboundTargetRefusedError('gw.local', '10.0.0.1'));
    expect(error.message).toContain('gw.local');
    expect(error.message).not.toContain('10.0.0.1');
  });
});

describe('envelopeMessage', () => {
  it('reads response.message, then a top-level message', () => {
    expect(envelopeMessage(envelope(400, ['a']))).toEqual(['a']);
    expect(envelopeMessage({ message: 'b' })).toBe('b');
    expect(envelopeMessage('text')).toBeUndefined();
    expect(envelopeMessage(null)).toBeUndefined();
  });
});
