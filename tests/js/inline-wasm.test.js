// The main entry's inlined WebAssembly: the binary is carried gzipped and base64-encoded
// in the main module (dist/gpu_credit_ledger_wasm.mjs, lib/inline-wasm.js bundled by
// scripts/inline-wasm.mjs). It must decode to exactly the separate .wasm file on every
// path lib/inline-wasm.js can take (Node's zlib, DecompressionStream, lib/inflate.js),
// and the module it instantiates must answer like the main entry (the decoding paths are
// taken from dist/gpu_credit_ledger_wasm_internals.mjs, the same bundle with them
// exported, beside the .wasm file as the main module is). In Node the module
// reads the package's .wasm file instead when it is this build's, and only then. The main module
// imports lib/inflate.js dynamically, on the last path only. lib/inflate.js is held
// to zlib on stored, fixed-Huffman and dynamic-Huffman blocks, and refuses corrupt input.
import * as fs from 'node:fs';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GPULedger as MainLedger, LedgerError } from 'gpu-credit-ledger';
import { gunzip } from '../../lib/inflate.js';
import { inlinedWasm, instantiateInlined } from '../../dist/gpu_credit_ledger_wasm_internals.mjs';
import { SEED_EXAMPLE_1, seedOutcome, seedResults } from './fixtures/seed.js';
import { mulberry32 } from './helpers.js';

const wasmBytes = readFileSync(
  createRequire(import.meta.url)
    .resolve('gpu-credit-ledger/package.json')
    .replace(/package\.json$/, 'dist/gpu_credit_ledger.wasm'),
);

// The block type of a gzip member's first deflate block (bits 1-2 after the header).
const firstBlockType = (gz) => (gz[10] >> 1) & 3;

function samples() {
  const random = mulberry32(13);
  const noise = (n) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
  const words = (n) =>
    new TextEncoder().encode(
      Array.from({ length: n }, () => ['grant', 'consume', 'balance', 'héadroom', '€'][Math.floor(random() * 5)]).join(' '),
    );
  return {
    empty: new Uint8Array(0),
    'one byte': Uint8Array.of(42),
    short: new TextEncoder().encode('hello hello hello'),
    'noise 100': noise(100),
    'noise 70000': noise(70_000), // incompressible: stored blocks longer than one
    'words 20000': words(20_000),
    'long runs': Uint8Array.from({ length: 100_000 }, (_, i) => (i >> 12) & 1), // distances up to 32768
    wasm: wasmBytes,
  };
}

describe('lib/inflate.js gunzip', () => {
  it('decodes what zlib encodes, at every level, on stored, fixed and dynamic blocks', () => {
    const blockTypes = new Set();
    for (const [name, bytes] of Object.entries(samples())) {
      for (const level of [0, 1, 6, 9]) {
        const gz = gzipSync(bytes, { level });
        blockTypes.add(firstBlockType(gz));
        expect(Buffer.from(gunzip(gz)).equals(Buffer.from(bytes)), `${name} at level ${level}`).toBe(true);
      }
    }
    expect([...blockTypes].sort()).toEqual([0, 1, 2]);
  });

  it('skips the optional header fields (extra, name, comment, header CRC)', () => {
    const bytes = new TextEncoder().encode('grant g1 100 over [0, 10]; consume c1 40 at 5');
    const gz = gzipSync(bytes);
    const extra = [4, 0, 1, 2, 3, 4];
    const name = [...new TextEncoder().encode('ledger.txt'), 0];
    const comment = [...new TextEncoder().encode('a comment'), 0];
    const withFields = Uint8Array.from([
      ...gz.subarray(0, 3),
      gz[3] | 2 | 4 | 8 | 16,
      ...gz.subarray(4, 10),
      ...extra,
      ...name,
      ...comment,
      0xab,
      0xcd,
      ...gz.subarray(10),
    ]);
    expect(new TextDecoder().decode(gunzip(withFields))).toBe('grant g1 100 over [0, 10]; consume c1 40 at 5');
  });

  it('refuses corrupt input with a clear error', () => {
    const gz = gzipSync(samples()['words 20000']);
    expect(() => gunzip(Uint8Array.of(1, 2, 3))).toThrow(/inlined WebAssembly is corrupt \(no gzip header\)/);
    const truncated = Uint8Array.from([...gz.subarray(0, 200), ...gz.subarray(gz.length - 8)]);
    expect(() => gunzip(truncated)).toThrow(/inlined WebAssembly is corrupt/);
    const wrongSize = Uint8Array.from(gz);
    wrongSize[wrongSize.length - 4] ^= 1; // the trailer's size, off by one
    expect(() => gunzip(wrongSize)).toThrow(/inlined WebAssembly is corrupt \((shorter|longer) than its trailer says\)/);
    const badBlock = Uint8Array.from(gz);
    badBlock[10] |= 6; // block type 3, reserved
    expect(() => gunzip(badBlock)).toThrow(/inlined WebAssembly is corrupt/);
  });
});

// What lib/inline-wasm.js may find in a platform: Node (zlib), a browser or worker
// (atob, DecompressionStream), or neither (its own inflate).
const platforms = {
  'Node (zlib)': globalThis,
  'a browser (atob, DecompressionStream)': {
    atob: globalThis.atob,
    Blob: globalThis.Blob,
    Response: globalThis.Response,
    DecompressionStream: globalThis.DecompressionStream,
  },
  'neither (lib/inflate.js)': { atob: globalThis.atob },
};

describe('the inlined module', () => {
  for (const [name, platform] of Object.entries(platforms)) {
    it(`decodes to the separate .wasm file and answers like the main entry: ${name}`, async () => {
      const bytes = await inlinedWasm(platform);
      expect(Buffer.from(bytes).equals(wasmBytes)).toBe(true);
      const { GPULedger } = await instantiateInlined(platform);
      expect(GPULedger).not.toBe(MainLedger); // a module instance of its own
      expect(seedOutcome(GPULedger)).toEqual(seedOutcome(MainLedger));
      // One LedgerError class for every entry: the bundle shares lib/errors.js.
      const ledger = new GPULedger();
      ledger.addGrant('g1', 1, 0, 1);
      expect(() => ledger.addGrant('g1', 2, 0, 1)).toThrow(LedgerError);
      ledger.dispose();
      expect(seedOutcome(GPULedger).result).toEqual([
        ...seedResults(SEED_EXAMPLE_1),
        ...SEED_EXAMPLE_1.balances.map(([, balance]) => balance),
      ]);
    });
  }
});

// A Node platform whose node:fs serves `file` (bytes, or an Error to throw) for the .wasm
// beside the module, and which notes every built-in module asked for.
function nodePlatform(file) {
  const asked = [];
  const fakeFs = {
    readFileSync(path) {
      asked.push(`read ${String(path).split('/').at(-1)}`);
      if (file instanceof Error) throw file;
      return file;
    },
  };
  const platform = {
    Buffer: globalThis.Buffer,
    process: {
      getBuiltinModule(name) {
        asked.push(name);
        return name === 'node:fs' ? fakeFs : globalThis.process.getBuiltinModule(name);
      },
    },
  };
  return { platform, asked };
}

describe('the .wasm file beside the main module (Node)', () => {
  it('is what a Node process instantiates: no gunzip, the same answers', async () => {
    const { platform, asked } = nodePlatform(Buffer.from(wasmBytes));
    const { GPULedger } = await instantiateInlined(platform);
    expect(asked).toEqual(['node:fs', 'read gpu_credit_ledger.wasm']);
    expect(seedOutcome(GPULedger)).toEqual(seedOutcome(MainLedger));
  });

  it('the real file system has it, and the main module finds it there', () => {
    const beside = new URL('../../dist/gpu_credit_ledger.wasm', import.meta.url);
    expect(Buffer.from(fs.readFileSync(beside)).equals(wasmBytes)).toBe(true);
  });

  const otherBuilds = {
    'missing (an application bundle)': Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' }),
    'of another length': Buffer.concat([wasmBytes, Buffer.of(0)]),
    'of the same length, one sampled byte different': (() => {
      const bytes = Buffer.from(wasmBytes);
      bytes[32 * 100] ^= 0xff;
      return bytes;
    })(),
  };
  for (const [name, file] of Object.entries(otherBuilds)) {
    it(`is not used when it is ${name}: the inlined binary is`, async () => {
      const { platform, asked } = nodePlatform(file);
      const { GPULedger } = await instantiateInlined(platform);
      expect(asked).toEqual(['node:fs', 'read gpu_credit_ledger.wasm', 'node:zlib']);
      expect(seedOutcome(GPULedger)).toEqual(seedOutcome(MainLedger));
    });
  }
});
