// A small HTTP/1.1 JSON client for the black-box tests, with the retry rule the
// crash-safety contract gives clients: a request that was not answered (connection
// refused or reset, timeout, 503) is sent again, with the same id and parameters, until
// it is answered.
import http from 'node:http';

export class NetworkError extends Error {
  constructor(cause) {
    super(`network error: ${cause.code ?? cause.message}`);
    this.name = 'NetworkError';
    this.cause = cause;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * options.target: an object whose `url` (e.g. http://127.0.0.1:1234) is read at every
 * attempt, so a test can restart the server on another port; `url: null` means "down".
 * options.key: the bearer key. options.timeoutMs: per attempt. options.maxSockets.
 */
export function makeClient({ target, key, timeoutMs = 15_000, maxSockets = 4 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });

  /** One attempt. Resolves to { status, headers, body } or rejects with NetworkError. */
  function request(method, path, body) {
    const base = target.url;
    if (!base) return Promise.reject(new NetworkError(Object.assign(new Error('server down'), { code: 'SERVER_DOWN' })));
    const url = new URL(path, base);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = {};
    if (key) headers.authorization = `Bearer ${key}`;
    if (payload) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = payload.length;
    }
    return new Promise((resolve, reject) => {
      const req = http.request(
        { agent, hostname: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, timeout: timeoutMs },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('error', (err) => reject(new NetworkError(err)));
          res.on('aborted', () => reject(new NetworkError(Object.assign(new Error('response aborted'), { code: 'ABORTED' }))));
          res.on('end', () => {
            if (!res.complete) {
              reject(new NetworkError(Object.assign(new Error('incomplete response'), { code: 'INCOMPLETE' })));
              return;
            }
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed = text;
            if ((res.headers['content-type'] ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
            resolve({ status: res.statusCode, headers: res.headers, body: parsed });
          });
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
      req.on('error', (err) => reject(new NetworkError(err)));
      req.end(payload);
    });
  }

  /**
   * Sends until answered: network errors and the statuses in `retryOn` (default 503 and
   * 429) are retried after a short pause (Retry-After is honoured up to `maxPauseMs`).
   * Gives up with an error after `maxAttempts`, at `deadline` (ms since epoch), or when
   * `abandon()` returns true (a test that already failed stops its clients).
   * Resolves to the answer plus `attempts` and `unanswered` (how many attempts got no
   * answer or a retryable one: the request may have been applied by any of them).
   */
  async function untilAnswered(
    method,
    path,
    body,
    { retryOn = [503, 429], maxAttempts = 1000, deadline = Infinity, maxPauseMs = 200, abandon = () => false } = {},
  ) {
    let unanswered = 0;
    for (let attempt = 1; ; attempt += 1) {
      let answer = null;
      let failure = null;
      try {
        answer = await request(method, path, body);
      } catch (err) {
        if (!(err instanceof NetworkError)) throw err;
        failure = err;
      }
      if (answer && !retryOn.includes(answer.status)) return { ...answer, attempts: attempt, unanswered };
      unanswered += 1;
      if (attempt >= maxAttempts || Date.now() >= deadline || abandon()) {
        const why = failure ? failure.message : `status ${answer.status} ${JSON.stringify(answer.body)}`;
        throw new Error(`${method} ${path}: not answered after ${attempt} attempts (${why})`);
      }
      const retryAfter = answer ? Number(answer.headers['retry-after']) * 1000 : NaN;
      await sleep(Math.min(maxPauseMs, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 5 + attempt * 5));
    }
  }

  return { request, untilAnswered, close: () => agent.destroy() };
}
