// Every argument is checked here, before it reaches WASM, so that each rule of
// the contract (README, "Semantics in short" and "Errors") has one place and one message.
export const MAX_SAFE = Number.MAX_SAFE_INTEGER; // 2^53 - 1
export const MAX_ID_BYTES = 1024;

function describe(value) {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}

function utf8Bytes(text) {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff) i++, (bytes += 2); // a pair: 2 units, 4 bytes
    else bytes += 2;
  }
  return bytes;
}

const isWellFormed = String.prototype.isWellFormed
  ? (text) => text.isWellFormed()
  : (text) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

export function checkId(method, name, value) {
  if (typeof value !== 'string') {
    throw new TypeError(`${method}: ${name} must be a string, got ${describe(value)}`);
  }
  if (value.length === 0) throw new RangeError(`${method}: ${name} must not be empty`);
  if (!isWellFormed(value)) {
    throw new RangeError(`${method}: ${name} must be well-formed Unicode (no lone surrogates)`);
  }
  if (value.length > MAX_ID_BYTES / 3 && utf8Bytes(value) > MAX_ID_BYTES) {
    throw new RangeError(`${method}: ${name} must be at most ${MAX_ID_BYTES} UTF-8 bytes, got ${utf8Bytes(value)}`);
  }
}

function checkInteger(method, name, value, min, rule) {
  if (typeof value !== 'number') {
    throw new TypeError(`${method}: ${name} must be a number, got ${describe(value)}`);
  }
  if (!Number.isInteger(value) || value < min || value > MAX_SAFE) {
    throw new RangeError(`${method}: ${name} must be an integer in ${rule}, got ${describe(value)}`);
  }
}

export function checkAmount(method, name, value) {
  checkInteger(method, name, value, 1, '[1, 2^53 - 1]');
}

export function checkTime(method, name, value) {
  checkInteger(method, name, value, 0, '[0, 2^53 - 1]');
}

export function checkWindow(method, startName, start, endName, end) {
  if (start > end) {
    throw new RangeError(`${method}: ${startName} must be <= ${endName}, got ${start} > ${end}`);
  }
}
