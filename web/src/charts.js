// The timeline and balance charts. Both share one x scale: time t covers the cell
// [t, t + 1), so a grant valid on [startTime, endTime] spans startTime..endTime + 1,
// exactly where the step curve (step-after from balanceCurve breakpoints) counts it.
import * as Plot from '@observablehq/plot';

export const COLORS = {
  drawn: '#4338ca',
  remaining: '#c7d2fe',
  accepted: '#0f766e',
  rejected: '#dc2626',
  queued: '#d97706',
  curve: '#4338ca',
};

/** Up to this many grants in view get a labelled row each; more are packed into lanes. */
const ROW_LIMIT = 24;
/** Above this many consumptions in view, markers are aggregated into bins a few pixels wide. */
const MARKER_LIMIT = 1500;
/** Left margin holds row labels (ids up to 11 characters); narrower on small screens. */
export const chartMargin = (width) => ({ left: width < 520 ? 64 : 86, right: 14 });
const CHAR_PX = 6.4;
const ACCEPTED_ROW = '\u0000accepted';
const REJECTED_ROW = '\u0000rejected';
const QUEUED_ROW = '\u0000queued';
const MARKER_ROWS = { accepted: ACCEPTED_ROW, rejected: REJECTED_ROW, queued: QUEUED_ROW };

const fmt = new Intl.NumberFormat('en-US');
/** 1234567 -> "1,234,567". Hand-rolled for integers: charts format thousands of labels per redraw, Intl is 5x slower. */
export function formatNumber(n) {
  if (!Number.isInteger(n)) return fmt.format(n);
  const digits = String(Math.abs(n));
  let i = digits.length % 3 || 3;
  let out = digits.slice(0, i);
  for (; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 3 });
/** Axis ticks: exact up to a million, compact beyond (tips and readouts stay exact). */
const tickFormatFor = (max) => (max >= 1e6 ? (n) => compact.format(n) : formatNumber);
const ellipsize = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const fundedBy = (allocations) => allocations.map((a) => `${a.grantId} (${formatNumber(a.amount)})`).join(', ');

/** [from, to) covering everything in the session, with a little room on both sides. */
export function fullDomain(session) {
  const extent = session.extent();
  if (!extent) return [0, 20];
  const [lo, hi] = extent;
  const pad = Math.max(1, Math.round((hi + 1 - lo) * 0.04));
  // The last time there can be is 2^53 - 1, whose cell ends at 2^53.
  return [Math.max(0, lo - pad), Math.min(hi + 1 + pad, 2 ** 53)];
}

function packLanes(grants) {
  const laneEnds = [];
  return grants.map((g) => {
    let lane = laneEnds.findIndex((end) => end <= g.startTime);
    if (lane < 0) lane = laneEnds.push(0) - 1;
    laneEnds[lane] = g.endTime + 1;
    return lane;
  });
}

/** Where a bar's label fits: on the light (left) part, on the dark (drawn) part, or beside the bar. */
function labelPlace(g, [from, to], pxPerUnit, labelPx) {
  const x1 = Math.max(g.startTime, from);
  const x2 = Math.min(g.endTime + 1, to);
  const drawnEnd = Math.min(Math.max(g.drawnEnd, from), to);
  if ((x2 - drawnEnd) * pxPerUnit >= labelPx) return { at: 'left-part', x: drawnEnd };
  if ((drawnEnd - x1) * pxPerUnit >= labelPx) return { at: 'drawn-part', x: x1 };
  if ((to - x2) * pxPerUnit >= labelPx) return { at: 'beside', x: x2 };
  if ((x1 - from) * pxPerUnit >= labelPx) return { at: 'before', x: x1 };
  return null;
}

function grantRows(session, domain, pxPerUnit) {
  const [from, to] = domain;
  const visible = [...session.grants.values()]
    .filter((g) => g.startTime < to && g.endTime + 1 > from)
    .sort((a, b) => a.startTime - b.startTime || a.endTime - b.endTime || (a.grantId < b.grantId ? -1 : 1));
  const packed = visible.length > ROW_LIMIT;
  const lanes = packed ? packLanes(visible) : visible.map((_, i) => i);
  const rows = visible.map((g, i) => {
    const drawn = session.drawn.get(g.grantId) ?? 0;
    const row = {
      ...g,
      drawn,
      row: packed ? `lane ${lanes[i]}` : `grant ${g.grantId}`,
      drawnEnd: g.startTime + (g.endTime + 1 - g.startTime) * (drawn / g.amount),
      label: `${formatNumber(drawn)} of ${formatNumber(g.amount)} drawn`,
      title: `${g.grantId}\n${formatNumber(g.amount)} credits, valid t = ${formatNumber(g.startTime)}…${formatNumber(g.endTime)}\ndrawn ${formatNumber(drawn)}, left ${formatNumber(g.amount - drawn)}\nclick for its burn-down`,
    };
    // Packed lanes are too thin for text: the tip names the grant.
    row.place = packed ? null : labelPlace(row, domain, pxPerUnit, row.label.length * CHAR_PX + 10);
    return row;
  });
  const rowNames = packed ? [...new Set(lanes)].sort((a, b) => a - b).map((l) => `lane ${l}`) : rows.map((r) => r.row);
  return { rows, rowNames, packed };
}

function xAxis(domain, width, options) {
  const tickFormat = tickFormatFor(domain[1]);
  const { left, right } = chartMargin(width);
  const labelPx = tickFormat(domain[1]).length * CHAR_PX + 28;
  const ticks = Math.max(2, Math.min(10, Math.floor((width - left - right) / labelPx)));
  return { domain, grid: true, label: 'time', labelAnchor: 'right', tickFormat, ticks, ...options };
}
const frame = (width) => ({ width, marginLeft: chartMargin(width).left, marginRight: chartMargin(width).right, style: { fontSize: '11px' } });

/**
 * Plot's `render` hook for the grant bars: tags each bar with its grant id, so a click
 * (or the e2e test) can tell which grant it is. Index order is data order.
 */
const tagGrantBars = (rows) =>
  function (index, scales, values, dimensions, context, next) {
    const g = next(index, scales, values, dimensions, context);
    const rects = g.querySelectorAll('rect');
    for (let i = 0; i < rects.length; i++) rects[i].dataset.grantId = rows[index[i]].grantId;
    return g;
  };

function grantsChart(session, domain, width, pxPerUnit) {
  const { rows, rowNames, packed } = grantRows(session, domain, pxPerUnit);
  const rowHeight = packed ? Math.max(3, Math.min(8, Math.floor(320 / rowNames.length))) : 26;
  const labels = (at, options) =>
    Plot.text(
      rows.filter((r) => r.place?.at === at),
      { x: (r) => r.place.x, y: 'row', text: 'label', fontSize: 11, fill: 'var(--ink)', className: 'grant-overlay', ...options },
    );
  const chart = Plot.plot({
    ...frame(width),
    height: 52 + rowHeight * Math.max(rowNames.length, 2),
    marginTop: 48,
    marginBottom: 4,
    x: xAxis(domain, width, { axis: 'top' }),
    y: {
      domain: rowNames,
      label: null,
      padding: packed ? 0.2 : 0.22,
      tickSize: 0,
      tickFormat: (row) => (packed ? '' : ellipsize(row.slice('grant '.length), width < 520 ? 8 : 11)),
    },
    marks: [
      // One bar per grant; the drawn part is laid over it only when the grant is partly drawn.
      Plot.barX(rows, {
        x1: 'startTime',
        x2: (g) => g.endTime + 1,
        y: 'row',
        fill: (g) => (g.drawn === g.amount ? COLORS.drawn : COLORS.remaining),
        clip: true,
        title: 'title',
        tip: true,
        className: 'grant-bars',
        render: tagGrantBars(rows),
      }),
      Plot.barX(
        rows.filter((g) => g.drawn > 0 && g.drawn < g.amount),
        { x1: 'startTime', x2: 'drawnEnd', y: 'row', fill: COLORS.drawn, clip: true, className: 'grant-overlay' },
      ),
      labels('left-part', { dx: 5, textAnchor: 'start' }),
      labels('drawn-part', { dx: 5, textAnchor: 'start', fill: 'white' }),
      labels('beside', { dx: 5, textAnchor: 'start' }),
      labels('before', { dx: -5, textAnchor: 'end' }),
      rows.length === 0
        ? Plot.text([session.grants.size ? 'No grant in this time range' : 'No grants yet: add one, or load a scenario'], {
            frameAnchor: 'middle',
            fill: 'var(--muted)',
            fontSize: 13,
          })
        : null,
    ],
  });
  const inView = `${formatNumber(rows.length)} of ${formatNumber(session.grants.size)} grants in view`;
  const caption = packed ? `${inView}, packed into ${formatNumber(rowNames.length)} rows (zoom in for one row per grant)` : rows.length ? inView : '';
  return { chart, caption };
}

function drawsChart(session, domain, width, pxPerUnit) {
  const marks = markers(session, domain, pxPerUnit);
  const rows = session.queued.size > 0 ? [ACCEPTED_ROW, REJECTED_ROW, QUEUED_ROW] : [ACCEPTED_ROW, REJECTED_ROW];
  const chart = Plot.plot({
    ...frame(width),
    height: 8 + 24 * rows.length,
    marginTop: 4,
    marginBottom: 4,
    x: xAxis(domain, width, { axis: null }),
    y: { domain: rows, label: null, tickSize: 0, tickFormat: (row) => row.slice(1) },
    r: { type: 'sqrt', range: marks.binned ? [1.5, 7] : [3, 8], domain: [0, marks.reduce((max, m) => Math.max(max, m.weight), 1)] },
    marks: [
      Plot.dot(marks, {
        x: 'timestamp',
        y: (m) => MARKER_ROWS[m.status],
        r: 'weight',
        fill: (m) => (m.status === 'accepted' ? COLORS.accepted : 'none'),
        fillOpacity: marks.binned ? 0.6 : 1,
        stroke: (m) => COLORS[m.status],
        strokeWidth: 1.5,
        className: 'consumption-markers',
        title: 'title',
        tip: true,
      }),
    ],
  });
  const caption = marks.binned ? `draws grouped per ${formatNumber(marks.binWidth)} time units (zoom in to see each)` : '';
  return { chart, caption };
}

function markers(session, [from, to], pxPerUnit) {
  const visible = session.attempts.filter((a) => a.timestamp >= from && a.timestamp < to);
  if (visible.length <= MARKER_LIMIT) {
    return Object.assign(
      visible.map((a) => {
        const allocations = session.accepted.get(a.eventId)?.allocations;
        const outcome =
          a.status === 'accepted' ? `accepted, funded by ${fundedBy(allocations ?? [])}` : a.status === 'queued' ? 'queued: waiting for credit' : 'rejected';
        return { ...a, weight: a.amount, title: `${a.eventId}: ${formatNumber(a.amount)} credits at t = ${formatNumber(a.timestamp)}\n${outcome}` };
      }),
      { binned: false },
    );
  }
  const binWidth = Math.max(1, Math.ceil(5 / pxPerUnit));
  const bins = new Map();
  for (const a of visible) {
    const start = from + Math.floor((a.timestamp - from) / binWidth) * binWidth;
    const key = `${a.status}:${start}`;
    let bin = bins.get(key);
    if (!bin) bins.set(key, (bin = { status: a.status, start, timestamp: start + binWidth / 2, count: 0, weight: 0 }));
    bin.count += 1;
    bin.weight += a.amount;
  }
  const data = [...bins.values()].map((b) => ({
    ...b,
    title: `t = ${formatNumber(b.start)}…${formatNumber(b.start + binWidth - 1)}\n${formatNumber(b.count)} ${b.status}, ${formatNumber(b.weight)} credits`,
  }));
  return Object.assign(data, { binned: true, binWidth });
}

/** Renders the timeline: grant bars over their windows, then the draws; both Plot SVGs share the x scale. */
export function timelineCharts(session, domain, width) {
  const { left, right } = chartMargin(width);
  const pxPerUnit = (width - left - right) / (domain[1] - domain[0]);
  const grants = grantsChart(session, domain, width, pxPerUnit);
  const draws = drawsChart(session, domain, width, pxPerUnit);
  return { charts: [grants.chart, draws.chart], caption: [grants.caption, draws.caption].filter(Boolean).join('; ') };
}

/**
 * Hover targets for the balance chart. The view is cut wherever the balance or the
 * set of valid grants changes, so each piece has one balance and one set of grants;
 * a pointer can pick one piece per pixel column, so only the first piece starting
 * in each column gets a target (at both of its ends), with its exact values.
 */
function hoverTargets(session, curve, [from, to], pxPerUnit) {
  const starts = new Map();
  const ends = new Map();
  const cuts = curve.map(([t]) => t);
  const at = (map, t, id) => (map.get(t) ?? map.set(t, []).get(t)).push(id);
  for (const g of session.grants.values()) {
    if (g.startTime < to && g.endTime + 1 > from) {
      const start = Math.max(g.startTime, from);
      at(starts, start, g.grantId);
      cuts.push(start);
      if (g.endTime + 1 < to) {
        at(ends, g.endTime + 1, g.grantId);
        cuts.push(g.endTime + 1);
      }
    }
  }
  const times = Float64Array.from(cuts).sort();
  const active = new Set();
  const targets = [];
  let k = 0;
  let lastColumn = -Infinity;
  for (let i = 0; i < times.length; i++) {
    const t = times[i];
    if (i > 0 && times[i - 1] === t) continue;
    for (const id of ends.get(t) ?? []) active.delete(id);
    for (const id of starts.get(t) ?? []) active.add(id);
    while (k + 1 < curve.length && curve[k + 1][0] <= t) k++;
    const column = Math.floor((t - from) * pxPerUnit);
    if (column === lastColumn) continue;
    lastColumn = column;
    let next = i + 1;
    while (next < times.length && times[next] === t) next++;
    const last = (next < times.length ? times[next] : to) - 1;
    const balance = curve[k][1];
    const span = last > t ? `t = ${formatNumber(t)}…${formatNumber(last)}` : `t = ${formatNumber(t)}`;
    const title = `${span}\nbalance ${formatNumber(balance)}\n${activeText(active)}`;
    targets.push({ x: t, balance, title });
    if (last > t) targets.push({ x: last, balance, title });
  }
  return targets;
}

function activeText(active) {
  if (active.size === 0) return 'no grant valid';
  const ids = [];
  for (const id of active) {
    if (ids.length === 6) break;
    ids.push(id);
  }
  const more = active.size > ids.length ? ` +${active.size - ids.length} more` : '';
  return `${active.size} grant${active.size === 1 ? '' : 's'} valid: ${ids.join(', ')}${more}`;
}

/**
 * Keeps, per pixel column, the first, lowest, highest and last breakpoint: the step
 * curve drawn through them is the same to the pixel, at a fraction of the path size.
 */
function thinForDrawing(curve, from, pxPerUnit) {
  if (curve.length < 2000) return curve;
  const column = (i) => Math.floor((curve[i][0] - from) * pxPerUnit);
  const out = [];
  for (let i = 0; i < curve.length; ) {
    const c = column(i);
    let last = i;
    let low = i;
    let high = i;
    while (last + 1 < curve.length && column(last + 1) === c) {
      last++;
      if (curve[last][1] < curve[low][1]) low = last;
      if (curve[last][1] > curve[high][1]) high = last;
    }
    for (const k of [...new Set([i, low, high, last])].sort((a, b) => a - b)) out.push(curve[k]);
    i = last + 1;
  }
  return out;
}

/** Renders the balance step curve; returns the Plot SVG. */
export function balanceChart(session, domain, width) {
  const [from, to] = domain;
  const curve = session.ledger.balanceCurve(from, Math.min(to, Number.MAX_SAFE_INTEGER));
  const last = curve[curve.length - 1];
  if (last[0] < to) curve.push([to, last[1]]);
  const { left, right } = chartMargin(width);
  const pxPerUnit = (width - left - right) / (to - from);
  const tips = hoverTargets(session, curve, domain, pxPerUnit);
  const top = curve.reduce((max, [, b]) => Math.max(max, b), 1);
  const drawn = thinForDrawing(curve, from, pxPerUnit);
  return Plot.plot({
    ...frame(width),
    height: 210,
    marginTop: 16,
    x: xAxis(domain, width),
    y: { domain: [0, top * 1.08], grid: true, nice: true, label: 'balance (credits)', tickFormat: tickFormatFor(top) },
    marks: [
      Plot.areaY(drawn, { x: (p) => p[0], y: (p) => p[1], curve: 'step-after', fill: COLORS.curve, fillOpacity: 0.1 }),
      Plot.lineY(drawn, { x: (p) => p[0], y: (p) => p[1], curve: 'step-after', stroke: COLORS.curve, strokeWidth: 2, className: 'balance-curve' }),
      Plot.ruleY([0]),
      Plot.dot(tips, Plot.pointerX({ x: 'x', y: 'balance', r: 4, fill: COLORS.curve })),
      Plot.tip(tips, Plot.pointerX({ x: 'x', y: 'balance', title: 'title' })),
    ],
  });
}

/**
 * One grant's remaining credit over its window (from `burnDown`), as a step curve on the
 * same cell convention as the balance chart: the window [startTime, endTime] spans
 * startTime..endTime + 1. A dot marks each draw time, with its draws in the tip.
 */
export function burnDownChart(burn, width) {
  const { startTime, endTime, amount, remaining, draws } = burn;
  const end = endTime + 1;
  const curve = [...remaining, [end, remaining[remaining.length - 1][1]]];
  const after = new Map(remaining);
  const byTime = new Map();
  for (const d of draws) (byTime.get(d.timestamp) ?? byTime.set(d.timestamp, []).get(d.timestamp)).push(d);
  const dots = [...byTime].map(([time, list]) => {
    const shown = list.slice(0, 5).map((d) => `${d.eventId}: ${formatNumber(d.amount)}`);
    if (list.length > 5) shown.push(`+${list.length - 5} more`);
    return { time, left: after.get(time), title: `t = ${formatNumber(time)}\n${shown.join('\n')}\n${formatNumber(after.get(time))} left` };
  });
  const left = width < 520 ? 48 : 60;
  const right = 24;
  const tickFormat = tickFormatFor(end);
  const ticks = Math.max(2, Math.min(8, Math.floor((width - left - right) / (tickFormat(end).length * CHAR_PX + 36))));
  return Plot.plot({
    width,
    height: 180,
    marginLeft: left,
    marginRight: right,
    marginTop: 24,
    style: { fontSize: '11px' },
    x: { domain: [startTime, end], label: 'time', labelAnchor: 'right', grid: true, tickFormat, ticks },
    y: { domain: [0, amount], label: 'remaining (credits)', grid: true, nice: true, tickFormat: tickFormatFor(amount) },
    marks: [
      Plot.areaY(curve, { x: (p) => p[0], y: (p) => p[1], curve: 'step-after', fill: COLORS.curve, fillOpacity: 0.1 }),
      Plot.lineY(curve, { x: (p) => p[0], y: (p) => p[1], curve: 'step-after', stroke: COLORS.curve, strokeWidth: 2, className: 'burn-curve' }),
      Plot.dot(dots, { x: 'time', y: 'left', r: 3, fill: COLORS.accepted, className: 'burn-draws' }),
      Plot.ruleY([0]),
      Plot.tip(dots, Plot.pointerX({ x: 'time', y: 'left', title: 'title' })),
    ],
  });
}
