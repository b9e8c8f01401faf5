// The timeline and balance charts. Both share one x scale: time t covers the cell
// [t, t + 1), so a grant valid on [startTime, endTime] spans startTime..endTime + 1,
// exactly where the step curve (step-after from balanceCurve breakpoints) counts it.
import * as Plot from '@observablehq/plot';
import { clipTo, layered } from './layers.js';

export const COLORS = {
  drawn: '#4338ca',
  remaining: '#c7d2fe',
  accepted: '#0f766e',
  rejected: '#dc2626',
  queued: '#d97706',
  curve: '#4338ca',
  selected: '#f59e0b',
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
    // The drawn share is a share of the bar as it shows, not a time: the dark part covers
    // that share of the window's part in view, so a zoomed view shows the same proportion
    // (a split along the whole window put it at a time that meant nothing once zoomed).
    const shownFrom = Math.max(g.startTime, from);
    const shownTo = Math.min(g.endTime + 1, to);
    const row = {
      ...g,
      drawn,
      row: packed ? `lane ${lanes[i]}` : `grant ${g.grantId}`,
      drawnStart: shownFrom,
      drawnEnd: shownFrom + (shownTo - shownFrom) * (drawn / g.amount),
      label: packed ? '' : `${formatNumber(drawn)} of ${formatNumber(g.amount)} drawn`,
    };
    // Packed lanes are too thin for text: the tip names the grant.
    row.place = packed ? null : labelPlace(row, domain, pxPerUnit, row.label.length * CHAR_PX + 10);
    return row;
  });
  const rowNames = packed ? [...new Set(lanes)].sort((a, b) => a - b).map((l) => `lane ${l}`) : rows.map((r) => r.row);
  return { rows, rowNames, packed };
}

/** A grant bar's hover text, made when the pointer is on it. */
const grantTitle = (g) =>
  `${g.grantId}\n${formatNumber(g.amount)} credits, valid t = ${formatNumber(g.startTime)}…${formatNumber(g.endTime)}\ndrawn ${formatNumber(g.drawn)}, left ${formatNumber(g.amount - g.drawn)}\nclick for its burn-down`;

function xAxis(domain, width, options) {
  const tickFormat = tickFormatFor(domain[1]);
  const { left, right } = chartMargin(width);
  const labelPx = tickFormat(domain[1]).length * CHAR_PX + 28;
  const ticks = Math.max(2, Math.min(10, Math.floor((width - left - right) / labelPx)));
  return { domain, grid: true, label: 'time', labelAnchor: 'right', tickFormat, ticks, ...options };
}
const frame = (width) => ({
  width,
  marginLeft: chartMargin(width).left,
  marginRight: chartMargin(width).right,
  style: { fontSize: '11px' },
});

/**
 * Plot's `render` hook for the grant bars (SVG marks): tags each bar with its grant id,
 * so the selection can be outlined. Index order is data order.
 */
const tagGrantBars = (rows) =>
  function (index, scales, values, dimensions, context, next) {
    const g = next(index, scales, values, dimensions, context);
    const rects = g.querySelectorAll('rect');
    for (let i = 0; i < rects.length; i++) rects[i].dataset.grantId = rows[index[i]].grantId;
    return g;
  };

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

/**
 * The grant bars. With marks 'svg' (a ledger of up to 2,000 marks: marksFor in app.js)
 * they are Plot marks; with 'canvas' (a larger one) they are painted under Plot's axes.
 */
function grantsChart(session, domain, width, pxPerUnit, { marks, selected }) {
  const { rows, rowNames, packed } = grantRows(session, domain, pxPerUnit);
  const rowHeight = packed ? Math.max(3, Math.min(8, Math.floor(320 / rowNames.length))) : 26;
  const labels = (at, options) =>
    Plot.text(
      rows.filter((r) => r.place?.at === at),
      { x: (r) => r.place.x, y: 'row', text: 'label', fontSize: 11, fill: 'var(--ink)', className: 'grant-overlay', ...options },
    );
  const svgBars =
    marks === 'svg'
      ? [
          Plot.barX(rows, {
            x1: 'startTime',
            x2: (g) => g.endTime + 1,
            y: 'row',
            fill: (g) => (g.drawn === g.amount ? COLORS.drawn : COLORS.remaining),
            clip: true,
            className: 'grant-bars',
            render: tagGrantBars(rows),
          }),
          Plot.barX(
            rows.filter((g) => g.drawn > 0 && g.drawn < g.amount),
            // Named apart (its group's aria-label), so that the bars ("bar") are one per grant.
            {
              x1: 'drawnStart',
              x2: 'drawnEnd',
              y: 'row',
              fill: COLORS.drawn,
              clip: true,
              className: 'grant-overlay',
              render: (index, scales, values, dimensions, context, next) => {
                const g = next(index, scales, values, dimensions, context);
                g.setAttribute('aria-label', 'drawn part');
                return g;
              },
            },
          ),
        ]
      : [];
  const { left, right } = chartMargin(width);
  const height = 52 + rowHeight * Math.max(rowNames.length, 2);
  const emptyText =
    rows.length === 0 ? (session.grants.size ? 'No grant in this time range' : 'No grants yet: add one, or load a scenario') : null;
  const makeSvg = () =>
    Plot.plot({
      ...frame(width),
      height,
      marginTop: 48,
      marginBottom: 4,
      x: xAxis(domain, width, { axis: 'top' }),
      y: {
        type: 'band',
        domain: rowNames,
        label: null,
        padding: packed ? 0.2 : 0.22,
        tickSize: 0,
        tickFormat: (row) => (packed ? '' : ellipsize(row.slice('grant '.length), width < 520 ? 8 : 11)),
      },
      marks: [
        ...svgBars,
        labels('left-part', { dx: 5, textAnchor: 'start' }),
        labels('drawn-part', { dx: 5, textAnchor: 'start', fill: 'white' }),
        labels('beside', { dx: 5, textAnchor: 'start' }),
        labels('before', { dx: -5, textAnchor: 'end' }),
        emptyText === null ? null : Plot.text([emptyText], { frameAnchor: 'middle', fill: 'var(--muted)', fontSize: 13 }),
      ],
    });
  // Everything the SVG shows: with SVG marks, the marks too (never reused then).
  const key =
    marks === 'svg'
      ? null
      : JSON.stringify([width, domain, rowNames, emptyText, rows.filter((r) => r.place).map((r) => [r.row, r.place, r.label])]);
  const [minX, maxX] = [left, width - right];
  let shownSelected = selected;

  const paint = (ctx, svg) => {
    if (marks === 'svg') return;
    const x = svg.scale('x');
    const y = svg.scale('y');
    const band = y.bandwidth;
    const box = (r) => ({ x1: clamp(x.apply(r.startTime), minX, maxX), x2: clamp(x.apply(r.endTime + 1), minX, maxX), y: y.apply(r.row) });
    // One colour at a time: fewer canvas state changes.
    ctx.fillStyle = COLORS.remaining;
    for (const r of rows) {
      if (r.drawn === r.amount) continue;
      const b = box(r);
      ctx.fillRect(b.x1, b.y, b.x2 - b.x1, band);
    }
    ctx.fillStyle = COLORS.drawn;
    for (const r of rows) {
      if (r.drawn === 0) continue;
      const b = box(r);
      const x2 = r.drawn === r.amount ? b.x2 : clamp(x.apply(r.drawnEnd), minX, maxX);
      ctx.fillRect(b.x1, b.y, x2 - b.x1, band);
    }
    const chosen = rows.find((r) => r.grantId === shownSelected);
    if (chosen) {
      const b = box(chosen);
      ctx.strokeStyle = COLORS.selected;
      ctx.lineWidth = 3;
      ctx.strokeRect(b.x1, b.y, b.x2 - b.x1, band);
    }
  };
  const node = layered('grants', key, makeSvg, paint);
  const { svg } = node;
  const x = svg.scale('x');
  const y = svg.scale('y');

  const byRow = new Map(rowNames.map((name) => [name, []]));
  for (const r of rows) byRow.get(r.row).push(r);
  /** The grant whose bar is at (px, py), in px from the chart's top left. */
  const grantAt = (px, py) => {
    if (px < minX || px > maxX) return null;
    const name = rowNames.find((n) => py >= y.apply(n) && py < y.apply(n) + y.bandwidth);
    const t = x.invert(px);
    return byRow.get(name)?.find((r) => r.startTime <= t && t < r.endTime + 1) ?? null;
  };
  const select = (grantId) => {
    shownSelected = grantId;
    if (marks !== 'svg') node.repaint();
    for (const rect of svg.querySelectorAll('rect[data-grant-id]')) rect.classList.toggle('is-selected', rect.dataset.grantId === grantId);
  };
  // The canvas was painted with the selection; SVG bars get it as a class.
  if (marks === 'svg') select(selected);
  const describe = (px, py) => {
    const g = grantAt(px, py);
    return g ? grantTitle(g) : null;
  };
  Object.assign(node, { grantAt: (px, py) => grantAt(px, py)?.grantId ?? null, describe, select });
  node.dataset.bars = String(rows.length);
  const inView = `${formatNumber(rows.length)} of ${formatNumber(session.grants.size)} grants in view`;
  const caption = packed
    ? `${inView}, packed into ${formatNumber(rowNames.length)} rows (zoom in for one row per grant)`
    : rows.length
      ? inView
      : '';
  return { chart: node, caption };
}

function drawsChart(session, domain, width, pxPerUnit, { marks: mode }) {
  const marks = markers(session, domain, pxPerUnit);
  const rows = session.queued.size > 0 ? [ACCEPTED_ROW, REJECTED_ROW, QUEUED_ROW] : [ACCEPTED_ROW, REJECTED_ROW];
  const [rMin, rMax] = marks.binned ? [1.5, 7] : [3, 8];
  const maxWeight = marks.reduce((max, m) => Math.max(max, m.weight), 1);
  const fillOpacity = marks.binned ? 0.6 : 1;
  const makeSvg = () =>
    Plot.plot({
      ...frame(width),
      height: 8 + 24 * rows.length,
      marginTop: 4,
      marginBottom: 4,
      x: xAxis(domain, width, { axis: null }),
      y: { type: 'point', domain: rows, label: null, tickSize: 0, tickFormat: (row) => row.slice(1) },
      r: { type: 'sqrt', range: [rMin, rMax], domain: [0, maxWeight] },
      marks: [
        mode === 'svg'
          ? Plot.dot(marks, {
              x: 'timestamp',
              y: (m) => MARKER_ROWS[m.status],
              r: 'weight',
              fill: (m) => (m.status === 'accepted' ? COLORS.accepted : 'none'),
              fillOpacity,
              stroke: (m) => COLORS[m.status],
              strokeWidth: 1.5,
              className: 'consumption-markers',
            })
          : null,
      ],
    });
  const key = mode === 'svg' ? null : JSON.stringify([width, domain, rows]);
  // Plot's sqrt scale with this domain and range, without its per-mark setup.
  const radius = (weight) => rMin + (rMax - rMin) * Math.sqrt(weight / maxWeight);
  const { left, right } = chartMargin(width);
  let placed = [];

  const paint = (ctx, svg) => {
    const x = svg.scale('x');
    const y = svg.scale('y');
    placed = marks.map((m) => ({ m, cx: x.apply(m.timestamp), cy: y.apply(MARKER_ROWS[m.status]), r: radius(m.weight) }));
    if (mode === 'svg') return;
    clipTo(ctx, left - rMax, 0, width - right + rMax, ctx.canvas.height);
    ctx.lineWidth = 1.5;
    for (const status of ['accepted', 'rejected', 'queued']) {
      ctx.strokeStyle = COLORS[status];
      ctx.fillStyle = COLORS.accepted;
      for (const p of placed) {
        if (p.m.status !== status) continue;
        ctx.beginPath();
        ctx.arc(p.cx, p.cy, p.r, 0, 2 * Math.PI);
        if (status === 'accepted') {
          ctx.globalAlpha = fillOpacity;
          ctx.fill();
          ctx.globalAlpha = 1;
        }
        ctx.stroke();
      }
    }
  };
  const node = layered('draws', key, makeSvg, paint);
  /** The marker nearest (px, py) within its radius and a little slack. */
  const markerAt = (px, py) => {
    let best = null;
    let bestDistance = Infinity;
    for (const p of placed) {
      const d = Math.hypot(p.cx - px, p.cy - py);
      if (d <= p.r + 3 && d < bestDistance) [best, bestDistance] = [p.m, d];
    }
    return best;
  };
  const describe = (px, py) => {
    const m = markerAt(px, py);
    return m ? markerTitle(session, m, marks.binWidth) : null;
  };
  Object.assign(node, { describe });
  node.dataset.markers = String(marks.length);
  const caption = marks.binned ? `draws grouped per ${formatNumber(marks.binWidth)} time units (zoom in to see each)` : '';
  return { chart: node, caption };
}

function markers(session, [from, to], pxPerUnit) {
  const visible = session.attempts.filter((a) => a.timestamp >= from && a.timestamp < to);
  if (visible.length <= MARKER_LIMIT) {
    return Object.assign(
      visible.map((a) => ({ ...a, weight: a.amount })),
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
  return Object.assign([...bins.values()], { binned: true, binWidth });
}

/** A marker's hover text (one draw, or a bin of them), made when the pointer is on it. */
function markerTitle(session, m, binWidth) {
  if (m.count !== undefined) {
    return `t = ${formatNumber(m.start)}…${formatNumber(m.start + binWidth - 1)}\n${formatNumber(m.count)} ${m.status}, ${formatNumber(m.weight)} credits`;
  }
  const allocations = session.accepted.get(m.eventId)?.allocations ?? [];
  const outcome =
    m.status === 'accepted'
      ? `accepted, funded by ${fundedBy(allocations)}`
      : m.status === 'queued'
        ? 'queued: waiting for credit'
        : 'rejected';
  return `${m.eventId}: ${formatNumber(m.amount)} credits at t = ${formatNumber(m.timestamp)}\n${outcome}`;
}

/**
 * Renders the timeline: grant bars over their windows, then the draws; both share the
 * balance chart's x scale. `options.marks` is 'canvas' or 'svg'; `options.selected` the
 * grant to outline.
 */
export function timelineCharts(session, domain, width, options) {
  const { left, right } = chartMargin(width);
  const pxPerUnit = (width - left - right) / (domain[1] - domain[0]);
  const grants = grantsChart(session, domain, width, pxPerUnit, options);
  const draws = drawsChart(session, domain, width, pxPerUnit, options);
  return { charts: [grants.chart, draws.chart], caption: [grants.caption, draws.caption].filter(Boolean).join('; ') };
}

/** What the balance chart says at time t on hover: the balance and the grants valid then. */
function balanceAt(session, t) {
  const active = [];
  let count = 0;
  for (const g of session.grants.values()) {
    if (g.startTime <= t && t <= g.endTime) {
      count++;
      if (active.length < 6) active.push(g.grantId);
    }
  }
  const valid =
    count === 0
      ? 'no grant valid'
      : `${count} grant${count === 1 ? '' : 's'} valid: ${active.join(', ')}${count > active.length ? ` +${count - active.length} more` : ''}`;
  const horizon = session.ledger.horizon;
  // Before the finality horizon the ledger keeps no balances: that past is final.
  const balance =
    t < horizon ? `final (before the horizon, t = ${formatNumber(horizon)})` : `balance ${formatNumber(session.ledger.getBalance(t))}`;
  return `t = ${formatNumber(t)}\n${balance}\n${valid}`;
}

/**
 * Keeps, per pixel column, the first, lowest, highest and last breakpoint: the step
 * curve drawn through them is the same to the pixel, at a fraction of the path size.
 */
function thinForDrawing(curve, from, pxPerUnit) {
  if (curve.length < 2000) return curve;
  const column = (i) => Math.floor((curve[i][0] - from) * pxPerUnit);
  const out = [];
  for (let i = 0; i < curve.length;) {
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

/** Renders the balance step curve (painted under Plot's axes with marks 'canvas'). */
export function balanceChart(session, domain, width, { marks }) {
  const [from, to] = domain;
  // The ledger answers from the finality horizon on; before it the chart stays empty.
  const curveFrom = Math.max(from, session.ledger.horizon);
  const curveTo = Math.min(to, Number.MAX_SAFE_INTEGER);
  const curve = curveFrom <= curveTo ? session.ledger.balanceCurve(curveFrom, curveTo) : [];
  const last = curve[curve.length - 1];
  if (last && last[0] < to) curve.push([to, last[1]]);
  const { left, right } = chartMargin(width);
  const pxPerUnit = (width - left - right) / (to - from);
  const top = curve.reduce((max, [, b]) => Math.max(max, b), 1);
  const drawn = thinForDrawing(curve, from, pxPerUnit);
  const svgCurve =
    marks === 'svg'
      ? [
          Plot.areaY(drawn, { x: (p) => p[0], y: (p) => p[1], curve: 'step-after', fill: COLORS.curve, fillOpacity: 0.1 }),
          Plot.lineY(drawn, {
            x: (p) => p[0],
            y: (p) => p[1],
            curve: 'step-after',
            stroke: COLORS.curve,
            strokeWidth: 2,
            className: 'balance-curve',
          }),
        ]
      : [];
  const yDomain = [0, top * 1.08];
  const makeSvg = () =>
    Plot.plot({
      ...frame(width),
      height: 210,
      marginTop: 16,
      x: xAxis(domain, width),
      y: { domain: yDomain, grid: true, nice: true, label: 'balance (credits)', tickFormat: tickFormatFor(top) },
      marks: [...svgCurve, Plot.ruleY([0])],
    });
  const key = marks === 'svg' ? null : JSON.stringify([width, domain, yDomain]);
  const paint = (ctx, svg) => {
    if (marks === 'svg' || drawn.length === 0) return;
    const x = svg.scale('x');
    const y = svg.scale('y');
    // Step-after, as Plot's curve: each balance holds until the next breakpoint.
    ctx.beginPath();
    ctx.moveTo(x.apply(drawn[0][0]), y.apply(drawn[0][1]));
    for (let i = 1; i < drawn.length; i++) {
      const px = x.apply(drawn[i][0]);
      ctx.lineTo(px, y.apply(drawn[i - 1][1]));
      ctx.lineTo(px, y.apply(drawn[i][1]));
    }
    ctx.strokeStyle = COLORS.curve;
    ctx.lineWidth = 2;
    ctx.stroke();
    ctx.lineTo(x.apply(drawn[drawn.length - 1][0]), y.apply(0));
    ctx.lineTo(x.apply(drawn[0][0]), y.apply(0));
    ctx.closePath();
    ctx.globalAlpha = 0.1;
    ctx.fillStyle = COLORS.curve;
    ctx.fill();
    ctx.globalAlpha = 1;
  };
  const node = layered('balance', key, makeSvg, paint);
  const x = node.svg.scale('x');
  const [minX, maxX] = [left, width - right];
  Object.assign(node, {
    scale: (name) => node.svg.scale(name),
    describe: (px) => (px < minX || px > maxX ? null : balanceAt(session, clamp(Math.floor(x.invert(px)), from, to - 1))),
  });
  node.dataset.points = String(drawn.length);
  return node;
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
      Plot.lineY(curve, {
        x: (p) => p[0],
        y: (p) => p[1],
        curve: 'step-after',
        stroke: COLORS.curve,
        strokeWidth: 2,
        className: 'burn-curve',
      }),
      Plot.dot(dots, { x: 'time', y: 'left', r: 3, fill: COLORS.accepted, className: 'burn-draws' }),
      Plot.ruleY([0]),
      Plot.tip(dots, Plot.pointerX({ x: 'time', y: 'left', title: 'title' })),
    ],
  });
}
