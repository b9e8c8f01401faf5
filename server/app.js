// Builds the service: a Fastify instance with the external plugins (metrics, OpenAPI,
// rate limit, load shedding), the app's own (errors, auth, ledgers), and the routes.
// server.js reads the environment and starts it; tests call buildApp directly.
import { STATUS_CODES } from 'node:http';
import Fastify, { LogController } from 'fastify';
import cors, { crossOriginFields } from './plugins/external/cors.js';
import metrics from './plugins/external/metrics.js';
import swagger from './plugins/external/swagger.js';
import rateLimit from './plugins/external/rate-limit.js';
import underPressure from './plugins/external/under-pressure.js';
import errors, { fieldPath } from './plugins/app/errors.js';
import auth from './plugins/app/auth.js';
import ledgers from './plugins/app/ledgers.js';
import cleanup from './cleanup/plugin.js';
import { ServiceError, invalidArgument, unavailable } from './errors.js';
import health from './routes/health.js';
import customers from './routes/v1/customers/index.js';

export const BODY_LIMIT = 1024 * 1024;
// How long a request may take to arrive, head and body (ms; LEDGER_REQUEST_TIMEOUT_MS).
export const REQUEST_TIMEOUT_MS = 30_000;
// The answers of long reads kept (ledger/read-cache.js): characters of JSON in all, and the
// shortest kept (LEDGER_READ_CACHE_BYTES, LEDGER_READ_CACHE_MIN_BYTES).
export const READ_CACHE_BYTES = 64 * 1024 * 1024;
export const READ_CACHE_MIN_BYTES = 64 * 1024;
// What one connection may hold of the server. Requests pipelined on it past this many
// unanswered are not acted on: the first of them gets 503 and the connection closes (a
// client that pipelines retries the requests a closed connection left unanswered). Node
// parses every request in the bytes it reads at once and holds every answer until those
// before it are sent, so without a limit 200 pipelined reads of a large document held
// 50 MB per connection of a client that never reads.
export const MAX_PIPELINED = 16;
// A connection with answers waiting to be sent and none of their bytes taken by the
// network for this long (its client does not read) is closed, whatever the client sends
// meanwhile (ms; LEDGER_SEND_TIMEOUT_MS); while the service stops, after at most
// STOPPING_SEND_TIMEOUT_MS. A connection that has sent nothing for this long is closed too.
export const SEND_TIMEOUT_MS = 60_000;
export const STOPPING_SEND_TIMEOUT_MS = 10_000;

// A body must be UTF-8: decoded with replacement, two ids that differ only in invalid
// bytes would become one (the second an "identical retry", never charged).
const utf8 = new TextDecoder('utf-8', { fatal: true });

// What Node's parser lets through but the API does not act on: an HTTP/1.1 request
// without exactly one Host (RFC 9112 3.2), a body in a content or transfer coding the
// service does not decode (it would be read as plain JSON), a raw "#" in the target (not
// allowed there; the router would cut the path at it and act on another id), an
// expectation other than 100-continue (417).
function refuseUnframed(raw) {
  if (raw.url.includes('#')) throw invalidArgument('the request target holds a raw "#": percent-encode it (%23) in an id');
  let hosts = 0;
  for (let i = 0; i < raw.rawHeaders.length; i += 2) if (raw.rawHeaders[i].toLowerCase() === 'host') hosts++;
  if (hosts > 1 || (hosts === 0 && raw.httpVersion === '1.1'))
    throw invalidArgument(hosts === 0 ? 'an HTTP/1.1 request needs a Host header' : 'the request has more than one Host header');
  const contentCoding = raw.headers['content-encoding'];
  if (contentCoding !== undefined && contentCoding.trim().toLowerCase() !== 'identity')
    throw invalidArgument(`Content-Encoding ${JSON.stringify(contentCoding.slice(0, 100))} is not supported: send the body as is`);
  // Node refuses an HTTP/1.1 Expect without 100-continue (the listener on checkExpectation
  // below), but not one that holds it among others, nor any over HTTP/1.0.
  const expect = raw.headers.expect;
  if (expect !== undefined && expect.trim().toLowerCase() !== '100-continue') throw expectationFailed(expect);
  const transferCoding = raw.headers['transfer-encoding'];
  if (transferCoding !== undefined && transferCoding.trim().toLowerCase() !== 'chunked')
    throw invalidArgument(`Transfer-Encoding ${JSON.stringify(transferCoding.slice(0, 100))} is not supported: only chunked`);
}

function expectationFailed(expect) {
  return new ServiceError(
    417,
    'EXPECTATION_FAILED',
    `Expect: ${JSON.stringify(expect.slice(0, 100))} is not supported (only 100-continue)`,
  );
}

// The requests on a socket whose answers have not been handed to it yet, and the parser's
// refusal held back until those that arrived whole are answered.
const kUnanswered = Symbol('unanswered requests');
const kRefusal = Symbol('refusal held back'); // its text, then null once sent
const kClosing = Symbol('an answer on it closes the connection');
const kPastLimit = Symbol('pipelined past MAX_PIPELINED');
const kSending = Symbol('send progress');
const kReadAtAnswer = Symbol('bytes read when the last answer went out');
const kTail = Symbol('the last request on it: settled once its answer is');
const kBefore = Symbol('the request before it on its connection: settled once its answer is');
const kRefused = Symbol('a parser refusal (408, 400) is about it');

function trackAnswers(request, reply) {
  const socket = request.socket;
  (socket[kUnanswered] ??= new Set()).add(request);
  let settled = false;
  let markSettled;
  const answered = new Promise((resolve) => (markSettled = resolve));
  request[kBefore] = socket[kTail];
  socket[kTail] = answered;
  const settle = () => {
    if (settled) return;
    settled = true;
    socket[kUnanswered].delete(request);
    socket[kReadAtAnswer] = socket.bytesRead;
    // An answer whose request asked to close the connection (Connection: close, HTTP/1.0):
    // Node closes it after this answer; no request after it is acted on, and no refusal
    // follows it. (The answers that close it themselves set kClosing in onSend.)
    if (reply.shouldKeepAlive === false) {
      socket[kClosing] = true;
      if (typeof socket[kRefusal] === 'string') socket[kRefusal] = null;
    }
    markSettled();
    if (socket[kTail] === answered) socket[kTail] = undefined;
    if (typeof socket[kRefusal] === 'string' && !awaitsAnswer(socket)) sendRefusal(socket);
  };
  // Before Node's own 'finish' listener, which ends the socket of a last answer (the client
  // half-closed, or asked to close): the refusal goes out after this answer, then the end.
  reply.prependOnceListener('finish', settle); // handed to the socket
  reply.once('close', settle); // or given up
}

// A request on the socket (other than `except`) arrived whole and is not answered yet.
// (One still arriving is the one the refusal is about, or it stopped arriving: it gets no
// answer of its own.)
function awaitsAnswer(socket, except) {
  for (const request of socket?.[kUnanswered] ?? []) if (request !== except && request.complete) return true;
  return false;
}

// Bytes read on the socket since its last answer went out: a request head may be arriving.
function readSinceAnswer(socket) {
  return socket.bytesRead > (socket[kReadAtAnswer] ?? 0);
}

// The requests on the socket before this one that are not answered yet.
function unansweredBefore(request) {
  const unanswered = request.socket?.[kUnanswered];
  if (unanswered === undefined) return 0;
  return unanswered.size - (unanswered.has(request) ? 1 : 0);
}

// Node's socket timeout (server.timeout, and the keep-alive timeout after an answer): the
// socket has been quiet, nothing read and nothing sent, for that long. Node's default
// closes it. Left to watchSends: a socket with bytes waiting to be sent. Closed: one whose
// last answer has gone out (a refusal; its client may keep its own side open). Kept open:
// one with a request on it being answered (a slow handler) or still arriving (the request
// timeout answers it 408), that is one in its set that no refusal is about, or bytes read
// since the last answer that may be a head not yet whole; if nothing more has arrived
// after the request timeout, they were not a request (the parser skips empty lines
// between requests without starting one) and the socket is closed.
function socketTimeout(requestTimeoutMs) {
  const answering = (socket) => {
    for (const request of socket[kUnanswered] ?? []) if (!request[kRefused]) return true;
    return false;
  };
  return (socket) => {
    if (socket.writableLength > 0) return;
    if (!socket.writableEnded && answering(socket)) return;
    const read = socket.bytesRead;
    if (!socket.writableEnded && readSinceAnswer(socket)) {
      const check = () => {
        if (socket.bytesRead === read && !answering(socket)) socket.destroy();
      };
      setTimeout(check, requestTimeoutMs + 1000).unref();
      return;
    }
    socket.destroy();
  };
}

// Closes the server's connections on which the network has taken none of the bytes
// waiting to be sent for the send timeout (limit() ms). Progress is what libuv's write
// queue gives up to the kernel, or the socket's own buffer going down; not what the
// client sends, which reading the next request's head would count (a client that trickles
// bytes and reads nothing held its answers, and a stopping server, for ever). Checked a
// few times per timeout.
function watchSends(server, sockets, sendTimeoutMs, limit) {
  const check = () => {
    const now = Date.now();
    const ms = limit();
    for (const socket of sockets) {
      const waiting = socket.writableLength;
      if (waiting === 0) {
        socket[kSending] = undefined;
        continue;
      }
      const inKernelQueue = socket._handle?.writeQueueSize ?? 0;
      const last = socket[kSending];
      if (last === undefined || inKernelQueue !== last.inKernelQueue || waiting < last.waiting) {
        socket[kSending] = { inKernelQueue, waiting, since: now };
      } else {
        last.waiting = waiting; // answers added: only bytes taken count
        if (now - last.since >= ms) socket.destroy();
      }
    }
  };
  const timer = setInterval(check, Math.max(20, Math.min(1000, Math.floor(Math.min(sendTimeoutMs, STOPPING_SEND_TIMEOUT_MS) / 4))));
  timer.unref();
  server.once('close', () => clearInterval(timer));
}

function sendRefusal(socket) {
  const text = socket[kRefusal];
  socket[kRefusal] = null; // sent
  if (socket.writable && !socket.writableEnded) socket.end(text);
  else if (!socket.writableEnded) socket.destroy(); // (an ending socket still sends what it holds)
}

// What Node's HTTP parser refuses before any route runs (a request line and headers over
// 16 KiB, bytes that are not HTTP, a request too slow to arrive), in the API's error body,
// with the cross-origin headers every other answer carries (plugins/external/cors.js): for
// a list of origins, the request's Origin header when the bytes received hold it and it is
// one of them. The refusal closes the connection. Requests the parser accepted
// earlier on it (a write, then bytes past its Content-Length) are answered first, in order:
// those answers say what was committed, and the refusal before them would read as the
// write refused.
function clientErrorHandler(corsOrigins) {
  return (error, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy(error);
      return;
    }
    if (socket[kRefusal] !== undefined) return; // already refused (the parser repeats its error on more bytes)
    // The request still arriving, which the refusal is about, is not acted on even if its
    // bytes go on arriving; nor is any request after it.
    for (const request of socket[kUnanswered] ?? []) if (!request.complete) request[kRefused] = true;
    if (socket[kClosing]) {
      // An answer on it already closes the connection: nothing is sent after that one.
      socket[kRefusal] = null;
      return;
    }
    socket[kClosing] = true;
    const [status, code, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'HEADERS_TOO_LARGE', 'the request line and headers are over 16 KiB (a path parameter is at most 4096 characters)']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'REQUEST_TIMEOUT', 'the request took too long to arrive']
          : [400, 'INVALID_ARGUMENT', 'the request is not valid HTTP/1.1'];
    const body = JSON.stringify({ error: { code, message } });
    socket[kRefusal] =
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${crossOriginHeaders(corsOrigins, error.rawPacket)}` +
      `Content-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
    if (!awaitsAnswer(socket)) sendRefusal(socket);
  };
}

function crossOriginHeaders(corsOrigins, rawPacket) {
  const origin = Buffer.isBuffer(rawPacket) ? /\r\norigin:[ \t]*([^\r\n]*?)[ \t]*\r\n/i.exec(rawPacket.toString('latin1'))?.[1] : undefined;
  return Object.entries(crossOriginFields(corsOrigins, origin))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
}

// Every number of the API is an integer, and JSON.parse rounds: 9007199254740990.5 and
// 1.0000000000000001 parse to integers the client did not send. The first number token
// (outside strings) whose decimal value is not an integer but parses to one, with the
// field it is the value of (as the schema's messages name fields: body.events[1].amount),
// or null. `text` is any text: what is not JSON is left to the JSON parser.
export function nonIntegerNumber(text) {
  if (!/\d[.eE]/.test(text)) return null; // no number with a fraction or an exponent (most bodies)
  const token = /-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?/y;
  // Per open container, where the scan is in it: an array's index, or the span of the
  // object's latest key in `text` (decoded only for the message).
  const path = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const open = i;
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
      const top = path.at(-1);
      if (top?.keyNext) path[path.length - 1] = { key: [open, i + 1] };
    } else if (c === 0x7b) {
      path.push({ keyNext: true });
    } else if (c === 0x5b) {
      path.push({ index: 0 });
    } else if (c === 0x7d || c === 0x5d) {
      path.pop();
    } else if (c === 0x2c) {
      const top = path.at(-1);
      if (top?.index !== undefined) top.index++;
      else if (top !== undefined) path[path.length - 1] = { keyNext: true };
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      token.lastIndex = i;
      const match = token.exec(text);
      if (match === null) continue;
      const [whole, integer, fraction = '', exponent = '0'] = match;
      // The decimal point sits after integer.length + exponent digits of integer + fraction:
      // the value is an integer iff no digit at or after it is nonzero.
      const digits = integer + fraction;
      const point = integer.length + Number(exponent);
      // (A fraction that survives parsing, like 1.5, is left to the route's schema, whose
      // message names the field.)
      if (/[1-9]/.test(digits.slice(Math.max(0, point))) && Number.isInteger(Number(whole)))
        return { number: whole, field: fieldOf(text, path) };
      i += whole.length - 1;
    }
  }
  return null;
}

// The field the scan stands in, named as the schema's messages name fields (fieldPath).
function fieldOf(text, path) {
  const key = ([open, close]) => {
    try {
      return JSON.parse(text.slice(open, close));
    } catch {
      return text.slice(open + 1, close - 1);
    }
  };
  const parts = path.flatMap((level) =>
    level.index !== undefined ? [String(level.index)] : level.key !== undefined ? [key(level.key)] : [],
  );
  return fieldPath('body', parts);
}

function isJson(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * options.store: an opened store (store/interface.js).
 * options.keys: the key file's content, [{key, role, customers?}].
 * options.limits: { cacheBytes, rateLimitMax, rateLimitWindowMs, maxEventLoopDelay,
 *   maxEventLoopUtilization, pressureSampleInterval, requestTimeoutMs, sendTimeoutMs, readCacheBytes,
 *   readCacheMinBytes } (see the README's Service section).
 * options.logger: Fastify's logger option (pino); default off.
 * options.requestLog: log every request (default off: the error handler logs failures).
 * options.cleanup: { grace, intervalMs } runs the cleanup job (cleanup/job.js); default off.
 * options.corsOrigins: the web origins that may call the API ('*', the default: any; an
 *   array of origins; 'off': none) (plugins/external/cors.js).
 */
export async function buildApp({
  store,
  keys,
  limits = {},
  logger = false,
  requestLog = false,
  cleanup: cleanupOptions = {},
  corsOrigins = '*',
}) {
  const requestTimeoutMs = limits.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // The cross-origin headers of an answer given outside the plugin's hooks, for a request's headers.
  const crossOriginOf = ({ origin }) => crossOriginFields(corsOrigins, Array.isArray(origin) ? origin[0] : origin);
  const app = Fastify({
    logger: logger && { ...(logger === true ? {} : logger), redact: ['req.headers.authorization'] },
    logController: new LogController({ disableRequestLogging: !requestLog }),
    bodyLimit: BODY_LIMIT,
    // A request whose head and body have not arrived whole within this time gets 408 and
    // its connection closes (Node checks its connections every second here): without it
    // (Fastify's default turns Node's off), a client that stops sending mid-body holds its
    // connection, and a stopping process, for as long as it likes.
    requestTimeout: requestTimeoutMs,
    // Node takes it at the server's creation only (set later, it never fires); its head's
    // own timeout may not be longer.
    // A missing Host is refused by the hook below, in the API's body (Node's own 400 has none).
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: Math.min(60_000, requestTimeoutMs),
      connectionsCheckingInterval: 1000,
      requireHostHeader: false,
    },
    // Grant and event ids reach 1024 UTF-8 bytes, percent-encoded up to three times that.
    routerOptions: { maxParamLength: 4096 },
    // Requests that arrive while the app closes get the API's 503 (the hook below), not
    // Fastify's own body.
    return503OnClosing: false,
    // The router's own refusals, before any route runs, in the API's error body: a path that
    // is not valid percent-encoding, or a path segment over maxParamLength. No hook runs for
    // them: the cross-origin headers and the request count are added here.
    frameworkErrors: (error, request, reply) => {
      const refuse = (status, code, message) => {
        app.metrics.answeredUnrouted(request.method, status);
        return reply.code(status).headers(crossOriginOf(request.headers)).send({ error: { code, message } });
      };
      if (error.code === 'FST_ERR_BAD_URL') return refuse(400, 'INVALID_ARGUMENT', 'the path is not valid percent-encoding');
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
        return refuse(400, 'INVALID_ARGUMENT', 'a path parameter (customerId, grantId or eventId) is longer than 4096 characters');
      request.log.error({ err: error }, 'unexpected router error');
      return refuse(500, 'INTERNAL', 'internal error');
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, discriminator: true } },
    clientErrorHandler: clientErrorHandler(corsOrigins),
  });
  app.server.on('request', trackAnswers);
  const sendTimeoutMs = limits.sendTimeoutMs ?? SEND_TIMEOUT_MS;
  app.server.timeout = sendTimeoutMs;
  app.server.on('timeout', socketTimeout(requestTimeoutMs));
  // A client that half-closes its side after sending (FIN) still gets its answers: by
  // default Node cancels the requests in flight and closes, though a write among them is
  // committed. The connection ends after the last answer.
  app.server.httpAllowHalfOpen = true;

  // Stopping (SIGTERM, SIGINT): a request that arrives on an open connection after close()
  // began is answered 503 UNAVAILABLE with Retry-After, and runs nothing. Every answer
  // given from then on, those of the requests in flight too, closes its connection (the
  // last, when requests that arrived whole are pipelined behind it: each is answered): a
  // kept-alive connection that its client holds open would otherwise keep the process
  // running until its keep-alive timeout. Once no request that has arrived whole is still
  // unanswered, the connections left are closed too: those of requests still arriving (a
  // client that stopped sending mid-head or mid-body), which nothing has acted on.
  let closing = false;
  const sockets = new Set(); // the server's open connections
  app.server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  // Node's own closes a connection as idle once its current answer has ended, though bytes
  // of it are still to be sent and requests that arrived whole wait behind it (server.close()
  // calls it, and so does the sweep below). Idle here: nothing unanswered on it, nothing
  // waiting to be sent, no request arriving.
  app.server.closeIdleConnections = () => {
    for (const socket of sockets)
      if ((socket[kUnanswered]?.size ?? 0) === 0 && socket.writableLength === 0 && !readSinceAnswer(socket)) socket.destroy();
  };
  watchSends(app.server, sockets, sendTimeoutMs, () => (closing ? Math.min(sendTimeoutMs, STOPPING_SEND_TIMEOUT_MS) : sendTimeoutMs));
  // Requests pipelined on a connection run one at a time, each once the answer before it
  // is handed to the network: a client that reads nothing makes the server build no more
  // than that (16 large answers built at once held 16 times the memory). Their bodies are
  // read meanwhile (the request timeout would answer 408 a body left waiting).
  app.addHook('preHandler', async (request) => {
    const raw = request.raw;
    if (raw[kBefore] !== undefined) await raw[kBefore];
    // Not acted on: a request a parser refusal is about (a 408 for its body, which the
    // client may go on sending), or one whose connection ends before its answer could go
    // out (an answer before it closed it: Node has ended it by now).
    if (raw[kRefused] || raw.socket?.destroyed || raw.socket?.writableEnded)
      throw unavailable('the connection closes before this request could be answered: it was not acted on; send it again');
  });
  app.addHook('preClose', async () => {
    closing = true;
    // An answer whose headers went out just before: its connection turns idle after the
    // server's one sweep of idle connections at close(). Sweep until the app has closed.
    const sweep = setInterval(() => {
      // (Every request being answered, or waiting its turn, arrived whole.)
      if (![...sockets].some((socket) => awaitsAnswer(socket))) app.server.closeAllConnections?.();
      else app.server.closeIdleConnections?.();
    }, 100);
    sweep.unref();
    app.server.once('close', () => clearInterval(sweep));
  });
  // These run before the cross-origin plugin's hook: their answers get its headers here.
  app.addHook('onRequest', async (request, reply) => {
    try {
      const socket = request.raw.socket;
      if (socket?.[kClosing])
        throw unavailable(
          'an answer before this request on its connection closed the connection: this request was not acted on; send it again',
        );
      if (closing) throw unavailable('the service is stopping; retry');
      if (unansweredBefore(request.raw) >= MAX_PIPELINED) {
        request.raw[kPastLimit] = true;
        if (socket) socket[kClosing] = true;
        throw unavailable(
          `more than ${MAX_PIPELINED} requests pipelined on this connection are unanswered: this one and those after it were not acted on; read the answers, then send them again`,
        );
      }
      refuseUnframed(request.raw);
    } catch (error) {
      reply.headers(crossOriginOf(request.headers));
      throw error;
    }
  });
  // An Expect other than 100-continue: Node answers 417 itself, with no body, unless told.
  app.server.on('checkExpectation', (request, response) => {
    trackAnswers(request, response); // an answer a parser refusal after it waits for
    request.socket[kClosing] = true;
    const { code, message } = expectationFailed(request.headers.expect);
    const body = JSON.stringify({ error: { code, message } });
    response.writeHead(417, {
      ...crossOriginOf(request.headers),
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(body);
  });
  // An answer given before the request's body has arrived whole (a key refused, a body
  // that is not JSON) closes its connection too: the rest of the body is never read, and
  // the connection would otherwise wait for it until the request timeout answered again.
  // Any request sent on a connection after an answer that closes it is not acted on.
  app.addHook('onSend', async (request, reply) => {
    const socket = request.raw.socket;
    // While stopping, the last answer closes the connection, unless a parser refusal held
    // back behind it does (it says Connection: close, and nothing follows an answer that does).
    const lastWhileStopping = closing && !awaitsAnswer(socket, request.raw) && typeof socket?.[kRefusal] !== 'string';
    if (lastWhileStopping || !request.raw.complete || request.raw[kPastLimit]) {
      reply.header('connection', 'close');
      if (socket) socket[kClosing] = true;
    }
  });

  // Every body is JSON: without Fastify's text/plain parser, a text body gets the same
  // answer as any other that is not JSON (plugins/app/errors.js).
  app.removeContentTypeParser('text/plain');
  // POST .../void takes no body: accept an empty one even when it is labelled JSON.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, bytes, done) => {
    // JSON is UTF-8 (RFC 8259): a body declared in another charset is refused, not misread.
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset))
      return done(invalidArgument(`body must be UTF-8 JSON; content-type says charset=${charset}`), undefined);
    if (bytes.length === 0) return done(null, undefined);
    let text;
    try {
      text = utf8.decode(bytes);
    } catch {
      return done(invalidArgument('body is not valid UTF-8'), undefined);
    }
    const rounded = nonIntegerNumber(text);
    if (rounded !== null)
      return done(
        invalidArgument(
          `${rounded.field.slice(0, 200)}: every number must be an integer; ${rounded.number.slice(0, 40)} is not, and would be rounded to one`,
        ),
        undefined,
      );
    return parseJson(request, text, (error, body) => {
      // Valid JSON that the parser refuses has a "__proto__" or "constructor.prototype" key.
      if (error !== null && isJson(text))
        return done(invalidArgument('body must not have a "__proto__" or "constructor" field'), undefined);
      return done(error, body);
    });
  });

  // The error handler first: a route takes the one registered before it, and the OpenAPI
  // document's and the metrics' routes must answer errors in the API's body too. The OpenAPI
  // document takes in the routes registered after it, /metrics included.
  await app.register(errors);
  await app.register(cors, { origins: corsOrigins });
  await app.register(swagger);
  await app.register(metrics);
  await app.register(underPressure, {
    maxEventLoopDelay: limits.maxEventLoopDelay ?? 1000,
    maxEventLoopUtilization: limits.maxEventLoopUtilization ?? 0,
    sampleInterval: limits.pressureSampleInterval ?? 500,
  });
  await app.register(auth, { keys });
  await app.register(rateLimit, { max: limits.rateLimitMax ?? 0, timeWindow: limits.rateLimitWindowMs ?? 1000 });
  await app.register(ledgers, {
    store,
    budgetBytes: limits.cacheBytes ?? 512 * 1024 * 1024,
    readCache: { budgetBytes: limits.readCacheBytes ?? READ_CACHE_BYTES, minBytes: limits.readCacheMinBytes ?? READ_CACHE_MIN_BYTES },
  });
  await app.register(cleanup, cleanupOptions);
  await app.register(health);
  await app.register(customers);
  return app;
}
