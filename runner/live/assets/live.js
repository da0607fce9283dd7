// The live page: reads the run's events from /events (server-sent events),
// keeps what they say in `state`, and redraws the tables and the SVG charts
// from it at most once a frame. Every figure is derived from the intervals
// as last sent (a re-sent interval replaces the earlier one), so the totals
// are the sums of the intervals' counts and the percentiles are each
// interval's own (from its histogram), never averaged.
'use strict';
(function () {
  const OP_COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];
  const PCTS = [['p50', '#16a34a'], ['p95', '#ea580c'], ['p99', '#dc2626']];
  const CPU_STAT = 'container_cpu_cores', MEM_STAT = 'container_memory_bytes';

  let state;
  function reset() {
    state = {
      status: 'waiting for the run…', ended: false,
      intervals: new Map(), // setup, window, start → {x, window, m}
      anchors: new Map(),   // setup, window → its first interval's place on the time axis
      levels: new Map(),    // setup → the user counts of its levels so far
      log: [], warnings: [],
    };
  }
  reset();

  const fmtNum = (v, d = 0) => v.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  // Go's duration text ("1m30s", "500ms", "0s"), as an interval's start
  // and length come, in seconds.
  const UNIT = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, 'µs': 1e-6, 'μs': 1e-6, ns: 1e-9 };
  const goSecs = d => {
    let t = 0;
    for (const [, v, u] of String(d || '0s').matchAll(/([\d.]+)(ns|us|µs|μs|ms|h|m|s)/g)) t += parseFloat(v) * UNIT[u];
    return String(d).startsWith('-') ? -t : t;
  };
  const fmtSecs = s => s >= 60 ? `${Math.floor(s / 60)}m${fmtNum(s % 60)}s` : `${fmtNum(s, s < 10 ? 1 : 0)}s`;

  // A window within a knob sweep's point names the point and the knob's
  // value first ("point 2 value=40 level 1 users=8"): the status leads
  // with the value running (0 is the engine's default).
  const sweepPoint = w => {
    const p = /^point (\d+) value=(\d+)/.exec(w || '');
    return p ? `knob value ${p[2] === '0' ? 'default' : p[2]} (sweep point ${p[1]}), ` : '';
  };

  function handle(m) {
    const who = m.setup ? m.setup + ': ' : '', at = who + sweepPoint(m.window);
    switch (m.kind) {
      case 'reset': reset(); break;
      case 'log': {
        const line = `${fmtSecs(m.t || 0)}  ${who}${m.text}`;
        state.log.push(line);
        // The run's own warnings outside a window come as log lines.
        if (/^warning|stopped/i.test(m.text)) state.warnings.push(line);
        break;
      }
      case 'preload': state.status = `${who}pre-populating ${fmtNum(m.done || 0)} of ${fmtNum(m.total || 0)} documents`; break;
      case 'phase': {
        // Levels are numbered by the user counts a setup has run, in order.
        const levels = state.levels.get(m.setup) || [];
        if (levels[levels.length - 1] !== m.users) levels.push(m.users);
        state.levels.set(m.setup, levels);
        state.status = `${at}level ${levels.length}, ${m.users} users — ${m.phase}` + (m.duration ? ` (${fmtSecs(m.duration / 1e9)})` : '');
        break;
      }
      case 'rung': state.status = `${at}rung at ${fmtNum(m.rate || 0)} calls/s — repetition ${m.rep} of ${m.reps}`; break;
      case 'warning': state.warnings.push(`${fmtSecs(m.t || 0)}  ${who}${m.window ? m.window + ': ' : ''}${m.text}`); break;
      case 'setup-done': state.status = `${who}done`; break;
      case 'interval': {
        // The interval's place in its window, in seconds (the charts read
        // them from the message).
        m.start = goSecs(m.interval.start); m.length = goSecs(m.interval.length);
        const win = m.setup + '\u0000' + m.window;
        if (!state.anchors.has(win)) state.anchors.set(win, m.t - (m.start || 0) - (m.length || 0));
        const key = win + '\u0000' + (m.start || 0);
        state.intervals.set(key, { x: state.anchors.get(win) + (m.start || 0), window: win, m });
        break;
      }
      case 'end': state.status = 'run finished'; state.ended = true; break;
    }
  }

  // The intervals in time order, with the figures the page shows.
  function derive() {
    const ivs = [...state.intervals.values()].sort((a, b) => a.x - b.x);
    const ops = [], totals = {}, errors = {};
    const known = { checks: 0, found: 0 }, fresh = { visible: 0, lagMax: 0 };
    let stats = null, haveKnown = false, haveFresh = false;
    for (const { m } of ivs) {
      const iv = m.interval;
      for (const o of iv.ops || []) {
        if (!(o.op in totals)) { ops.push(o.op); totals[o.op] = { count: 0, notFound: 0, errors: 0 }; }
        const t = totals[o.op];
        t.count += o.count; t.notFound += o.not_found || 0;
        for (const [cls, n] of Object.entries(o.errors || {})) {
          t.errors += n;
          errors[`${o.op}\u0000${cls}`] = (errors[`${o.op}\u0000${cls}`] || 0) + n;
        }
      }
      if (iv.known_items && iv.known_items.checks) { haveKnown = true; known.checks += iv.known_items.checks; known.found += iv.known_items.found; }
      if (iv.freshness) { haveFresh = true; fresh.visible += iv.freshness.visible; fresh.lagMax = Math.max(fresh.lagMax, iv.freshness.lag_max_ms); }
      if (iv.engine_stats) stats = { setup: m.setup, values: iv.engine_stats };
    }
    return { ivs, ops, totals, errors, known: haveKnown && known, fresh: haveFresh && fresh, stats };
  }

  // Series over the time axis for f(interval) → y (undefined: no point),
  // broken between windows so that a line never bridges a pause.
  function series(ivs, f) {
    const segs = [];
    let cur = null, win = null;
    for (const { x, window, m } of ivs) {
      const y = f(m);
      if (y === undefined || y === null || !isFinite(y)) continue;
      if (window !== win) { cur = []; segs.push(cur); win = window; }
      cur.push([x, y]);
    }
    return segs;
  }

  function niceStep(range, ticks) {
    const raw = range / ticks, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const r = raw / mag;
    return mag * (r < 1.5 ? 1 : r < 3 ? 2 : r < 7 ? 5 : 10);
  }

  const esc = s => String(s).replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

  // One line chart as SVG: lines = [{name, color, segs}], x in seconds.
  function lineChart(title, unit, lines, xMax) {
    const W = 560, H = 240, L = 56, R = 12, T = 26, B = 40;
    let yMax = 0;
    for (const l of lines) for (const s of l.segs) for (const [, y] of s) yMax = Math.max(yMax, y);
    const yStep = niceStep(yMax > 0 ? yMax : 1, 4);
    yMax = Math.ceil((yMax > 0 ? yMax : 1) / yStep) * yStep;
    xMax = Math.max(xMax, 1);
    const xStep = niceStep(xMax, 6);
    const X = x => L + (W - L - R) * x / xMax, Y = y => H - B - (H - T - B) * y / yMax;
    const out = [`<svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">`,
      `<text class="title" x="${L}" y="16">${esc(title)}</text>`];
    for (let y = 0; y <= yMax + yStep / 2; y += yStep) {
      out.push(`<line class="grid" x1="${L}" x2="${W - R}" y1="${Y(y)}" y2="${Y(y)}"/>`,
        `<text x="${L - 6}" y="${Y(y) + 4}" text-anchor="end">${fmtNum(y, yStep < 1 ? 2 : 0)}</text>`);
    }
    for (let x = 0; x <= xMax; x += xStep) {
      out.push(`<text x="${X(x)}" y="${H - B + 16}" text-anchor="middle">${fmtSecs(x)}</text>`);
    }
    out.push(`<line class="axis" x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}"/>`,
      `<text x="${(L + W - R) / 2}" y="${H - 6}" text-anchor="middle">time since the run started</text>`,
      `<text x="12" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 12 ${(T + H - B) / 2})">${esc(unit)}</text>`);
    let lx = W - R;
    for (const l of [...lines].reverse()) {
      const w = 18 + 7 * l.name.length;
      lx -= w;
      out.push(`<rect x="${lx}" y="8" width="10" height="10" fill="${l.color}"/><text x="${lx + 13}" y="17">${esc(l.name)}</text>`);
    }
    for (const l of lines) {
      for (const s of l.segs) {
        const pts = s.map(([x, y]) => `${X(x).toFixed(1)},${Y(y).toFixed(1)}`).join(' ');
        out.push(`<polyline fill="none" stroke="${l.color}" stroke-width="2" stroke-linejoin="round" points="${pts}"/>`);
        if (s.length === 1) out.push(`<circle cx="${X(s[0][0])}" cy="${Y(s[0][1])}" r="2.5" fill="${l.color}"/>`);
      }
    }
    out.push('</svg>');
    return out.join('');
  }

  function table(el, head, rows) {
    el.innerHTML = (head ? '<tr>' + head.map(h => `<th>${esc(h)}</th>`).join('') + '</tr>' : '') +
      (rows.length ? rows.map(r => '<tr>' + r.map(c => `<td>${c}</td>`).join('') + '</tr>').join('')
        : `<tr><td class="muted" colspan="${head ? head.length : 2}">none yet</td></tr>`);
  }

  function render() {
    const d = derive();
    const st = document.getElementById('status');
    st.textContent = state.status;
    st.classList.toggle('ended', state.ended);

    const color = op => OP_COLORS[d.ops.indexOf(op) % OP_COLORS.length];
    const swatch = op => `<span class="swatch" style="background:${color(op)}"></span>${esc(op)}`;
    table(document.getElementById('totals'), ['op', 'calls', 'not found', 'failed'],
      d.ops.map(op => [swatch(op), fmtNum(d.totals[op].count), fmtNum(d.totals[op].notFound), fmtNum(d.totals[op].errors)]));
    // The totals as numbers, for the tests and anyone scripting the page.
    window.liveTotals = Object.fromEntries(d.ops.map(op => [op, d.totals[op].count]));

    table(document.getElementById('errors'), ['op', 'class', 'calls'],
      Object.entries(d.errors).map(([k, n]) => { const [op, cls] = k.split('\u0000'); return [swatch(op), esc(cls), fmtNum(n)]; }));
    const q = [];
    if (d.known) q.push(['known items found', `${fmtNum(d.known.found)} of ${fmtNum(d.known.checks)}` +
      (d.known.checks ? ` (${fmtNum(100 * d.known.found / d.known.checks, 1)}%)` : '')]);
    if (d.fresh) q.push(['writes seen by search', fmtNum(d.fresh.visible)], ['longest freshness lag', `${fmtNum(d.fresh.lagMax, 1)} ms`]);
    table(document.getElementById('quality'), null, q);
    const stats = d.stats ? Object.keys(d.stats.values).sort().map(k => {
      const v = d.stats.values[k];
      return [esc(k), k === MEM_STAT ? `${fmtNum(v / 2 ** 20, 1)} MiB` : fmtNum(v, Math.abs(v) < 10 ? 2 : 0)];
    }) : [];
    table(document.getElementById('stats'), null, stats);

    const xMax = d.ivs.length ? Math.max(...d.ivs.map(i => i.x + (i.m.length || 0))) : 1;
    const charts = [];
    charts.push(lineChart('Throughput per operation', 'successful calls/s',
      d.ops.map(op => ({
        name: op, color: color(op), segs: series(d.ivs, m => {
          const o = (m.interval.ops || []).find(o => o.op === op);
          return o && m.length > 0 ? o.count / m.length : undefined;
        }),
      })), xMax));
    for (const op of d.ops) {
      charts.push(lineChart(`${op} latency (each interval's percentiles)`, 'ms', PCTS.map(([p, c]) => ({
        name: p, color: c, segs: series(d.ivs, m => {
          const o = (m.interval.ops || []).find(o => o.op === op);
          return o && o.count > 0 ? o[p] : undefined;
        }),
      })), xMax));
    }
    // The searches by kind of query (the product corpus's knn, sku, …):
    // each kind's p99, interval by interval.
    const searchOf = m => (m.interval.ops || []).find(o => o.op === 'search') || {};
    const kindNames = [...new Set(d.ivs.flatMap(i => (searchOf(i.m).kinds || []).map(k => k.kind)))];
    if (kindNames.length) {
      charts.push(lineChart('search p99 by query kind', 'ms', kindNames.map((k, j) => ({
        name: k, color: OP_COLORS[j % OP_COLORS.length], segs: series(d.ivs, m => {
          const q = (searchOf(m).kinds || []).find(x => x.kind === k);
          return q && q.count > 0 ? q.p99 : undefined;
        }),
      })), xMax));
    }
    // A coordinator's merged view: each shard's successful calls per
    // second, apart (a sum hides a shard that fell behind).
    const shardIdx = [...new Set(d.ivs.flatMap(i => (i.m.interval.shards || []).map(s => s.shard)))].sort((a, b) => a - b);
    if (shardIdx.length) {
      charts.push(lineChart('Throughput by shard', 'successful calls/s', shardIdx.map((k, j) => ({
        name: `shard ${k}`, color: OP_COLORS[j % OP_COLORS.length], segs: series(d.ivs, m => {
          const s = (m.interval.shards || []).find(s => s.shard === k);
          return s && m.length > 0 ? (s.count || 0) / m.length : undefined;
        }),
      })), xMax));
    }
    // The load: active users (closed loop), or the rate offered and the
    // rate achieved (open loop; an achieved rate of 0 is left out of the
    // JSON, so it counts as 0 wherever a rate was offered).
    const users = series(d.ivs, m => m.interval.active_users);
    if (users.length) charts.push(lineChart('Active users', 'users', [{ name: 'active users', color: '#374151', segs: users }], xMax));
    const offered = series(d.ivs, m => m.interval.scheduled_rate);
    if (offered.length) {
      const achieved = series(d.ivs, m => m.interval.scheduled_rate === undefined ? undefined : m.interval.achieved_rate || 0);
      charts.push(lineChart('Offered and achieved rate', 'calls/s', [
        { name: 'offered', color: '#6b7280', segs: offered }, { name: 'achieved', color: '#2563eb', segs: achieved }], xMax));
    }
    const errSegs = series(d.ivs, m => (m.interval.ops || []).reduce((n, o) =>
      n + Object.values(o.errors || {}).reduce((a, b) => a + b, 0), 0));
    if (Object.keys(d.errors).length) charts.push(lineChart('Failed calls per interval', 'calls', [{ name: 'failed', color: '#dc2626', segs: errSegs }], xMax));
    const stat = k => series(d.ivs, m => (m.interval.engine_stats || {})[k]);
    const cpu = stat(CPU_STAT);
    if (cpu.length) charts.push(lineChart('Container CPU', 'cores', [{ name: 'cpu', color: '#9333ea', segs: cpu }], xMax));
    const mem = series(d.ivs, m => { const v = (m.interval.engine_stats || {})[MEM_STAT]; return v === undefined ? v : v / 2 ** 20; });
    if (mem.length) charts.push(lineChart('Container memory', 'MiB', [{ name: 'memory', color: '#0891b2', segs: mem }], xMax));
    document.getElementById('charts').innerHTML = charts.map(c => `<div class="chart">${c}</div>`).join('');

    const lines = (id, list) => {
      const el = document.getElementById(id);
      el.innerHTML = list.length ? list.slice(-200).map(l => `<li>${esc(l)}</li>`).join('') : '<li class="muted">none yet</li>';
      el.scrollTop = el.scrollHeight;
    };
    lines('warnings', state.warnings);
    lines('log', state.log);
    document.body.dataset.intervals = String(d.ivs.length);
    document.body.dataset.ended = String(state.ended);
  }

  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; render(); });
  }

  const es = new EventSource('events');
  es.onmessage = ev => {
    const m = JSON.parse(ev.data);
    handle(m);
    // The stream ends with the run; without close() EventSource would
    // reconnect and read the history again.
    if (m.kind === 'end') es.close();
    schedule();
  };
  es.onerror = () => { if (!state.ended) { state.status = 'disconnected; retrying…'; schedule(); } };
  render();
})();
