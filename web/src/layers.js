// A canvas under a Plot SVG: the many marks (grant bars, draw markers, the balance
// curve) are painted on the canvas, while Plot keeps the axes, labels and scales.
// Thousands of SVG elements cost tens of milliseconds per redraw to build and lay
// out; a canvas repaint of the same marks costs about one. And when a call changes
// only the marks (one more consumption, the same view), the axes are kept as they are:
// each chart's SVG is reused while its key, everything the SVG depends on, is unchanged.

/** The last layered chart of each kind, with the key its SVG was made from. */
const last = new Map();

/**
 * A chart: Plot's SVG (from `makeSvg`, or the previous one of this kind when `key` is
 * the same string) over a canvas of the same size that `paint(ctx, svg)` draws on, in
 * CSS pixels (the canvas is scaled for the screen's pixel density). The returned
 * element has `svg`, `reused` and `repaint()`, to repaint without a new plot.
 * @param {string} kind  one per chart on the page
 * @param {string | null} key  null: always a new SVG
 * @param {() => SVGSVGElement & { scale: Function }} makeSvg
 * @param {(ctx: CanvasRenderingContext2D, svg: any) => void} paint
 */
export function layered(kind, key, makeSvg, paint) {
  const previous = last.get(kind);
  if (key !== null && previous?.key === key) {
    previous.node.paint = paint;
    previous.node.reused = true;
    previous.node.repaint();
    return previous.node;
  }
  const svg = makeSvg();
  const width = Number(svg.getAttribute('width'));
  const height = Number(svg.getAttribute('height'));
  const node = document.createElement('div');
  node.className = 'layered';
  node.style.width = `${width}px`;
  node.style.height = `${height}px`;
  const canvas = document.createElement('canvas');
  const ratio = Math.min(2, window.devicePixelRatio || 1);
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  node.append(canvas, svg);
  Object.assign(node, {
    svg,
    paint,
    reused: false,
    repaint() {
      const ctx = canvas.getContext('2d');
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, width, height);
      node.paint(ctx, svg);
    },
  });
  node.repaint();
  last.set(kind, { key, node });
  return node;
}

/** Clips drawing to a rectangle (the plot area), as Plot's `clip: true` does. */
export function clipTo(ctx, left, top, right, bottom) {
  ctx.beginPath();
  ctx.rect(left, top, right - left, bottom - top);
  ctx.clip();
}
