// Installed in every benchmark page before Streamlit loads: after reset(), on performance.now()'s clock, t0 (the
// last keydown/pointerdown), the first rerun request sent, the messages and bytes received, the run's start and
// script_finished (ForwardMsg's top-level fields 4 and 6, read off the websocket), the DOM's notRunning, and chart
// redraws (a DOM change inside a chart, or a vega canvas clear: its redraw ends at the next microtask).
(() => {
  if (window.__bench) return;
  const CHART = '[data-testid=stVegaLiteChart],[data-testid=stImage],[data-testid=stPlotlyChart]';
  const W = (window.__bench = {
    reset() {
      Object.assign(this, { t0: null, sent: null, runStart: null, finished: null, status: null,
                            domEnd: null, paintFirst: null, paintLast: null, paints: 0, messages: 0, bytes: 0 });
    },
  });
  W.reset();
  const now = () => performance.now();
  const paint = () => {
    const t = now();
    W.paints += 1;
    if (W.paintFirst === null) W.paintFirst = t;
    W.paintLast = t;
  };
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
  const NativeWS = window.WebSocket;
  class ProbeWS extends NativeWS {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (ev) => {
        if (!(ev.data instanceof ArrayBuffer)) return;
        const t = now();
        W.messages += 1;
        W.bytes += ev.data.byteLength;
        let f;
        try { f = topFields(ev.data); } catch (e) { return; }
        if (W.t0 === null) return;
        if (f.has(4) && W.runStart === null) W.runStart = t;
        // script_finished: 0 success, 1 compile error, 3 fragment run; 2 = stopped early for another rerun.
        if (f.has(6) && W.runStart !== null && f.get(6) !== 2) { W.finished = t; W.status = f.get(6); }
      });
    }
    send(data) {
      if (W.t0 !== null && W.sent === null && (data instanceof ArrayBuffer || ArrayBuffer.isView(data))) {
        try { if (topFields(data instanceof ArrayBuffer ? data : data.buffer.slice(
          data.byteOffset, data.byteOffset + data.byteLength)).has(11)) W.sent = now(); } catch (e) { /* */ }
      }
      return super.send(data);
    }
  }
  window.WebSocket = ProbeWS;

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

  // Resolve when the action's effect is complete; times are relative to the action (ms).
  //  mode "run":    the script run it caused finished and the page shows notRunning;
  //  mode "rerun":  that, and the charts stopped redrawing for `quiet` ms (or none redrew: cap / 2 after);
  //  mode "client": the charts redrew and stopped redrawing for `quiet` ms (no rerun expected).
  //  grace: in mode "rerun", how long after the run's end to wait for a chart redraw that does not come
  //  (a control whose change redraws no chart); default cap / 2.
  W.waitDone = (mode, quiet, cap, grace) => new Promise((resolve) => {
    if (grace === undefined || grace === null) grace = cap / 2;
    const start = now();
    const tick = () => {
      const t = now();
      const t0 = W.t0;
      const state = document.querySelector('[data-testid=stApp]')?.getAttribute('data-test-script-state');
      const ran = W.finished !== null && state === 'notRunning';
      // The end of the run as the page shows it: the DOM flip if it came after the message, else the message.
      const runEnd = ran ? (W.domEnd !== null && W.domEnd >= W.finished ? W.domEnd : W.finished) : null;
      const painted = W.paintLast !== null && t0 !== null && W.paintLast > t0;
      const settled = painted && t - W.paintLast >= quiet;
      let finished;
      if (mode === 'run') finished = ran;
      else if (mode === 'rerun') finished = ran && (settled || (!painted && t - runEnd >= grace));
      else finished = settled;
      if (t0 !== null && (finished || t - start > cap)) {
        const ends = [];
        if (runEnd !== null) ends.push(runEnd);
        if (painted && mode !== 'run') ends.push(W.paintLast);
        const rel = (x) => (x === null ? null : x - t0);
        resolve({
          ok: finished, total: ends.length ? Math.max(...ends) - t0 : null, state, status: W.status,
          sent: rel(W.sent), run_start: rel(W.runStart), run_end: rel(runEnd), finished: rel(W.finished),
          dom_end: rel(W.domEnd),
          paint_first: painted ? W.paintFirst - t0 : null, paint_last: painted ? W.paintLast - t0 : null,
          paints: W.paints, ran: W.runStart !== null, messages: W.messages, bytes: W.bytes,
        });
        return;
      }
      setTimeout(tick, 5);
    };
    tick();
  });
})();
