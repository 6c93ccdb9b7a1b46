// plot.js: a small canvas line plot for long metric series. Each series
// is drawn twice: its raw points faint, its smoothed curve solid. Long
// series are reduced to one min/max pair (raw) and one value (smoothed)
// per pixel column before drawing, so a 10,000-step run draws as fast as
// a short one.
'use strict';

const Plot = (() => {
  const M = { left: 50, right: 10, top: 8, bottom: 20 };

  // ema is the debiased exponential moving average of ys with weight w,
  // skipping NaN (the result is NaN there too).
  function ema(ys, w) {
    const out = new Float64Array(ys.length);
    let acc = 0, n = 0;
    for (let i = 0; i < ys.length; i++) {
      const y = ys[i];
      if (Number.isNaN(y)) { out[i] = NaN; continue; }
      acc = acc * w + (1 - w) * y;
      n++;
      out[i] = w === 0 ? y : acc / (1 - Math.pow(w, n));
    }
    return out;
  }

  function fmt(v) {
    if (!Number.isFinite(v)) return '–';
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2);
    if (a >= 100) return v.toFixed(0);
    if (a >= 10) return v.toFixed(1);
    return v.toFixed(3);
  }

  function ticks(lo, hi, n) {
    const span = hi - lo;
    if (!(span > 0)) return [lo];
    const raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map(m => m * mag).find(s => s >= raw) || raw;
    const out = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Math.abs(t) < step * 1e-9 ? 0 : t);
    return out;
  }

  // extent returns [lo, hi] over the finite values of the arrays.
  function extent(arrays) {
    let lo = Infinity, hi = -Infinity;
    for (const a of arrays) for (let i = 0; i < a.length; i++) {
      const v = a[i];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    return [lo, hi];
  }

  // draw renders series [{color, xs, ys, sm}] on canvas; raw draws ys.
  function draw(canvas, series, raw) {
    const dpr = window.devicePixelRatio || 1;
    const W = canvas.clientWidth, H = canvas.clientHeight;
    if (W === 0 || H === 0) return false;
    if (canvas.width !== Math.round(W * dpr) || canvas.height !== Math.round(H * dpr)) {
      canvas.width = Math.round(W * dpr);
      canvas.height = Math.round(H * dpr);
    }
    const g = canvas.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, W, H);
    const live = series.filter(s => s.xs.length > 0);
    const [x0, x1] = extent(live.map(s => s.xs));
    let [lo, hi] = extent(live.map(s => raw ? s.ys : s.sm));
    if (!Number.isFinite(lo)) [lo, hi] = [0, 1];
    if (lo === hi) { const d = Math.abs(lo) * 0.1 || 1; lo -= d; hi += d; }
    const pad = (hi - lo) * 0.05; lo -= pad; hi += pad;
    const pw = W - M.left - M.right, ph = H - M.top - M.bottom;
    const xspan = x1 > x0 ? x1 - x0 : 1;
    const px = x => M.left + (x - x0) / xspan * pw;
    const py = y => M.top + (hi - y) / (hi - lo) * ph;
    canvas._layout = { x0, xspan, pw, left: M.left };

    g.font = '10px system-ui, sans-serif';
    g.strokeStyle = '#eceef2'; g.fillStyle = '#687083'; g.lineWidth = 1;
    g.textAlign = 'right'; g.textBaseline = 'middle';
    for (const t of ticks(lo, hi, 4)) {
      const y = Math.round(py(t)) + 0.5;
      g.beginPath(); g.moveTo(M.left, y); g.lineTo(W - M.right, y); g.stroke();
      g.fillText(fmt(t), M.left - 4, y);
    }
    g.textAlign = 'center'; g.textBaseline = 'top';
    for (const t of ticks(x0, x0 + xspan, Math.max(2, Math.floor(pw / 70)))) {
      g.fillText(t >= 1e4 ? (t / 1000) + 'k' : String(t), px(t), H - M.bottom + 5);
    }
    g.strokeStyle = '#c9ced9';
    g.beginPath(); g.moveTo(M.left + 0.5, M.top); g.lineTo(M.left + 0.5, H - M.bottom + 0.5); g.lineTo(W - M.right, H - M.bottom + 0.5); g.stroke();

    g.save();
    g.beginPath(); g.rect(M.left, M.top - 1, pw + 1, ph + 2); g.clip();
    for (const s of live) {
      const few = count(s.ys) <= 60;
      if (raw) {
        g.globalAlpha = few ? 0.45 : 0.22;
        line(g, s.xs, s.ys, px, py, pw, s.color, 1, true);
      }
      g.globalAlpha = 1;
      line(g, s.xs, s.sm, px, py, pw, s.color, 1.6, false);
      if (few) dots(g, s.xs, raw ? s.ys : s.sm, px, py, s.color);
    }
    g.restore();
    return true;
  }

  function count(ys) {
    let n = 0;
    for (let i = 0; i < ys.length; i++) if (!Number.isNaN(ys[i])) n++;
    return n;
  }

  // line draws the finite points of ys, one min/max (envelope) or one
  // mean value per pixel column when there are more points than columns.
  function line(g, xs, ys, px, py, pw, color, width, envelope) {
    g.strokeStyle = color; g.lineWidth = width; g.lineJoin = 'round';
    g.beginPath();
    const dense = xs.length > pw * 1.5;
    let col = -1, mn = 0, mx = 0, sum = 0, k = 0, started = false;
    const flush = () => {
      if (k === 0) return;
      const x = col + 0.5;
      if (envelope) {
        if (!started) { g.moveTo(x, py(mx)); started = true; } else g.lineTo(x, py(mx));
        g.lineTo(x, py(mn));
      } else {
        const y = py(sum / k);
        if (!started) { g.moveTo(x, y); started = true; } else g.lineTo(x, y);
      }
    };
    for (let i = 0; i < xs.length; i++) {
      const y = ys[i];
      if (Number.isNaN(y)) continue;
      if (!dense) {
        if (!started) { g.moveTo(px(xs[i]), py(y)); started = true; } else g.lineTo(px(xs[i]), py(y));
        continue;
      }
      const c = Math.floor(px(xs[i]));
      if (c !== col) { flush(); col = c; mn = mx = y; sum = 0; k = 0; }
      if (y < mn) mn = y;
      if (y > mx) mx = y;
      sum += y; k++;
    }
    if (dense) flush();
    g.stroke();
  }

  function dots(g, xs, ys, px, py, color) {
    g.fillStyle = color;
    for (let i = 0; i < xs.length; i++) {
      if (Number.isNaN(ys[i])) continue;
      g.beginPath(); g.arc(px(xs[i]), py(ys[i]), 2.2, 0, 2 * Math.PI); g.fill();
    }
  }

  // nearest returns the index in sorted xs closest to x.
  function nearest(xs, x) {
    let lo = 0, hi = xs.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (xs[mid] < x) lo = mid; else hi = mid;
    }
    return Math.abs(xs[lo] - x) <= Math.abs(xs[hi] - x) ? lo : hi;
  }

  return { draw, ema, fmt, nearest, count };
})();
