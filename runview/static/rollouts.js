// rollouts.js: the rollout browser. Every sample of every eval of a run
// (samples/*.jsonl), filterable by verdict, task family and stop reason,
// the text split into its segments with the masked ones marked.
'use strict';

const Rollouts = (() => {
  const KINDS = {
    prompt: ['prompt', '#9aa2b3'],
    model: ['model', '#2f3a52'],
    tool_call: ['tool call', '#2457c5'],
    tool_result: ['tool result', '#d49a00'],
    user_turn: ['user turn', '#7c4dcc'],
  };
  const PAGE = 40;
  const S = { runs: [], run: 0, evals: [], cache: new Map(), samples: [], limit: PAGE, shown: false, token: 0 };
  const $ = id => document.getElementById(id);

  function options(sel, values, keep) {
    const cur = keep ? sel.value : '';
    sel.replaceChildren(...values.map(([v, label]) => {
      const o = el('option', '', label);
      o.value = v;
      return o;
    }));
    if (values.some(([v]) => v === cur)) sel.value = cur;
  }

  function init(runs) {
    S.runs = runs;
    options($('r-run'), runs.map(r => [String(r.id), r.name]));
    const kinds = $('r-kinds');
    for (const [k, [label, color]] of Object.entries(KINDS)) {
      const s = el('span', 'k'), b = el('span', 'box seg-' + k + (k === 'model' || k === 'tool_call' ? '' : ' masked'));
      b.style.borderLeft = `3px ${k === 'model' || k === 'tool_call' ? 'solid' : 'dashed'} ${color}`;
      s.append(b, el('span', '', label + (k === 'model' || k === 'tool_call' ? '' : ' (masked)')));
      kinds.append(s);
    }
    $('r-run').addEventListener('change', () => { S.run = Number($('r-run').value); S.limit = PAGE; loadEvals(); });
    $('r-eval').addEventListener('change', () => { S.limit = PAGE; loadSamples(); });
    for (const id of ['r-verdict', 'r-family', 'r-stop']) $(id).addEventListener('change', () => { S.limit = PAGE; render(); });
    $('r-search').addEventListener('input', () => { S.limit = PAGE; render(); });
    $('r-more').addEventListener('click', () => { S.limit += PAGE; render(); });
    loadEvals();
  }

  async function loadEvals() {
    try {
      S.evals = await getJSON(`api/evals?run=${S.run}`);
    } catch (e) {
      S.evals = [];
    }
    const total = S.evals.reduce((n, e) => n + e.samples, 0);
    options($('r-eval'), [['*', `all evals (${total})`], ...S.evals.map(e => [e.name, `${e.name} (${e.samples})`])], true);
    await loadSamples();
  }

  async function loadSamples() {
    const token = ++S.token;
    const want = $('r-eval').value === '*' ? S.evals : S.evals.filter(e => e.name === $('r-eval').value);
    const lists = await Promise.all(want.map(async e => {
      const key = `${S.run}/${e.name}/${e.samples}`;
      if (!S.cache.has(key)) {
        try { S.cache.set(key, await getJSON(`api/samples?run=${S.run}&eval=${encodeURIComponent(e.name)}`)); } catch (err) { return []; }
      }
      return S.cache.get(key);
    }));
    if (token !== S.token) return;
    S.samples = lists.flat();
    const distinct = f => [...new Set(S.samples.map(f))].sort();
    options($('r-family'), [['all', 'all'], ...distinct(s => s.family || '').map(v => [v, v || '(none)'])], true);
    options($('r-stop'), [['all', 'all'], ...distinct(s => s.stop || '').map(v => [v, v || '(none)'])], true);
    render();
  }

  function matches(s) {
    const v = $('r-verdict').value, fam = $('r-family').value, stop = $('r-stop').value;
    if (v === 'correct' && !s.correct) return false;
    if (v === 'incorrect' && s.correct) return false;
    if (fam !== 'all' && (s.family || '') !== fam) return false;
    if (stop !== 'all' && (s.stop || '') !== stop) return false;
    const q = $('r-search').value.toLowerCase();
    if (q && !s.task.toLowerCase().includes(q) && !s.segments.some(g => g.text.toLowerCase().includes(q))) return false;
    return true;
  }

  function render() {
    const box = $('rollouts');
    const hits = S.samples.filter(matches);
    $('r-count').textContent = S.evals.length === 0
      ? 'no samples/*.jsonl in this run yet: they are written at each evaluation'
      : `${hits.length} of ${S.samples.length} rollouts`;
    box.replaceChildren(...hits.slice(0, S.limit).map(card));
    $('r-more').hidden = hits.length <= S.limit;
  }

  function card(s) {
    const a = el('article', 'rollout');
    Object.assign(a.dataset, { task: s.task, eval: s.eval, family: s.family || '', stop: s.stop || '', correct: String(!!s.correct) });
    const h = el('header');
    h.append(el('span', 'badge ' + (s.correct ? 'ok' : 'bad'), s.correct ? 'correct' : 'incorrect'),
      el('span', 'task', s.task), el('span', 'tag', s.eval), el('span', 'tag', s.family || 'no family'),
      el('span', 'tag', 'stop: ' + (s.stop || '?')));
    const parts = Object.entries(s.rewards || {}).sort().map(([k, v]) => `${k} ${Plot.fmt(v)}`).join(', ');
    h.append(el('span', 'nums', `reward ${Plot.fmt(s.reward)}${parts ? ' (' + parts + ')' : ''}`),
      el('span', 'nums', `${s.model_tokens} model / ${s.tokens} tokens · ${s.tool_calls} tool call${s.tool_calls === 1 ? '' : 's'}`));
    a.append(h);
    if (s.verdict) {
      const v = el('div', 'verdict-text', (s.verdict_label || 'verdict') + ': ' + s.verdict);
      a.append(v);
    }
    const bar = el('div', 'tokbar');
    for (const g of s.segments) {
      const span = el('span');
      span.style.flexGrow = String(g.tokens);
      span.style.background = (KINDS[g.kind] || ['', '#999'])[1];
      span.style.opacity = g.masked ? '0.45' : '1';
      span.title = `${g.kind}: ${g.tokens} tokens`;
      bar.append(span);
    }
    a.append(bar);
    const segs = el('div', 'segments');
    for (const g of s.segments) segs.append(segment(g));
    a.append(segs);
    return a;
  }

  function segment(g) {
    const d = el('div', 'seg seg-' + g.kind + (g.masked ? ' masked' : ''));
    Object.assign(d.dataset, { kind: g.kind, masked: String(!!g.masked), tokens: String(g.tokens) });
    const label = el('div', 'seg-label');
    label.append(el('span', '', `${(KINDS[g.kind] || [g.kind])[0]} · ${g.tokens} tok`));
    if (g.masked) label.append(document.createTextNode(' · '), el('span', 'mask', 'masked (not in loss)'));
    if (g.status) label.append(document.createTextNode(' · '), el('span', g.status === 'ok' ? 'st-ok' : 'st-bad', g.status));
    if (g.truncated) label.append(document.createTextNode(' · truncated'));
    const pre = el('pre', '', g.text);
    if (g.kind === 'prompt' && g.text.length > 600) {
      const det = el('details'), sum = el('summary');
      sum.append(label);
      det.append(sum, pre);
      d.append(det);
    } else {
      d.append(label, pre);
    }
    return d;
  }

  return {
    init,
    show() { S.shown = true; },
    refresh() {
      if (S.runs.length) getJSON(`api/evals?run=${S.run}`).then(ev => {
        if (JSON.stringify(ev) !== JSON.stringify(S.evals)) loadEvals();
      }).catch(() => {});
    },
  };
})();
