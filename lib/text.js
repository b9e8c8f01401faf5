// UTF-8 for ids: TextEncoder and TextDecoder are globals in every browser, worker and
// Node; a test environment may lack them (Jest's jsdom), and in Node they are node:util's.

const source =
  typeof globalThis.TextEncoder === 'function' && typeof globalThis.TextDecoder === 'function'
    ? globalThis
    : (globalThis.process?.getBuiltinModule?.('node:util') ?? globalThis);

/** @type {typeof TextEncoder} */
export const Utf8Encoder = source.TextEncoder;
/** @type {typeof TextDecoder} */
export const Utf8Decoder = source.TextDecoder;
