// frame/live.js — the one small in-page component (st.components.v2, no iframe). See frame/live.py.
//
// One instance per page (window.__peLive), installed by the first mount:
//  - in-chart inputs (.vega-bind) ↔ the address: ?name=value by history.replaceState (no rerun), restored
//    from the address when a rerun redraws a chart;
//  - play buttons (mounts with data.role === "play") that sweep a bound range input on requestAnimationFrame;
//  - tap to read: a touch tap on a chart shows the tooltip a hover shows;
//  - Streamlit chrome work-arounds (WCAG 2.1 AA): focus kept after Show data and fullscreen;
//    code blocks focusable; decorative icons aria-hidden; the collapsed sidebar inert;
//  - class mode: the anonymous student id the server hands over, kept in a session cookie.

const KEY = "__peLive";

export default function (component) {
  const { data, parentElement } = component;
  const live = window[KEY] || (window[KEY] = createLive());
  if (data && data.role === "play") return live.addPlay(String(data.play), parentElement);
  if (data && data.role === "page") live.configure(data);
  if (data && data.role === "present") live.setPresent(data);
  return undefined;
}

function createLive() {
  const live = {
    playSeconds: 4,
    reducedStepSeconds: 1,
    reducedStops: 12,
    playNames: new Map(), // param name → number of play mounts
    players: new Map(), // param name → {playing, raf, timer}
    frames: [], // work per play frame, ms (dispatch → chart redrawn), the last 600
    intervals: [], // time between play frames, ms, the last 600
    driving: false, // true while the component itself dispatches an input event
    focusRestores: 0, // how many times focus was put back (the tests read it)
    // Each work-around can be switched off, so a test can check that Streamlit still needs it.
    keepFocus: true,
    tapToRead: true,
    sidebarInert: true,
  };
  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
  const pending = new Map();
  let writeTimer = 0;

  live.configure = (data) => {
    if (data.play_seconds) live.playSeconds = +data.play_seconds;
    if (data.reduced_step_seconds) live.reducedStepSeconds = +data.reduced_step_seconds;
    if (data.reduced_stops) live.reducedStops = +data.reduced_stops;
    if (data.cookie && data.student) keepCookie(String(data.cookie), String(data.student));
  };
  live.setPresent = (data) => {
    live.presentEvent = String(data.present_event);
    live.present = String(data.present || "");
    syncPresent();
  };

  // ------------------------------------------------------------ presentation mode, in every chart
  // Each chart's presentation param is bound to the document's root element (posenc/charts/spec.py PRESENT_BIND):
  // setting its value and dispatching the event grows every chart's text and caps its height, with no chart
  // rebuilt. A chart drawn later reads the value when it binds; the root outlives page switches. The root's
  // data-pe-present="1" switches on the page's presentation style (frame/theme.py PRESENT_STYLE).
  function syncPresent() {
    if (live.present === undefined) return;
    const root = document.documentElement;
    root.dataset.pePresent = live.present;
    if (root.value !== live.present) {
      forgetLines();
      root.value = live.present;
      root.dispatchEvent(new Event(live.presentEvent));
    }
  }

  // Vega's SVG renderer (5.x, in Streamlit 1.67) writes a text's lines (<tspan dy>) only when its words change,
  // so a wrapped subtitle whose size changes with the mode keeps the first spacing and its lines overlap. The one
  // use of Vega's internals: forget the words each drawn text was written with (its __values__.text), so its
  // lines are written again (tests/test_browser.py checks the spacing).
  function forgetLines() {
    for (const text of document.querySelectorAll("[data-testid=stVegaLiteChart] svg.marks text")) {
      if (text.__values__ && text.querySelector("tspan")) delete text.__values__.text;
    }
  }

  // ------------------------------------------------------------ class mode's student id
  // A session cookie (no expiry: gone when the browser closes), for every path of the app, not sent by other
  // sites' requests: the next session (a reload, a reconnect through the load balancer) is the same student.
  // The server made the id and checks its form when it reads it back.
  function keepCookie(name, value) {
    const pair = `${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
    if (document.cookie.split("; ").includes(pair)) return;
    document.cookie = `${pair}; path=/; SameSite=Lax${window.location.protocol === "https:" ? "; Secure" : ""}`;
  }

  // ------------------------------------------------------------ the address
  function fromAddress(name) {
    const all = new URLSearchParams(window.location.search).getAll(name);
    return all.length ? all[all.length - 1] : null;
  }
  function flush() {
    clearTimeout(writeTimer);
    writeTimer = 0;
    if (!pending.size) return;
    const url = new URL(window.location.href);
    for (const [k, v] of pending) url.searchParams.set(k, v);
    pending.clear();
    if (url.href !== window.location.href) window.history.replaceState(window.history.state, "", url.href);
  }
  // Chrome refuses more than ~100 history updates in 10 s: while dragging, write at most every 250 ms.
  function write(name, value, now) {
    pending.set(name, value);
    if (now) flush();
    else if (!writeTimer) writeTimer = setTimeout(flush, 250);
  }
  live.write = write;

  // ------------------------------------------------------------ in-chart inputs
  function controlOf(bind) {
    return bind.querySelector("input[name], select[name]");
  }
  function valueOf(bind) {
    const el = controlOf(bind);
    if (!el) return null;
    if (el.type === "checkbox") return el.checked ? "true" : "false";
    if (el.type === "radio") {
      const on = bind.querySelector(`input[type=radio]:checked`);
      return on ? on.value : null;
    }
    return el.value;
  }
  // Put the address's text into the input when the input can take it; false when it cannot.
  function apply(bind, raw) {
    const el = controlOf(bind);
    if (!el) return false;
    let target = el;
    if (el.type === "range") {
      const x = Number(raw);
      if (raw.trim() === "" || !Number.isFinite(x) || x < Number(el.min) || x > Number(el.max)) return false;
      el.value = raw;
    } else if (el.type === "checkbox") {
      const low = raw.trim().toLowerCase();
      if (!["true", "false", "1", "0", "yes", "no", "on", "off"].includes(low)) return false;
      el.checked = ["true", "1", "yes", "on"].includes(low);
    } else if (el.type === "radio") {
      target = [...bind.querySelectorAll("input[type=radio]")].find((r) => r.value === raw);
      if (!target) return false;
      target.checked = true;
    } else if (el.tagName === "SELECT") {
      if (![...el.options].some((o) => o.value === raw)) return false;
      el.value = raw;
    } else {
      el.value = raw;
    }
    live.driving = true;
    try {
      target.dispatchEvent(new Event("input", { bubbles: true }));
      target.dispatchEvent(new Event("change", { bubbles: true }));
    } finally {
      live.driving = false;
    }
    return true;
  }
  // A chart drawn (first paint or after a rerun): its inputs take the address's values; a value the input
  // cannot take is replaced in the address by what the chart shows (so the link says what the page shows).
  function restore(bind) {
    const el = controlOf(bind);
    if (!el) return;
    const raw = fromAddress(el.name);
    if (raw === null || raw === valueOf(bind)) return;
    if (!apply(bind, raw) || valueOf(bind) !== raw) write(el.name, valueOf(bind), true);
  }
  function onInput(event) {
    const el = event.target;
    if (!(el instanceof Element) || !el.name) return;
    const bind = el.closest(".vega-bind");
    if (!bind || live.driving) return;
    if (event.isTrusted && live.players.get(el.name)?.playing) pause(el.name);
    // Every input and change waits for the 250 ms write (history.replaceState costs several ms: a frame of
    // the chart must not pay it); anything done outside the chart's inputs — a press on the copy-link
    // button, a key, leaving the page — writes what is pending first, so the address is never behind a link.
    write(el.name, valueOf(bind), false);
  }
  document.addEventListener("input", onInput, true);
  document.addEventListener("change", onInput, true);
  const outside = (event) => {
    if (!(event.target instanceof Element && event.target.closest(".vega-bind"))) flush();
  };
  document.addEventListener("pointerdown", outside, true);
  document.addEventListener("keydown", outside, true);
  window.addEventListener("pagehide", flush);

  // ------------------------------------------------------------ play buttons
  function rangeInput(name) {
    return document.querySelector(`.vega-bind input[type=range][name="${CSS.escape(name)}"]`);
  }
  function buttons(name) {
    return document.querySelectorAll(`button.pe-play[data-param="${CSS.escape(name)}"]`);
  }
  function syncButtons(name) {
    const on = !!live.players.get(name)?.playing;
    for (const b of buttons(name)) {
      b.setAttribute("aria-pressed", on ? "true" : "false");
      if (b.textContent !== (on ? "Pause" : "Play")) b.textContent = on ? "Pause" : "Play";
    }
  }
  function addButton(bind, name) {
    if (bind.querySelector("button.pe-play")) return;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "pe-play";
    b.dataset.param = name;
    b.addEventListener("click", () => (live.players.get(name)?.playing ? pause(name) : play(name)));
    bind.insertBefore(b, bind.firstChild);
    syncButtons(name);
  }
  // Returns a promise that settles once the chart has redrawn (Vega redraws in promise callbacks: a message
  // posted after the dispatch arrives after they have run).
  function setRange(input, value) {
    const t0 = performance.now();
    input.value = String(value);
    live.driving = true;
    try {
      input.dispatchEvent(new Event("input", { bubbles: true }));
    } finally {
      live.driving = false;
    }
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        live.frames.push(performance.now() - t0);
        if (live.frames.length > 600) live.frames.shift();
        resolve();
      };
      channel.port2.postMessage(0);
    });
  }
  function play(name) {
    const input = rangeInput(name);
    if (!input) return;
    const p = { playing: true, raf: 0, timer: 0, last: null, busy: false };
    live.players.set(name, p);
    syncButtons(name);
    const min = Number(input.min), max = Number(input.max), step = Number(input.step) || 1;
    const n = Math.max(1, Math.round((max - min) / step)); // steps in a sweep
    let k0 = Math.round((Number(input.value) - min) / step);
    if (k0 >= n) k0 = 0; // at the end: start over
    const at = (k) => +(min + (k % (n + 1)) * step).toFixed(10);
    if (reduced.matches) {
      // No continuous motion: one jump a second while playing, a sweep in reducedStops jumps: the stops are
      // round(i·n / stops) for i = 0 … stops (whole steps; every step when the slider has fewer).
      const stops = Math.min(n, live.reducedStops);
      const stop = (i) => Math.round((i * n) / stops);
      let i = 0;
      while (i < stops && stop(i + 1) <= k0) i += 1; // the stop at or below where it starts
      let k = k0;
      const tick = () => {
        if (!p.playing) return;
        i = i >= stops ? 0 : i + 1; // the last stop is the slider's end, then back to its start
        k = stop(i);
        const el = rangeInput(name);
        if (el) setRange(el, at(k));
        p.timer = setTimeout(tick, live.reducedStepSeconds * 1000);
      };
      p.timer = setTimeout(tick, live.reducedStepSeconds * 1000);
      return;
    }
    const sweep = live.playSeconds * 1000;
    let t0 = null, prev = null;
    const frame = (t) => {
      if (!p.playing) return;
      if (t0 === null) t0 = t - (k0 / (n + 1)) * sweep;
      if (prev !== null) {
        live.intervals.push(t - prev);
        if (live.intervals.length > 600) live.intervals.shift();
      }
      prev = t;
      const k = Math.floor((((t - t0) % sweep) / sweep) * (n + 1));
      const el = rangeInput(name);
      if (!el) return pause(name);
      const v = at(k);
      if (v !== p.last && !p.busy) {
        // A chart slower than a frame skips values instead of queueing redraws behind the sweep.
        p.last = v;
        p.busy = true;
        setRange(el, v).then(() => (p.busy = false));
      }
      p.raf = requestAnimationFrame(frame);
    };
    p.raf = requestAnimationFrame(frame);
  }
  function pause(name) {
    const p = live.players.get(name);
    if (!p) return;
    p.playing = false;
    cancelAnimationFrame(p.raf);
    clearTimeout(p.timer);
    syncButtons(name);
    const el = rangeInput(name);
    if (el) write(name, el.value, true);
  }
  live.play = play;
  live.pause = pause;
  live.addPlay = (name, parentElement) => {
    live.playNames.set(name, (live.playNames.get(name) || 0) + 1);
    schedule();
    return () => {
      const left = (live.playNames.get(name) || 1) - 1;
      if (left > 0) return live.playNames.set(name, left);
      live.playNames.delete(name);
      pause(name);
      for (const b of buttons(name)) b.remove();
    };
  };
  // A press on the slider itself pauses its play.
  const grab = (event) => {
    const el = event.target;
    if (el instanceof HTMLInputElement && el.type === "range" && live.players.get(el.name)?.playing) pause(el.name);
  };
  document.addEventListener("pointerdown", grab, true);
  document.addEventListener("keydown", grab, true);

  // ------------------------------------------------------------ tap to read
  // Vega's tooltip follows pointer moves; a touch tap ends with pointerout, which hides it at once. After the
  // tap, a pointer move at the same place gives the tooltip (and hover highlights) a hover gives.
  document.addEventListener(
    "pointerup",
    (event) => {
      if (event.pointerType !== "touch" || !live.tapToRead) return;
      const target = event.target;
      if (!(target instanceof Element) || !target.closest("[data-testid=stVegaLiteChart] .marks, [data-testid=stVegaLiteChart] svg")) return;
      const { clientX, clientY } = event;
      setTimeout(() => {
        const el = document.elementFromPoint(clientX, clientY) || target;
        const init = { bubbles: true, cancelable: true, composed: true, clientX, clientY, pointerType: "mouse", isPrimary: true };
        el.dispatchEvent(new PointerEvent("pointermove", init));
        el.dispatchEvent(new MouseEvent("mousemove", init));
      }, 0);
    },
    true,
  );

  // ------------------------------------------------------------ focus never lost
  let last = null; // the control focus was last on, outside dialogs and fullscreen views
  let lastKey = null; // how to find it again if a rerun replaced it
  let pointerAt = 0;
  document.addEventListener("pointerdown", () => (pointerAt = performance.now()), true);
  // Where a control was: its element container (a keyed one by its key, else by its place in the page), its
  // role or tag, its label, and its place among its like in that container. Streamlit swaps a toolbar button for
  // its counterpart (Show data ↔ Show chart, Fullscreen ↔ Close fullscreen) in the same place.
  const CONTAINER = "[data-testid=stElementContainer]";
  const TOOLBAR = "[data-testid=stElementToolbar] button, [data-testid=stBaseButton-elementToolbar]";
  const labelOf = (el) =>
    el.getAttribute("aria-label") || el.name || el.textContent.trim().slice(0, 60) || el.getAttribute("data-testid") || "";
  function describe(el) {
    const keyed = el.closest("[class*='st-key-']");
    const key = keyed ? [...keyed.classList].find((c) => c.startsWith("st-key-")) : null;
    const container = el.closest(CONTAINER);
    const scope = (key && keyed) || container;
    const selector = el.getAttribute("role") ? `[role="${el.getAttribute("role")}"]` : el.tagName.toLowerCase();
    return {
      key,
      index: container ? [...document.querySelectorAll(CONTAINER)].indexOf(container) : -1,
      selector,
      label: labelOf(el),
      place: scope ? [...scope.querySelectorAll(selector)].indexOf(el) : -1,
      toolbar: el.matches(TOOLBAR),
      path: window.location.pathname, // a page switch is not a loss to repair
    };
  }
  function find(d) {
    if (!d) return null;
    let scope = d.key ? document.querySelector(`.${CSS.escape(d.key)}`) : null;
    if (!scope && d.index >= 0) scope = document.querySelectorAll(CONTAINER)[d.index] || null;
    if (!scope) return null;
    const all = [...scope.querySelectorAll(d.selector)];
    const same = all.find((c) => labelOf(c) === d.label && visible(c));
    if (same) return same;
    const swapped = d.toolbar ? all[d.place] : null; // Show data → Show chart, in the same place
    return swapped && visible(swapped) && swapped.matches(TOOLBAR) ? swapped : null;
  }
  function visible(el) {
    return el.isConnected && el.getClientRects().length > 0 && !el.closest("[inert]");
  }
  document.addEventListener(
    "focusin",
    (event) => {
      const el = event.target;
      if (!(el instanceof HTMLElement) || el === document.body) return;
      if (el.closest("[role=dialog]")) return; // a dialog's own controls: its invoker is the one to go back to
      last = el;
      lastKey = describe(el);
    },
    true,
  );
  // Focus lost (a focusout to nowhere, or the focused control removed by a rerun): for five seconds, put it back
  // on the control (or its successor) as soon as that exists, unless the student has clicked elsewhere since.
  let lostAt = -1;
  let pointerTarget = null;
  document.addEventListener("pointerdown", (event) => (pointerTarget = event.target), true);
  const onBody = () => {
    const a = document.activeElement;
    return !a || a === document.body || a === document.documentElement;
  };
  function lost() {
    if (lostAt >= 0) return;
    lostAt = performance.now();
    for (const ms of [0, 60, 200, 500, 1000, 2000, 3500, 5000]) setTimeout(rescue, ms); // and on each DOM change
  }
  function rescue() {
    if (lostAt < 0) return;
    if (!live.keepFocus) return void (lostAt = -1);
    if (!onBody()) return void (lostAt = -1); // focus is somewhere: nothing to do
    const onControl = pointerTarget instanceof Element && pointerTarget.closest("button, a, input, select, textarea, [tabindex]");
    if (pointerAt > lostAt || (pointerAt > lostAt - 400 && !onControl)) return void (lostAt = -1); // a click elsewhere
    if (lastKey && lastKey.path !== window.location.pathname) return void (lostAt = -1);
    const target = last && visible(last) ? last : find(lastKey);
    if (target) {
      target.focus({ preventScroll: true });
      if (document.activeElement === target) {
        live.focusRestores += 1;
        last = target;
        lostAt = -1;
        return;
      }
    }
    if (performance.now() - lostAt > 5500) lostAt = -1;
  }
  document.addEventListener(
    "focusout",
    (event) => {
      if (!event.relatedTarget) setTimeout(() => onBody() && lost(), 0);
    },
    true,
  );
  document.addEventListener(
    "keydown",
    (event) => {
      if (event.key === "Escape") setTimeout(() => onBody() && lost(), 50);
    },
    true,
  );

  // ------------------------------------------------------------ the page's markup, as it appears
  const seenBinds = new WeakSet();
  let scanQueued = false;
  function scan() {
    scanQueued = false;
    if (last && !last.isConnected && onBody()) lost(); // a rerun removed the focused control (no focusout then)
    if (lostAt >= 0) rescue(); // the control's successor may just have appeared
    for (const bind of document.querySelectorAll(".vega-bind")) {
      if (!seenBinds.has(bind)) {
        seenBinds.add(bind);
        restore(bind);
      }
      const el = controlOf(bind);
      if (el && el.type === "range" && live.playNames.has(el.name)) addButton(bind, el.name);
    }
    // Code blocks that scroll sideways take focus (axe scrollable-region-focusable).
    // Streamlit makes the block's outer div focusable, but the <pre> inside is what scrolls: the <pre> takes the
    // Tab stop instead (arrow keys scroll it), so the block keeps one stop.
    for (const pre of document.querySelectorAll("[data-testid=stCode] pre:not([data-pe-code])")) {
      pre.setAttribute("data-pe-code", pre.hasAttribute("tabindex") ? "had" : "added"); // the tests read it
      pre.setAttribute("tabindex", "0");
      pre.setAttribute("role", "region");
      pre.setAttribute("aria-label", "Code (scrolls sideways with the arrow keys)");
      const outer = pre.closest("[data-testid=stCode]");
      if (outer && outer.getAttribute("tabindex") === "0") outer.setAttribute("tabindex", "-1");
    }
    // Material icons are decoration: the word beside them carries the meaning. Streamlit 1.67 hides its own
    // element icons, but an icon written in Markdown (":material/check_circle: Holds") is read out as
    // "check_circle icon".
    for (const icon of document.querySelectorAll(
      "[data-testid=stMarkdownContainer] span[role=img][aria-label$=' icon']:not([aria-hidden]), [data-testid=stIconMaterial]:not([aria-hidden])",
    )) {
      const host = icon.closest("button, a, [role=button], [role=tab], [role=link]");
      const rest = host ? host.textContent.replace(icon.textContent, "").trim() : "x";
      if (!host || rest || host.getAttribute("aria-label")) {
        icon.setAttribute("aria-hidden", "true");
        icon.setAttribute("data-pe-icon", ""); // the tests read it
      }
    }
    // The collapsed sidebar is off screen: out of the Tab order too.
    const side = document.querySelector("[data-testid=stSidebar]");
    if (side) {
      const collapsed = side.getAttribute("data-collapsed") === "true" || side.getAttribute("aria-expanded") === "false";
      const want = collapsed && live.sidebarInert;
      if (want && !side.hasAttribute("inert")) side.setAttribute("inert", "");
      if (!want && side.hasAttribute("inert")) side.removeAttribute("inert");
    }
  }
  // A chart redrawing its own marks (vega's svg.marks) adds no input, code block or icon: no scan for that,
  // so a frame of an in-chart slider or of play does not pay three document-wide queries.
  const inMarks = (r) => r.target instanceof Element && r.target.closest("svg.marks");
  function schedule(records) {
    if (scanQueued || (records && records.length && records.every(inMarks))) return;
    scanQueued = true;
    setTimeout(scan, 30);
  }
  live.scan = scan;
  new MutationObserver(schedule).observe(document.body, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ["aria-expanded", "data-collapsed"],
  });
  schedule();
  return live;
}
