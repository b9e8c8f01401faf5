// Every argument is checked here, before it reaches WASM, so that each rule of the
// contract (README, "Semantics in short" and "Errors") has one place and one message.
// The limits themselves come from the core (lib/core-table.js).

function describe(value) {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return Object.is(value, -0) ? '-0' : String(value); // String(-0) is '0', which the checks take
}

function utf8Bytes(text) {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) {
      bytes += 1;
    } else if (unit >= 0xd800 && unit <= 0xdbff) {
      i++; // a surrogate pair: 2 units, 4 bytes
      bytes += 2;
    } else {
      bytes += 2;
    }
  }
  return bytes;
}

export const isWellFormed =
  typeof String.prototype.isWellFormed === 'function'
    ? (text) => text.isWellFormed()
    : (text) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

const TRY_CONSUME_OPTIONS = new Set(['dryRun']);

/** How messages write the largest amount or time: 2^53 - 1 is the only one the core has had. */
export function maxSafeText(maxSafe) {
  return maxSafe === 2 ** 53 - 1 ? '2^53 - 1' : String(maxSafe);
}

/**
 * The argument checks for the core's limits (`{ MAX_ID_BYTES, MAX_SAFE }` from
 * readCoreTable). Each check throws TypeError for a wrong type and RangeError for a bad
 * value, naming the method and the argument.
 */
export function makeChecks({ MAX_ID_BYTES, MAX_SAFE }) {
  const maxText = maxSafeText(MAX_SAFE);

  function checkId(method, name, value) {
    if (typeof value !== 'string') {
      throw new TypeError(`${method}: ${name} must be a string, got ${describe(value)}`);
    }
    if (value.length === 0) checkIdBytes(method, name, 0);
    if (!isWellFormed(value)) {
      throw new RangeError(`${method}: ${name} must be well-formed Unicode (no lone surrogates)`);
    }
    // A UTF-16 unit is at most 3 UTF-8 bytes: shorter strings need no count.
    if (value.length > MAX_ID_BYTES / 3) checkIdBytes(method, name, utf8Bytes(value));
  }

  // checkId's length rules for an id of `bytes` UTF-8 bytes (applyColumns' ids are bytes).
  function checkIdBytes(method, name, bytes) {
    if (bytes === 0) throw new RangeError(`${method}: ${name} must not be empty`);
    if (bytes > MAX_ID_BYTES) throw new RangeError(`${method}: ${name} must be at most ${MAX_ID_BYTES} UTF-8 bytes, got ${bytes}`);
  }

  function checkInteger(method, name, value, min) {
    if (typeof value !== 'number') {
      throw new TypeError(`${method}: ${name} must be a number, got ${describe(value)}`);
    }
    if (!Number.isInteger(value) || value < min || value > MAX_SAFE) {
      throw new RangeError(`${method}: ${name} must be an integer in [${min}, ${maxText}], got ${describe(value)}`);
    }
  }

  function checkCount(method, name, value) {
    checkInteger(method, name, value, 0);
  }

  function checkAmount(method, name, value) {
    checkInteger(method, name, value, 1);
  }

  function checkTime(method, name, value) {
    checkInteger(method, name, value, 0);
  }

  function checkWindow(method, startName, start, endName, end) {
    if (start > end) {
      throw new RangeError(`${method}: ${startName} must be <= ${endName}, got ${start} > ${end}`);
    }
  }

  // tryConsume's options: { dryRun?: boolean }, nothing else.
  function checkTryConsumeOptions(method, options) {
    if (options === undefined) return { dryRun: undefined }; // not read from Object.prototype
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new TypeError(`${method}: options must be an object, got ${describe(options)}`);
    }
    // A misspelt dryRun must not turn a preview into a real charge: every own key counts,
    // non-enumerable and symbol ones too.
    for (const key of Reflect.ownKeys(options)) {
      if (typeof key !== 'string' || !TRY_CONSUME_OPTIONS.has(key)) {
        throw new TypeError(`${method}: unknown option ${typeof key === 'symbol' ? key.toString() : JSON.stringify(key)}`);
      }
    }
    // Read once (a getter cannot hand the check one value and the call another), and only
    // as the object's own: an inherited dryRun (Object.prototype's) must not skip a charge.
    const dryRun = Object.hasOwn(options, 'dryRun') ? options.dryRun : undefined;
    if (dryRun !== undefined && typeof dryRun !== 'boolean') {
      throw new TypeError(`${method}: options.dryRun must be a boolean, got ${typeof dryRun}`);
    }
    return { dryRun };
  }

  function checkListener(method, listener) {
    if (typeof listener !== 'function') {
      throw new TypeError(`${method}: listener must be a function, got ${listener === null ? 'null' : typeof listener}`);
    }
  }

  return Object.freeze({ checkId, checkIdBytes, checkCount, checkAmount, checkTime, checkWindow, checkTryConsumeOptions, checkListener });
}
