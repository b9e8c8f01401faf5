// Packs: a customer's log entries of one full, aligned range of PACK_ROWS seqs
// (1..4096, 4097..8192, …) in one columnar body, stored beside the log rows so that a
// rebuild reads a range as one value instead of PACK_ROWS rows. Derived data, like the
// snapshots: the log rows stay the only truth. A store writes a pack in the transaction
// of the commit that completes its range, so a pack exists exactly when its rows are
// committed (see interface.js for how load returns them).
//
// Body (little-endian), n = last_seq - first_seq + 1 entries:
//   u32 magic 'LPK1' | u32 n | u32 idBytes | u32 0
//   f64 amount[n] | f64 t1[n] | f64 t2[n]   (NaN encodes null: log values are integers)
//   u32 idLength[n]                          (each id's length in UTF-16 code units)
//   u8 kind[n]                               (index in KINDS)
//   u8 ids[idBytes]                          (every id, concatenated, as UTF-8)
// A reader decodes all ids with one TextDecoder call and slices them by their lengths.
import { KINDS } from './interface.js';

/**
 * Entries per pack; packs cover seqs k * PACK_ROWS + 1 … (k + 1) * PACK_ROWS. 4096, or
 * LEDGER_PACK_ROWS (the crash test uses small packs, so that the server is killed while
 * it writes them). Packs of another size are not used (load checks last_seq), and a new
 * pack replaces one of another size at the same first_seq.
 */
export const PACK_ROWS = packRows(process.env.LEDGER_PACK_ROWS);

function packRows(setting) {
  if (setting === undefined || setting === '') return 4096;
  const n = Number(setting);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new RangeError(`LEDGER_PACK_ROWS must be a positive integer, got ${JSON.stringify(setting)}`);
  return n;
}

const MAGIC = 0x314b504c; // 'LPK1'
const HEADER = 16;
const KIND_CODES = new Map(KINDS.map((kind, i) => [kind, i]));
const encoder = new TextEncoder();
// ignoreBOM: a pack's first id may start with U+FEFF, which a default decoder drops.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * @typedef {object} Pack  the entries first_seq … last_seq of one customer, as columns
 * @property {number} firstSeq
 * @property {number} lastSeq
 * @property {Uint8Array} kinds     index in KINDS per entry
 * @property {Float64Array} amounts NaN = null
 * @property {Float64Array} t1s     NaN = null
 * @property {Float64Array} t2s     NaN = null
 * @property {Uint32Array} idLengths
 * @property {string} idText        every id, concatenated
 * @property {Uint8Array} idBytes   the same as UTF-8 (a view of the body)
 */

/** The last seqs of the pack ranges that a commit of seqs from+1 … to completes, in order. */
export function completedRanges(from, to) {
  const ends = [];
  for (let end = (Math.floor(from / PACK_ROWS) + 1) * PACK_ROWS; end <= to; end += PACK_ROWS) ends.push(end);
  return ends;
}

/** A pack's body from its entries `[seq, kind, id, amount, t1, t2]`, in seq order, without gaps. */
export function encodePack(entries) {
  const n = entries.length;
  const text = entries.map((e) => e[2]).join('');
  const idBytes = encoder.encode(text);
  const size = HEADER + 24 * n + 4 * n + n + idBytes.length;
  const buffer = new ArrayBuffer(size);
  const head = new Uint32Array(buffer, 0, 4);
  head[0] = MAGIC;
  head[1] = n;
  head[2] = idBytes.length;
  const amounts = new Float64Array(buffer, HEADER, n);
  const t1s = new Float64Array(buffer, HEADER + 8 * n, n);
  const t2s = new Float64Array(buffer, HEADER + 16 * n, n);
  const idLengths = new Uint32Array(buffer, HEADER + 24 * n, n);
  const kinds = new Uint8Array(buffer, HEADER + 28 * n, n);
  for (let i = 0; i < n; i++) {
    const [seq, kind, id, amount, t1, t2] = entries[i];
    if (seq !== entries[0][0] + i) throw new RangeError(`a pack's entries must follow each other: seq ${seq} at position ${i}`);
    const code = KIND_CODES.get(kind);
    if (code === undefined) throw new RangeError(`unknown entry kind ${JSON.stringify(kind)}`);
    kinds[i] = code;
    amounts[i] = amount ?? NaN;
    t1s[i] = t1 ?? NaN;
    t2s[i] = t2 ?? NaN;
    idLengths[i] = id.length;
  }
  new Uint8Array(buffer, HEADER + 29 * n).set(idBytes);
  return Buffer.from(buffer);
}

/**
 * The pack stored for first_seq … last_seq, or null when the body does not hold exactly
 * those entries (the reader then falls back to the rows).
 * @returns {Pack|null}
 */
export function decodePack(firstSeq, lastSeq, body) {
  const n = lastSeq - firstSeq + 1;
  if (!(body instanceof Uint8Array) || body.byteLength < HEADER || n <= 0) return null;
  // Typed views need aligned offsets: a driver's Buffer may sit anywhere in its pool.
  const bytes = body.byteOffset % 8 === 0 ? body : new Uint8Array(body);
  const { buffer, byteOffset } = bytes;
  const head = new Uint32Array(buffer, byteOffset, 4);
  if (head[0] !== MAGIC || head[1] !== n || bytes.byteLength !== HEADER + 29 * n + head[2]) return null;
  const idLengths = new Uint32Array(buffer, byteOffset + HEADER + 24 * n, n);
  const kinds = new Uint8Array(buffer, byteOffset + HEADER + 28 * n, n);
  const idText = decoder.decode(new Uint8Array(buffer, byteOffset + HEADER + 29 * n, head[2]));
  let chars = 0;
  for (let i = 0; i < n; i++) {
    if (kinds[i] >= KINDS.length) return null;
    chars += idLengths[i];
  }
  if (chars !== idText.length) return null;
  return {
    firstSeq,
    lastSeq,
    kinds,
    amounts: new Float64Array(buffer, byteOffset + HEADER, n),
    t1s: new Float64Array(buffer, byteOffset + HEADER + 8 * n, n),
    t2s: new Float64Array(buffer, byteOffset + HEADER + 16 * n, n),
    idLengths,
    idText,
    idBytes: new Uint8Array(buffer, byteOffset + HEADER + 29 * n, head[2]),
  };
}

/**
 * Where each id of a pack ends in its UTF-8 bytes (`pack.idBytes`), as
 * GPULedger.applyColumns takes them: the lengths in code units summed, where every id is
 * ASCII (as many bytes as units), else counted from the text.
 */
export function idByteEnds(pack) {
  const { idLengths, idText, idBytes } = pack;
  const ends = new Uint32Array(idLengths.length);
  let bytes = 0;
  if (idBytes.length === idText.length) {
    for (let i = 0; i < idLengths.length; i++) ends[i] = bytes += idLengths[i];
    return ends;
  }
  for (let i = 0, at = 0; i < idLengths.length; i++) {
    const end = at + idLengths[i];
    while (at < end) {
      const unit = idText.charCodeAt(at++);
      if (unit < 0x80) bytes += 1;
      else if (unit < 0x800) bytes += 2;
      else if (unit >= 0xd800 && unit <= 0xdbff) {
        bytes += 4; // a surrogate pair: two units, four bytes (ids are well-formed)
        at++;
      } else bytes += 3;
    }
    ends[i] = bytes;
  }
  return ends;
}

/** A pack's entries as log tuples (tests, and readers that want rows). */
export function packEntries(pack) {
  const out = [];
  for (let i = 0, at = 0; i < pack.kinds.length; i++) {
    const id = pack.idText.slice(at, (at += pack.idLengths[i]));
    out.push([pack.firstSeq + i, KINDS[pack.kinds[i]], id, orNull(pack.amounts[i]), orNull(pack.t1s[i]), orNull(pack.t2s[i])]);
  }
  return out;
}

/** A pack column's value: NaN encodes null. */
export function orNull(value) {
  return value === value ? value : null;
}
