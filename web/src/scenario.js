// A scenario is what the demo replays into a fresh ledger: an optional preset
// (a seed example or the random generator) followed by the calls made since.
// Calls are plain objects: { op: 'addGrant', grantId, amount, startTime, endTime },
// { op: 'consume', eventId, amount, timestamp } (a rejection's reason from a tryConsume dry run),
// { op: 'submit', eventId, amount, timestamp } (queues what cannot be funded yet),
// { op: 'cancelPending', eventId }, { op: 'voidGrant', grantId },
// { op: 'setGrantEnd', grantId, endTime }, { op: 'compact', horizon } (finalize before
// horizon) or { op: 'getBalance', timestamp }.

export const SEED_PRESETS = {
  seed1: {
    label: 'Seed example 1',
    cursor: 11,
    ops: [
      { op: 'addGrant', grantId: 'g1', amount: 100, startTime: 0, endTime: 10 },
      { op: 'addGrant', grantId: 'g2', amount: 50, startTime: 5, endTime: 15 },
      { op: 'consume', eventId: 'c1', amount: 80, timestamp: 6, expect: true },
      { op: 'getBalance', timestamp: 6, expect: 70 },
      { op: 'consume', eventId: 'c2', amount: 60, timestamp: 11, expect: false },
      { op: 'consume', eventId: 'c3', amount: 40, timestamp: 11, expect: true },
      { op: 'getBalance', timestamp: 11, expect: 10 },
    ],
  },
  seed2: {
    label: 'Seed example 2',
    cursor: 8,
    ops: [
      { op: 'addGrant', grantId: 'g1', amount: 100, startTime: 0, endTime: 10 },
      { op: 'consume', eventId: 'c_late', amount: 80, timestamp: 8, expect: true },
      { op: 'consume', eventId: 'c_early', amount: 30, timestamp: 2, expect: false },
      { op: 'getBalance', timestamp: 8, expect: 20 },
    ],
  },
};

export const RANDOM_DEFAULTS = { grants: 1000, consumptions: 10000 };
const RANDOM_SPAN = 100_000;

// mulberry32: tiny, fast and good enough to make a scenario reproducible from its seed.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Generates a billing-like stream: grants mostly announced before they start,
 * consumptions mostly reported as they happen, and a few of each arriving late
 * (out-of-order grants and backdated consumptions). Events are emitted in arrival
 * order and named in that order (g1…, c1…).
 */
export function generateRandomOps({ seed, grants = RANDOM_DEFAULTS.grants, consumptions = RANDOM_DEFAULTS.consumptions }) {
  const random = prng(seed);
  const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));
  const events = [];
  for (let i = 0; i < grants; i++) {
    const startTime = int(0, RANDOM_SPAN * 0.95);
    const endTime = startTime + int(500, 8000);
    const late = random() < 0.03;
    const arrival = late ? startTime + int(100, 4000) : startTime - int(0, 3000);
    events.push({ arrival, op: 'addGrant', amount: int(10, 100) * 100, startTime, endTime });
  }
  for (let i = 0; i < consumptions; i++) {
    const timestamp = int(0, RANDOM_SPAN);
    const late = random() < 0.03;
    const arrival = timestamp + (late ? int(200, 5000) : int(0, 20));
    events.push({ arrival, op: 'consume', amount: int(1, 50) * 20, timestamp });
  }
  events.sort((a, b) => a.arrival - b.arrival);
  let g = 0;
  let c = 0;
  return events.map(({ arrival: _arrival, ...call }) =>
    call.op === 'addGrant'
      ? { op: 'addGrant', grantId: `g${++g}`, amount: call.amount, startTime: call.startTime, endTime: call.endTime }
      : { op: 'consume', eventId: `c${++c}`, amount: call.amount, timestamp: call.timestamp },
  );
}

/** The calls a preset stands for, or [] for none. */
export function presetOps(preset) {
  if (!preset) return [];
  if (preset.name === 'random') return generateRandomOps(preset);
  return SEED_PRESETS[preset.name]?.ops ?? [];
}

// --- URL hash: #preset=random&seed=7&ops=g,g1001,500,10,90;c,c10001,20,50&t=42
// (s = submit, x = cancelPending, v = voidGrant, e = setGrantEnd, h = compact, b = getBalance)
// Ids are percent-encoded, so ',' ';' '&' '=' never appear inside a field. Long
// call lists are deflated and base64url-encoded under `z=` instead of `ops=`.

const COMPRESS_ABOVE = 1500;

function encodeOp(call) {
  const id = (s) => encodeURIComponent(String(s));
  switch (call.op) {
    case 'addGrant':
      return ['g', id(call.grantId), call.amount, call.startTime, call.endTime].join(',');
    case 'consume':
      return ['c', id(call.eventId), call.amount, call.timestamp].join(',');
    case 'submit':
      return ['s', id(call.eventId), call.amount, call.timestamp].join(',');
    case 'cancelPending':
      return ['x', id(call.eventId)].join(',');
    case 'voidGrant':
      return ['v', id(call.grantId)].join(',');
    case 'setGrantEnd':
      return ['e', id(call.grantId), call.endTime].join(',');
    case 'compact':
      return ['h', call.horizon].join(',');
    case 'getBalance':
      return ['b', call.timestamp].join(',');
    default:
      throw new Error(`unknown call ${call.op}`);
  }
}

function decodeOp(text) {
  const [kind, ...f] = text.split(',');
  const num = (s) => {
    if (!/^\d+$/.test(s ?? '')) throw new Error(`"${text}" has a bad number`);
    return Number(s);
  };
  if (kind === 'g' && f.length === 4) {
    return { op: 'addGrant', grantId: decodeURIComponent(f[0]), amount: num(f[1]), startTime: num(f[2]), endTime: num(f[3]) };
  }
  if (kind === 'c' && f.length === 3) {
    return { op: 'consume', eventId: decodeURIComponent(f[0]), amount: num(f[1]), timestamp: num(f[2]) };
  }
  if (kind === 's' && f.length === 3) {
    return { op: 'submit', eventId: decodeURIComponent(f[0]), amount: num(f[1]), timestamp: num(f[2]) };
  }
  if (kind === 'x' && f.length === 1) return { op: 'cancelPending', eventId: decodeURIComponent(f[0]) };
  if (kind === 'v' && f.length === 1) return { op: 'voidGrant', grantId: decodeURIComponent(f[0]) };
  if (kind === 'e' && f.length === 2) return { op: 'setGrantEnd', grantId: decodeURIComponent(f[0]), endTime: num(f[1]) };
  if (kind === 'h' && f.length === 1) return { op: 'compact', horizon: num(f[0]) };
  if (kind === 'b' && f.length === 1) return { op: 'getBalance', timestamp: num(f[0]) };
  throw new Error(`"${text}" is not a call`);
}

async function pipeBytes(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

function toBase64Url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const s = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  return Uint8Array.from(s, (ch) => ch.charCodeAt(0));
}

/** Encodes { preset, ops, cursor } for location.hash (without the '#'). */
export async function encodeHash({ preset, ops, cursor }) {
  const parts = [];
  if (preset) {
    parts.push(`preset=${preset.name}`);
    if (preset.name === 'random') {
      parts.push(`seed=${preset.seed}`);
      if (preset.grants !== RANDOM_DEFAULTS.grants) parts.push(`grants=${preset.grants}`);
      if (preset.consumptions !== RANDOM_DEFAULTS.consumptions) parts.push(`consumptions=${preset.consumptions}`);
    }
  }
  const text = ops.map(encodeOp).join(';');
  if (text.length > COMPRESS_ABOVE) {
    const packed = await pipeBytes(new TextEncoder().encode(text), new CompressionStream('deflate-raw'));
    parts.push(`z=${toBase64Url(packed)}`);
  } else if (text) {
    parts.push(`ops=${text}`);
  }
  if (Number.isSafeInteger(cursor)) parts.push(`t=${cursor}`);
  return parts.join('&');
}

/** Decodes a location.hash (with or without '#'); null when it holds no scenario. */
export async function decodeHash(hash) {
  const body = hash.replace(/^#/, '');
  if (!body) return null;
  const fields = new Map(
    body.split('&').map((kv) => {
      const at = kv.indexOf('=');
      return at < 0 ? [kv, ''] : [kv.slice(0, at), kv.slice(at + 1)];
    }),
  );
  const count = (name, fallback) => {
    if (!fields.has(name)) return fallback;
    const v = fields.get(name);
    if (!/^\d+$/.test(v)) throw new Error(`${name} must be a whole number, got "${v}"`);
    return Number(v);
  };
  let preset = null;
  const name = fields.get('preset');
  if (name === 'random') {
    preset = {
      name,
      seed: count('seed', 1),
      grants: Math.min(count('grants', RANDOM_DEFAULTS.grants), 20_000),
      consumptions: Math.min(count('consumptions', RANDOM_DEFAULTS.consumptions), 200_000),
    };
  } else if (name) {
    if (!SEED_PRESETS[name]) throw new Error(`unknown preset "${name}"`);
    preset = { name };
  }
  let text = fields.get('ops') ?? '';
  if (fields.has('z')) {
    try {
      const bytes = await pipeBytes(fromBase64Url(fields.get('z')), new DecompressionStream('deflate-raw'));
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      // The platform's own message ("Failed to fetch" from the stream) reads as a network error.
      throw new Error('its compressed scenario (z=) is damaged or cut short');
    }
  }
  const ops = text ? text.split(';').map(decodeOp) : [];
  // The cursor is where the view stands, not part of the scenario: one that is not a time the
  // ledger takes (over 2^53 - 1, not a whole number) is left out, as a file's is, and the
  // scenario loads.
  const t = fields.get('t');
  const cursor = t !== undefined && /^\d+$/.test(t) && Number.isSafeInteger(Number(t)) ? Number(t) : undefined;
  return { preset, ops, cursor };
}

// --- JSON export/import: the whole call list, explicit, so other tools can read it.

export const JSON_FORMAT = 'gpu-credit-ledger/scenario@1';

export function toJson({ ops, cursor }) {
  const calls = ops.map(({ expect: _expect, ...call }) => call);
  return JSON.stringify({ format: JSON_FORMAT, cursor, calls }, null, 1);
}

// The arguments of each recorded call, in call order (also the log's display order).
export const CALL_FIELDS = {
  addGrant: ['grantId', 'amount', 'startTime', 'endTime'],
  consume: ['eventId', 'amount', 'timestamp'],
  submit: ['eventId', 'amount', 'timestamp'],
  cancelPending: ['eventId'],
  voidGrant: ['grantId'],
  setGrantEnd: ['grantId', 'endTime'],
  compact: ['horizon'],
  getBalance: ['timestamp'],
};

/** Parses exported JSON. Field values are passed to the ledger as they are, so it judges them. */
export function fromJson(text) {
  let data;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${error.message}`);
  }
  if (data?.format === 'gpu-credit-ledger') return fromSnapshot(data);
  if (!data || typeof data !== 'object' || !Array.isArray(data.calls)) {
    throw new Error('expected an object with a "calls" array (as written by Export), or a ledger snapshot (toJSON)');
  }
  const ops = data.calls.map((call, i) => {
    const fields = CALL_FIELDS[call?.op];
    if (!fields) throw new Error(`calls[${i}].op must be one of ${Object.keys(CALL_FIELDS).join(', ')}`);
    return Object.fromEntries([['op', call.op], ...fields.map((f) => [f, call[f]])]);
  });
  const cursor = Number.isSafeInteger(data.cursor) && data.cursor >= 0 ? data.cursor : undefined;
  return { preset: null, ops, cursor };
}

/**
 * A ledger snapshot (the package's toJSON(), or the service's GET .../ledger) as calls:
 * its grants added in order, then its consumptions consumed in acceptance order, which
 * rebuilds the same ledger. A compacted one (horizon > 0) holds grants whose credit before
 * the horizon is already spent, which no call can add: refused.
 */
function fromSnapshot(doc) {
  if (!Array.isArray(doc.grants) || !Array.isArray(doc.consumptions)) {
    throw new Error('a ledger snapshot needs "grants" and "consumptions" arrays');
  }
  if (doc.horizon !== undefined && doc.horizon !== 0) {
    throw new Error(`this snapshot was compacted (horizon ${doc.horizon}): its past cannot be replayed as calls`);
  }
  const ops = [
    ...doc.grants.map((g) => ({ op: 'addGrant', grantId: g?.grantId, amount: g?.amount, startTime: g?.startTime, endTime: g?.endTime })),
    ...doc.consumptions.map((c) => ({ op: 'consume', eventId: c?.eventId, amount: c?.amount, timestamp: c?.timestamp })),
  ];
  return { preset: null, ops, cursor: undefined, snapshot: doc };
}
