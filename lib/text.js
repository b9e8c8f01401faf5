// UTF-8 for ids: TextEncoder and TextDecoder are globals in every browser, worker and
// Node; a test environment may lack them (Jest's jsdom), and in Node they are node:util's.

const source =
  typeof globalThis.TextEncoder === 'function' && typeof globalThis.TextDecoder === 'function'
    ? globalThis
    : (globalThis.process?.getBuiltinModule?.('node:util') ?? globalThis);

// Neither (a test environment without them on Node before 20.16): a clear error on load.
const missing = (name) =>
  class {
    constructor() {
      throw new TypeError(
        `gpu-credit-ledger needs ${name}, which this environment lacks: give it Node's (require('node:util').${name}) or run Node >= 20.16`,
      );
    }
  };

/** @type {typeof TextEncoder} */
export const Utf8Encoder = source.TextEncoder ?? missing('TextEncoder');
/** @type {typeof TextDecoder} */
export const Utf8Decoder = source.TextDecoder ?? missing('TextDecoder');
