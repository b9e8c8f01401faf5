// What the before/after benches share: the packages to compare, and per-call timing.
//   --before DIR (or GCL_BENCH_BEFORE=DIR): also the package in DIR (an earlier checkout
//   with its dist/ built), run first, for a before/after table in one process.
import { pathToFileURL } from 'node:url';
import path from 'node:path';

export const args = process.argv.slice(2);
export const quick = args.includes('--quick');

/** [label, GPULedger] pairs: the earlier package's first when one is given. */
export async function builds(GPULedger, label) {
  const at = args.indexOf('--before');
  const dir = at >= 0 ? args[at + 1] : process.env.GCL_BENCH_BEFORE;
  const runs = [];
  if (dir) runs.push(['before', (await import(pathToFileURL(path.resolve(dir, 'lib/index.js')).href)).GPULedger]);
  runs.push([label, GPULedger]);
  return runs;
}

export const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
export const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
export const pad = (text, width) => String(text).padStart(width);
export const fmt = (x) => (x >= 10 ? x.toFixed(1) : x.toFixed(3));
