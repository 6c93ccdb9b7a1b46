// app.js: the curves view, the summary and the config tables. It loads
// metrics.jsonl through /api/metrics by byte offset and keeps following
// it while the run trains.
'use strict';

const COLORS = ['#2457c5', '#d1432f', '#1c8a4a', '#e08a00', '#7c4dcc', '#0f9aa8', '#b8327f', '#6b6f2a'];
const GROUPS = ['reward', 'eval', 'rollout', 'mismatch', 'loss', 'clip', 'grad', 'timing', 'throughput', 'tools'];
const POLL_MS = 2000;

const View = {
  runs: [],
  smoothing: 0.6,
  raw: true,
  filter: '',
  charts: new Map(), // metric -> {el, canvas, last, key, cache}
  dirty: new Set(),
  firstPaintMs: null,
  allDrawnMs: null,
  loaded: false,
  tab: 'curves',
};
window.artistView = View;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

async function getJSON(url) {
  const r = await fetch(url, { cache: 'no-store' });
  if (!r.ok) {
    const err = new Error(url + ': ' + r.status);
    err.status = r.status;
    throw err;
  }
  return r.json();
}

function groupOf(key) {
  const i = key.indexOf('/');
  return i < 0 ? 'other' : key.slice(0, i);
}

// appendMetrics adds one /api/metrics answer to a run's columns; it
// returns whether anything changed.
function appendMetrics(run, m) {
  if (m.reset) { run.steps = []; run.series = {}; run.version++; }
  run.offset = m.offset; run.check = m.check;
  const n = m.steps.length;
  if (n === 0) return m.reset;
  run.version++;
  const before = run.steps.length;
  for (const s of m.steps) run.steps.push(s);
  for (const [k, vals] of Object.entries(m.series)) {
    let col = run.series[k];
    if (!col) { col = run.series[k] = new Array(before).fill(NaN); }
    for (const v of vals) col.push(v === null ? NaN : v);
  }
  for (const col of Object.values(run.series)) while (col.length < run.steps.length) col.push(NaN);
  return true;
}

async function fetchMetrics(run, untilDone) {
  let changed = false;
  for (;;) {
    const m = await getJSON(`api/metrics?run=${run.id}&offset=${run.offset}&check=${encodeURIComponent(run.check)}`);
    const c = appendMetrics(run, m);
    changed = changed || c;
    if (!untilDone || m.steps.length === 0) return changed;
  }
}

function allKeys() {
  const keys = new Set();
  for (const r of View.runs) for (const k of Object.keys(r.series)) keys.add(k);
  return [...keys].sort();
}

function groupRank(g) {
  const i = GROUPS.indexOf(g);
  return i < 0 ? GROUPS.length + (g === 'other' ? 1 : 0) : i;
}

// layoutCharts builds the group sections and one card per metric,
// keeping the cards that exist.
function layoutCharts() {
  const keys = allKeys();
  const root = document.getElementById('groups');
  if (root.childElementCount > 0 && keys.length === View.charts.size && keys.every(k => View.charts.has(k))) return;
  const byGroup = new Map();
  for (const k of keys) {
    const g = groupOf(k);
    if (!byGroup.has(g)) byGroup.set(g, []);
    byGroup.get(g).push(k);
    if (!View.charts.has(k)) View.charts.set(k, makeChart(k));
  }
  root.replaceChildren();
  const groups = [...byGroup.keys()].sort((a, b) => groupRank(a) - groupRank(b) || a.localeCompare(b));
  if (groups.length === 0) root.append(el('div', 'empty', 'no metrics yet: metrics.jsonl is empty or missing'));
  for (const g of groups) {
    const sec = el('section', 'group');
    sec.dataset.group = g;
    const h = el('h2', '', g);
    h.append(el('span', 'n', String(byGroup.get(g).length)));
    h.addEventListener('click', () => { sec.classList.toggle('collapsed'); schedule(); });
    const grid = el('div', 'charts');
    for (const k of byGroup.get(g)) grid.append(View.charts.get(k).el);
    sec.append(h, grid);
    root.append(sec);
  }
  applyFilter();
  for (const k of keys) View.dirty.add(k);
}

function makeChart(key) {
  const card = el('div', 'chart');
  card.dataset.metric = key;
  const head = el('div', 'chart-head');
  const last = el('span', 'last');
  head.append(el('span', 'title', key), last);
  const plot = el('div', 'plot');
  const canvas = el('canvas');
  const hover = el('div', 'hover'), tip = el('div', 'tip');
  plot.append(canvas, hover, tip);
  card.append(head, plot);
  card.title = key;
  const c = { key, el: card, canvas, last, hover, tip, cache: null };
  canvas.addEventListener('mousemove', e => showTip(c, e));
  canvas.addEventListener('mouseleave', () => { hover.style.display = 'none'; tip.style.display = 'none'; });
  return c;
}

// seriesOf returns the chart's per-run series, the smoothed values
// cached until the data or the smoothing change.
function seriesOf(c) {
  const w = View.smoothing;
  const lens = View.runs.map(r => r.version).join(',');
  if (c.cache && c.cache.w === w && c.cache.lens === lens) return c.cache.series;
  const series = View.runs.map(r => {
    const ys = r.series[c.key] || [];
    return { color: r.color, xs: ys.length ? r.steps : [], ys, sm: Plot.ema(ys, w), run: r };
  });
  c.cache = { w, lens, series };
  return series;
}

// lastValue is the header's figure for one run: its last value as
// logged, then the smoothed curve's value there when smoothing moves it.
function lastValue(s) {
  for (let i = s.ys.length - 1; i >= 0; i--) {
    if (Number.isNaN(s.ys[i])) continue;
    const raw = Plot.fmt(s.ys[i]), sm = Plot.fmt(s.sm[i]);
    return sm === raw ? raw : `${raw} (smoothed ${sm})`;
  }
  return '–';
}

function drawChart(c) {
  const series = seriesOf(c);
  if (!Plot.draw(c.canvas, series, View.raw)) return false;
  c.el.dataset.points = series.map(s => Plot.count(s.ys)).join(' ');
  c.last.textContent = series.map(lastValue).join(' · ');
  return true;
}

function visible(e) {
  const r = e.getBoundingClientRect();
  return r.bottom > 0 && r.top < window.innerHeight && r.width > 0;
}

let frame = 0;
function schedule() {
  if (!frame) frame = requestAnimationFrame(drawFrame);
}

// drawFrame draws dirty charts, visible ones first, within a time budget
// per frame so the page keeps answering input; the rest wait a frame.
function drawFrame() {
  frame = 0;
  if (View.tab !== 'curves') return;
  const t0 = performance.now();
  const pending = [...View.dirty].map(k => View.charts.get(k)).filter(c => c && !c.el.hidden && c.el.offsetParent !== null);
  pending.sort((a, b) => visible(b.el) - visible(a.el));
  let drewVisible = false;
  for (const c of pending) {
    if (performance.now() - t0 > 12) break;
    const vis = visible(c.el);
    if (drawChart(c)) View.dirty.delete(c.key);
    drewVisible = drewVisible || vis;
  }
  if (drewVisible && View.firstPaintMs === null && View.loaded) View.firstPaintMs = performance.now();
  const left = [...View.dirty].some(k => { const c = View.charts.get(k); return c && !c.el.hidden && c.el.offsetParent !== null; });
  if (left) { schedule(); return; }
  if (View.loaded && View.allDrawnMs === null) {
    View.allDrawnMs = performance.now();
    document.body.dataset.ready = '1';
  }
}

function markAll() {
  for (const k of View.charts.keys()) View.dirty.add(k);
  schedule();
}

function showTip(c, e) {
  const L = c.canvas._layout;
  if (!L) return;
  const rect = c.canvas.getBoundingClientRect();
  const x = e.clientX - rect.left;
  const step = L.x0 + (x - L.left) / L.pw * L.xspan;
  const lines = [];
  let at = null;
  for (const s of seriesOf(c)) {
    if (s.xs.length === 0) continue;
    let i = Plot.nearest(s.xs, step);
    for (let d = 0; d < 50 && Number.isNaN(s.ys[i]) && i > 0; d++) i--;
    if (Number.isNaN(s.ys[i])) continue;
    at = s.xs[i];
    lines.push(`${s.run.name}: ${Plot.fmt(s.sm[i])} (raw ${Plot.fmt(s.ys[i])})`);
  }
  if (at === null) return;
  c.hover.style.display = 'block';
  c.hover.style.left = (L.left + (at - L.x0) / L.xspan * L.pw) + 'px';
  c.tip.textContent = `step ${at}  ` + lines.join('  ');
  c.tip.style.display = 'block';
  c.tip.style.left = Math.min(x + 10, rect.width - c.tip.offsetWidth - 4) + 'px';
}

function applyFilter() {
  const f = View.filter.toLowerCase();
  for (const c of View.charts.values()) c.el.hidden = f !== '' && !c.key.toLowerCase().includes(f);
  for (const sec of document.querySelectorAll('#groups .group')) {
    sec.hidden = [...sec.querySelectorAll('.chart')].every(e => e.hidden);
  }
  schedule();
}

// --- summary ---------------------------------------------------------

function wall(s) {
  if (!Number.isFinite(s)) return '–';
  const m = Math.floor(s / 60), h = Math.floor(m / 60);
  const hm = h > 0 ? `${h}h${m % 60}m` : `${m}m${Math.round(s % 60)}s`;
  return `${Math.round(s)} s (${hm})`;
}

// flat renders a summary value on one line: an object as its values,
// name first, the others labelled.
function flat(v) {
  if (v === null || typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return v.map(flat).join(', ');
  return Object.entries(v).map(([k, x]) => k === 'name' ? flat(x) : `${k.replace(/_/g, ' ')} ${flat(x)}`).join(' · ');
}

function num(v, d) { return typeof v === 'number' ? v.toFixed(d) : '–'; }

function summaryCard(run, sum) {
  const card = el('div', 'sum-card');
  card.dataset.run = run.id;
  const h = el('h3');
  const sw = el('span', 'swatch'); sw.style.background = run.color;
  h.append(sw, el('span', '', run.name));
  card.append(h);
  if (!sum) {
    card.append(el('div', 'pending', `training: step ${run.steps.length ? run.steps[run.steps.length - 1] : 0}, no summary.json yet`));
    return card;
  }
  const t = el('table');
  const row = (label, cls, a, b) => {
    const tr = el('tr');
    tr.className = cls;
    const td = el('td', 'v');
    if (b === undefined) td.textContent = a;
    else td.append(el('span', 'ws', a), el('span', 'arrow', '→'), el('span', 'fin', b));
    tr.append(el('td', '', label), td);
    t.append(tr);
  };
  const ws = sum.warmstart || {}, fin = sum.final || {};
  row('held-out', 'sum-head', 'warm start → final');
  row('accuracy', 'sum-acc', num(ws.accuracy, 3), num(fin.accuracy, 3));
  row('tool calls / rollout', 'sum-tools', num(ws.tool_calls, 2), num(fin.tool_calls, 2));
  row('reward', 'sum-reward', num(ws.reward, 3), num(fin.reward, 3));
  row('wall time', 'sum-wall', wall(sum.wall_s));
  const skip = new Set(['warmstart', 'final', 'wall_s']);
  for (const [k, v] of Object.entries(sum)) {
    if (skip.has(k)) continue;
    row(k, 'sum-' + k, flat(v));
  }
  if (!('backend' in sum)) row('backend', 'sum-backend', 'not recorded');
  card.append(t);
  return card;
}

async function loadSummaries() {
  const cards = await Promise.all(View.runs.map(async r => {
    try { return summaryCard(r, await getJSON(`api/summary?run=${r.id}`)); } catch (e) { return summaryCard(r, null); }
  }));
  document.getElementById('summary').replaceChildren(...cards);
}

// --- config ----------------------------------------------------------

function cfgTable(names, rows, cls) {
  const t = el('table', 'cfg ' + cls);
  const head = el('tr');
  head.append(el('th', '', 'key'), ...names.map(n => el('th', '', n)));
  t.append(head);
  for (const r of rows) {
    const tr = el('tr', r.differs ? 'differs' : '');
    tr.dataset.key = r.key;
    tr.append(el('td', '', r.key));
    for (const v of r.values) tr.append(v === null ? el('td', 'missing', 'absent') : el('td', '', v));
    t.append(tr);
  }
  return t;
}

async function loadConfig() {
  const cfg = await getJSON('api/config');
  const names = cfg.runs.map(r => r.run);
  const diffBox = document.getElementById('config-diff');
  diffBox.replaceChildren();
  if (View.runs.length > 1) {
    // run_dir always differs and says only where each run lives: the
    // Config tab has it.
    const diff = cfg.diff.filter(d => d.key !== 'run_dir');
    diffBox.append(el('div', 'cfg-title', diff.length ? `resolved configs: ${diff.length} key${diff.length === 1 ? '' : 's'} differ${diff.length === 1 ? 's' : ''} (besides run_dir)` : 'resolved configs are identical (besides run_dir)'));
    if (diff.length) diffBox.append(cfgTable(names, diff.map(d => ({ key: d.key, values: d.values, differs: true })), 'diff'));
  }
  const keys = new Set();
  for (const r of cfg.runs) for (const k of Object.keys(r.keys)) keys.add(k);
  const differs = new Set(cfg.diff.map(d => d.key));
  const rows = [...keys].sort().map(k => ({ key: k, values: cfg.runs.map(r => k in r.keys ? r.keys[k] : null), differs: differs.has(k) }));
  const box = document.getElementById('config');
  const only = document.getElementById('c-diff').checked;
  const errs = cfg.runs.filter(r => r.error).map(r => el('div', 'empty', `${r.run}: ${r.error}`));
  box.replaceChildren(...errs, cfgTable(names, only ? rows.filter(r => r.differs) : rows, 'full'));
}

// --- wiring ----------------------------------------------------------

function setTab(name) {
  View.tab = name;
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.tab === name);
  for (const s of document.querySelectorAll('.tab')) s.hidden = s.id !== 'tab-' + name;
  if (name === 'curves') markAll();
  if (name === 'rollouts' && typeof Rollouts !== "undefined") Rollouts.show();
}

function liveText() {
  const last = View.runs.map(r => r.steps.length ? r.steps[r.steps.length - 1] : 0);
  const live = document.getElementById('live');
  live.className = 'live on';
  live.textContent = `following metrics.jsonl · step ${last.join(' / ')} · ${new Date().toLocaleTimeString()}`;
}

let polls = 0;
async function poll() {
  try {
    let changed = false;
    for (const r of View.runs) changed = (await fetchMetrics(r, false)) || changed;
    if (changed) { layoutCharts(); markAll(); }
    if (++polls % 3 === 0) { await loadSummaries(); if (typeof Rollouts !== "undefined") Rollouts.refresh(); }
    liveText();
  } catch (e) {
    document.getElementById('live').textContent = 'server unreachable: ' + e.message;
  }
  setTimeout(poll, POLL_MS);
}

async function init() {
  const runs = await getJSON('api/runs');
  View.runs = runs.map((r, i) => ({ id: r.id, name: r.name, color: COLORS[i % COLORS.length], offset: 0, check: '', steps: [], series: {}, version: 0 }));
  const legend = document.getElementById('legend');
  for (const r of View.runs) {
    const s = el('span', 'run'), sw = el('span', 'swatch');
    sw.style.background = r.color;
    s.append(sw, el('span', '', r.name));
    legend.append(s);
  }
  await Promise.all(View.runs.map(r => fetchMetrics(r, true)));
  View.loaded = true;
  layoutCharts();
  schedule();
  liveText();
  loadSummaries();
  loadConfig();
  if (typeof Rollouts !== "undefined") Rollouts.init(View.runs);
  setTimeout(poll, POLL_MS);
}

document.getElementById('smooth').addEventListener('input', e => {
  View.smoothing = Number(e.target.value);
  document.getElementById('smooth-val').textContent = View.smoothing.toFixed(2);
  markAll();
});
document.getElementById('raw').addEventListener('change', e => { View.raw = e.target.checked; markAll(); });
document.getElementById('filter').addEventListener('input', e => { View.filter = e.target.value; applyFilter(); });
document.getElementById('c-diff').addEventListener('change', loadConfig);
for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => setTab(b.dataset.tab));
window.addEventListener('resize', markAll);
window.addEventListener('scroll', schedule, { passive: true });
init().catch(e => { document.getElementById('live').textContent = 'failed to load: ' + e.message; });
