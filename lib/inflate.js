// A small gzip decoder (RFC 1952 around RFC 1951 deflate) for the WebAssembly binary that
// the main module carries compressed. lib/inline-wasm.js uses Node's zlib or the
// platform's DecompressionStream (current browsers) where there is one; this is the
// fallback where there is none. Canonical Huffman codes decoded bit by bit (as zlib's
// puff does): small rather than fast, and the binary is decoded once per process.

const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DISTANCE_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385,
  24577,
];
const DISTANCE_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

function corrupt(what) {
  return new Error(`gpu-credit-ledger: the inlined WebAssembly is corrupt (${what})`);
}

// A canonical Huffman code from its code lengths: how many codes of each length, and the
// symbols in code order.
function huffman(lengths) {
  const counts = new Uint16Array(16);
  const offsets = new Uint16Array(16);
  const symbols = new Uint16Array(lengths.length);
  for (const length of lengths) counts[length]++;
  counts[0] = 0;
  for (let length = 1; length < 16; length++) offsets[length] = offsets[length - 1] + counts[length - 1];
  lengths.forEach((length, symbol) => {
    if (length) symbols[offsets[length]++] = symbol;
  });
  return { counts, symbols };
}

/** Decompresses one gzip member into a new Uint8Array (its size is read from the trailer). */
export function gunzip(bytes) {
  if (bytes.length < 18 || bytes[0] !== 0x1f || bytes[1] !== 0x8b || bytes[2] !== 8) throw corrupt('no gzip header');
  const flags = bytes[3];
  let pos = 10;
  if (flags & 4) pos += 2 + (bytes[pos] | (bytes[pos + 1] << 8));
  if (flags & 8) while (bytes[pos++]);
  if (flags & 16) while (bytes[pos++]);
  if (flags & 2) pos += 2;
  const end = bytes.length - 8;
  const size = (bytes[end + 4] | (bytes[end + 5] << 8) | (bytes[end + 6] << 16) | (bytes[end + 7] << 24)) >>> 0;
  const out = new Uint8Array(size);
  let written = 0;
  let bitBuffer = 0;
  let bitCount = 0;

  const bits = (count) => {
    while (bitCount < count) {
      if (pos >= end) throw corrupt('data ends early');
      bitBuffer |= bytes[pos++] << bitCount;
      bitCount += 8;
    }
    const value = bitBuffer & ((1 << count) - 1);
    bitBuffer >>>= count;
    bitCount -= count;
    return value;
  };
  const decode = ({ counts, symbols }) => {
    let code = 0;
    let first = 0;
    let index = 0;
    for (let length = 1; length < 16; length++) {
      code |= bits(1);
      const count = counts[length];
      if (code - first < count) return symbols[index + code - first];
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    throw corrupt('bad Huffman code');
  };

  let last = 0;
  while (!last) {
    last = bits(1);
    const type = bits(2);
    if (type === 0) {
      bitBuffer = 0; // a stored block starts at the next byte
      bitCount = 0;
      if (pos + 4 > end) throw corrupt('data ends early');
      const length = bytes[pos] | (bytes[pos + 1] << 8);
      if ((length ^ (bytes[pos + 2] | (bytes[pos + 3] << 8))) !== 0xffff) throw corrupt('bad stored block');
      pos += 4;
      if (pos + length > end || written + length > size) throw corrupt('stored block too long');
      out.set(bytes.subarray(pos, pos + length), written);
      pos += length;
      written += length;
      continue;
    }
    let literals;
    let distances;
    if (type === 1) {
      const lengths = new Array(288).fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280);
      literals = huffman(lengths);
      distances = huffman(new Array(30).fill(5));
    } else if (type === 2) {
      const literalCount = bits(5) + 257;
      const distanceCount = bits(5) + 1;
      const codeLengthCount = bits(4) + 4;
      const codeLengths = new Array(19).fill(0);
      for (let i = 0; i < codeLengthCount; i++) codeLengths[CODE_LENGTH_ORDER[i]] = bits(3);
      const codeLengthCode = huffman(codeLengths);
      const lengths = [];
      while (lengths.length < literalCount + distanceCount) {
        const symbol = decode(codeLengthCode);
        if (symbol < 16) {
          lengths.push(symbol);
        } else {
          if (symbol === 16 && lengths.length === 0) throw corrupt('repeat with no length');
          const value = symbol === 16 ? lengths[lengths.length - 1] : 0;
          const repeat = symbol === 16 ? 3 + bits(2) : symbol === 17 ? 3 + bits(3) : 11 + bits(7);
          for (let i = 0; i < repeat; i++) lengths.push(value);
        }
      }
      if (lengths.length !== literalCount + distanceCount) throw corrupt('too many code lengths');
      literals = huffman(lengths.slice(0, literalCount));
      distances = huffman(lengths.slice(literalCount));
    } else {
      throw corrupt('reserved block type');
    }
    for (;;) {
      const symbol = decode(literals);
      if (symbol < 256) {
        if (written >= size) throw corrupt('longer than its trailer says');
        out[written++] = symbol;
      } else if (symbol === 256) {
        break;
      } else {
        const lengthCode = symbol - 257;
        if (lengthCode >= 29) throw corrupt('bad length code');
        const length = LENGTH_BASE[lengthCode] + bits(LENGTH_EXTRA[lengthCode]);
        const distanceCode = decode(distances);
        if (distanceCode >= 30) throw corrupt('bad distance code');
        const distance = DISTANCE_BASE[distanceCode] + bits(DISTANCE_EXTRA[distanceCode]);
        if (distance > written) throw corrupt('distance before the start');
        if (written + length > size) throw corrupt('longer than its trailer says');
        for (let i = 0; i < length; i++, written++) out[written] = out[written - distance];
      }
    }
  }
  if (written !== size) throw corrupt('shorter than its trailer says');
  return out;
}
