// Installed in every benchmark page before Streamlit loads: after reset(), on performance.now()'s clock, t0 (the
// last keydown/pointerdown), the run's start and script_finished (ForwardMsg's top-level fields 4 and 6, read off
// the websocket), the DOM's notRunning, and the last chart redraw (a DOM change inside a chart, or a vega canvas
// clear: its redraw ends at the next microtask). Then the actions bench/controls.py takes in the page: find the
// controls, drag an in-chart control, press a play button.
(() => {
  if (window.__bench) return;
  const CHART = '[data-testid=stVegaLiteChart],[data-testid=stImage],[data-testid=stPlotlyChart]';
  const W = (window.__bench = {
    reset() {
      Object.assign(this, { t0: null, runStart: null, finished: null, status: null, domEnd: null, paintLast: null });
    },
  });
  W.reset();
  const now = () => performance.now();
  const paint = () => { W.paintLast = now(); };
  const inChart = (node) => {
    const el = node && (node.nodeType === 1 ? node : node.parentElement);
    return !!(el && el.closest && el.closest(CHART));
  };

  // ---- protobuf: the top-level fields of a message (field number → varint value or true)
  const topFields = (buf) => {
    const b = new Uint8Array(buf);
    const out = new Map();
    let i = 0;
    const varint = () => {
      let x = 0, mul = 1, c;
      do { c = b[i++]; x += (c & 0x7f) * mul; mul *= 128; } while (c & 0x80 && i < b.length);
      return x;
    };
    while (i < b.length) {
      const tag = varint(), field = Math.floor(tag / 8), wt = tag % 8;
      if (wt === 0) out.set(field, varint());
      else if (wt === 2) { const n = varint(); i += n; out.set(field, true); }
      else if (wt === 1) i += 8;
      else if (wt === 5) i += 4;
      else break;
    }
    return out;
  };
  window.WebSocket = class extends window.WebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (ev) => {
        if (!(ev.data instanceof ArrayBuffer) || W.t0 === null) return;
        const t = now();
        let f;
        try { f = topFields(ev.data); } catch (e) { return; }
        if (f.has(4) && W.runStart === null) W.runStart = t;
        // script_finished: 0 success, 1 compile error, 3 fragment run; 2 = stopped early for another rerun.
        if (f.has(6) && W.runStart !== null && f.get(6) !== 2) { W.finished = t; W.status = f.get(6); }
      });
    }
  };

  const clearRect = CanvasRenderingContext2D.prototype.clearRect;
  let pending = false;
  CanvasRenderingContext2D.prototype.clearRect = function (...args) {
    if (!pending && this.canvas && inChart(this.canvas)) {
      pending = true;
      queueMicrotask(() => { pending = false; paint(); });
    }
    return clearRect.apply(this, args);
  };
  const action = () => { W.t0 = now(); };
  document.addEventListener('keydown', action, true);
  document.addEventListener('pointerdown', action, true);
  new MutationObserver((records) => {
    let charted = false;
    for (const r of records) {
      if (r.type === 'attributes' && r.attributeName === 'data-test-script-state') {
        if (r.target.getAttribute('data-test-script-state') === 'notRunning' && W.t0 !== null) W.domEnd = now();
      } else if (!charted && inChart(r.target)) {
        charted = true;
      }
    }
    if (charted) paint();
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });

  // Resolve when the action's run has finished, the page shows notRunning and the charts stopped redrawing for
  // `quiet` ms (or, when none redrew, `grace` ms after the run's end); give up after `cap` ms. `total`: ms from
  // the action to the later of the run's end (the DOM flip if it came after the message) and the last redraw.
  W.waitDone = (quiet, cap, grace) => new Promise((resolve) => {
    const start = now();
    const tick = () => {
      const t = now(), t0 = W.t0;
      const state = document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state');
      const ran = W.finished !== null && state === 'notRunning';
      const runEnd = ran ? (W.domEnd !== null && W.domEnd >= W.finished ? W.domEnd : W.finished) : null;
      const painted = W.paintLast !== null && t0 !== null && W.paintLast > t0;
      const ok = ran && (painted ? t - W.paintLast >= quiet : t - runEnd >= grace);
      if (t0 === null || !(ok || t - start > cap)) return void setTimeout(tick, 5);
      const ends = [runEnd, painted ? W.paintLast : null].filter((x) => x !== null);
      resolve({ ok, total: ends.length ? Math.max(...ends) - t0 : null, status: W.status, ran: W.runStart !== null });
    };
    tick();
  });

  // ---- the benchmark's actions in the page (bench/controls.py)
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const visible = (e) => !!(e && e.offsetParent !== null && e.getClientRects().length);
  const text = (e) => (e?.innerText || '').replace(/\s+/g, ' ').trim();
  const KINDS = [['stSlider', 'slider'], ['stNumberInput', 'number'], ['stRadio', 'radio'], ['stCheckbox', 'checkbox'],
                 ['stToggle', 'toggle'], ['stTextInput', 'text'], ['stSelectbox', 'selectbox']];

  // The controls a student can press now: Streamlit's widgets (main area, and the sidebar's `withSidebar`), the
  // inputs bound to a chart's Vega params, and frame.live's play buttons.
  W.find = (withSidebar) => {
    const out = [];
    const roots = [['main', document.querySelector('[data-testid=stMain]')]];
    if (withSidebar) roots.push(['sidebar', document.querySelector('[data-testid=stSidebar]')]);
    for (const [where, root] of roots) {
      for (const [tid, kind] of root ? KINDS : []) {
        root.querySelectorAll(`[data-testid=${tid}]`).forEach((w, index) => {
          const label = text(w.querySelector('[data-testid=stWidgetLabel]'));
          if (visible(w)) out.push({where, kind, tid, index, label});
        });
      }
    }
    for (const b of document.querySelectorAll('[data-testid=stMain] .vega-bind')) {
      const input = b.querySelector('input, select');
      if (!input || !visible(input) || !input.name) continue;
      const type = input.tagName === 'SELECT' ? 'select' : input.type;
      const label = text(b.querySelector('.vega-bind-name'));
      out.push({where: 'chart', kind: 'vega ' + type, param: input.name, label});
    }
    for (const b of document.querySelectorAll('[data-testid=stMain] button.pe-play')) {
      const param = b.dataset.param;
      if (visible(b)) out.push({where: 'chart', kind: 'play', param, label: 'Play ' + param});
    }
    return out;
  };

  // A drag in the page: `steps` input events one after the other on the bound input named `name`, each timed
  // from the event to the chart redrawn (Vega redraws in promise callbacks: a message posted after the event is
  // handled once they have run); a range moves a stride at a time (about half its span over the drag), bouncing
  // at its ends; a select, radio or checkbox takes its next value.
  W.frames = async (name, steps) => {
    const inputs = [...document.querySelectorAll(`[data-testid=stMain] .vega-bind [name="${CSS.escape(name)}"]`)];
    const el = inputs[0];
    const settle = () => new Promise((r) => {
      const c = new MessageChannel(); c.port1.onmessage = r; c.port2.postMessage(0);
    });
    const times = [];
    let drawn = 0, dir = 1, ran = false;
    for (let i = 0; i < steps; i++) {
      let target = el;
      if (el.tagName === 'SELECT') el.selectedIndex = (el.selectedIndex + 1) % el.options.length;
      else if (el.type === 'radio') {
        target = inputs[(inputs.findIndex((r) => r.checked) + 1) % inputs.length];
        target.checked = true;
      } else if (el.type === 'checkbox') el.checked = !el.checked;
      else {
        const lo = +el.min, hi = +el.max, step = +el.step || 1;
        const stride = Math.max(step, Math.round((hi - lo) / (2 * steps) / step) * step);
        if (+el.value + dir * stride > hi || +el.value + dir * stride < lo) dir = -dir;
        el.value = String(+(+el.value + dir * stride).toFixed(10));
      }
      W.reset(); W.t0 = now();
      target.dispatchEvent(new Event('input', {bubbles: true}));
      target.dispatchEvent(new Event('change', {bubbles: true}));
      await settle();
      times.push(now() - W.t0);
      drawn += W.paintLast !== null;
      await new Promise((r) => requestAnimationFrame(r));
      ran = ran || W.runStart !== null;
    }
    await sleep(300);
    return {times, drawn, ran: ran || W.runStart !== null};
  };

  // A play button pressed for `ms`: frame.live's own record of each frame (its input event → chart redrawn).
  W.play = async (name, ms) => {
    const L = window.__peLive;
    const b = document.querySelector(`[data-testid=stMain] button.pe-play[data-param="${CSS.escape(name)}"]`);
    L.frames.length = 0; L.intervals.length = 0;
    W.reset(); W.t0 = now();
    b.click();
    const pressed = b.getAttribute('aria-pressed');
    await sleep(ms);
    b.click();
    await sleep(300);
    return {times: [...L.frames], intervals: [...L.intervals], pressed, ran: W.runStart !== null};
  };
})();
