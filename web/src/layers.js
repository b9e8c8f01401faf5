// A canvas under a Plot SVG: the many marks (grant bars, draw markers, the balance
// curve) are painted on the canvas, while Plot keeps the axes, labels and scales.
// Thousands of SVG elements cost tens of milliseconds per redraw to build and lay
// out; a canvas repaint of the same marks costs about one.

/**
 * Wraps a Plot SVG with a canvas of the same size underneath. `paint(ctx)` draws in
 * CSS pixels (the canvas is scaled for the screen's pixel density); it is kept on the
 * wrapper so the marks can be repainted (a new selection) without a new plot.
 * @param {SVGSVGElement} svg
 * @param {(ctx: CanvasRenderingContext2D) => void} paint
 */
export function underCanvas(svg, paint) {
  const width = Number(svg.getAttribute('width'));
  const height = Number(svg.getAttribute('height'));
  const wrapper = document.createElement('div');
  wrapper.className = 'layered';
  wrapper.style.width = `${width}px`;
  wrapper.style.height = `${height}px`;
  const canvas = document.createElement('canvas');
  const ratio = Math.min(2, window.devicePixelRatio || 1);
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  wrapper.append(canvas, svg);
  const repaint = () => {
    const ctx = canvas.getContext('2d');
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    paint(ctx);
  };
  repaint();
  return Object.assign(wrapper, { repaint });
}

/** Clips drawing to the plot area (between the margins), as Plot's `clip: true` does. */
export function clipTo(ctx, left, top, right, bottom) {
  ctx.beginPath();
  ctx.rect(left, top, right - left, bottom - top);
  ctx.clip();
}
