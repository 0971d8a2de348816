"""The app's one stylesheet (our own markup, never student text): layout, focus you can see, presentation mode."""

from __future__ import annotations

STYLE = """
<style>
/* Columns stack below ~1,100 px (a projector at 100 %, a tablet), not only on phones. */
@media (max-width: 1100px) {
  [data-testid="stMain"] [data-testid="stHorizontalBlock"] { flex-direction: column; gap: 0.5rem; }
  [data-testid="stMain"] [data-testid="stColumn"] { width: 100% !important; flex: 1 1 100% !important; min-width: 0; }
}
/* Long display formulas wrap at their operators instead of scrolling sideways. */
.katex-display > .katex { white-space: normal; max-width: 100%; }
.katex-display .base { margin: 0.15em 0; }
[data-testid="stMain"] .stVegaLiteChart, [data-testid="stMain"] [data-testid="stVegaLiteChart"] { max-width: 100%; overflow: hidden; }
.pe-share { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.pe-share-btn { font: inherit; padding: 0.35rem 0.8rem; border: 1px solid #1f5fbf; border-radius: 0.5rem;
  background: #ffffff; color: #1f5fbf; cursor: pointer; }
.pe-share-btn:focus-visible { outline: 3px solid #1f5fbf; outline-offset: 2px; }
.pe-share-url { flex: 1 1 14rem; min-width: 0; font: inherit; font-size: 0.85rem; padding: 0.3rem 0.5rem;
  border: 1px solid #595959; border-radius: 0.4rem; color: #222222; }
/* Focus you can see (WCAG 2.4.7, 1.4.11): a 3 px ring, ≥ 3:1 on white and on the sidebar. */
a:focus-visible, button:focus-visible, input:focus-visible, textarea:focus-visible, select:focus-visible,
[role="radio"]:focus-visible, [role="tab"]:focus-visible, [role="slider"]:focus-visible, summary:focus-visible,
[tabindex]:focus-visible, label:has(input:focus-visible) { outline: 3px solid #1f5fbf !important; outline-offset: 2px; }
/* Code (Show the code): syntax colours at ≥ 4.5:1 on the code block's light grey (Streamlit's are not). */
[data-testid="stCode"] .token.comment, [data-testid="stCode"] .token.prolog { color: #4a5361 !important; }
[data-testid="stCode"] .token.function { color: #6b2a8c !important; }
[data-testid="stCode"] .token.number, [data-testid="stCode"] .token.boolean,
[data-testid="stCode"] .token.constant { color: #8a3b00 !important; }
[data-testid="stCode"] .token.string, [data-testid="stCode"] .token.char { color: #1d6330 !important; }
[data-testid="stCode"] .token.keyword { color: #1f4a96 !important; }
[data-testid="stCode"] .token.builtin, [data-testid="stCode"] .token.class-name { color: #8b1d4e !important; }
[data-testid="stCode"] .token.operator, [data-testid="stCode"] .token.punctuation,
[data-testid="stCode"] .token.decorator { color: #303030 !important; }
/* Words on this page (frame.term's definitions): a word, its definition; the one a link pointed to is marked. */
.pe-terms dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.3rem 1rem; margin: 0.5rem 0 1rem; }
.pe-terms dt { font-weight: 600; }
.pe-terms > summary { cursor: pointer; font-weight: 600; min-height: 24px; padding: 0.2rem 0; }
.pe-terms dd { margin: 0; }
.pe-terms dt, .pe-terms dd { scroll-margin-top: 5rem; padding: 0.1rem 0.3rem; border-radius: 0.3rem; }
.pe-terms dt:target, .pe-terms dt:target + dd { background: #fff1b8; }
.pe-terms dt:target::before { content: "→ "; }
@media (max-width: 640px) { .pe-terms dl { grid-template-columns: 1fr; } .pe-terms dd { margin-bottom: 0.5rem; } }
/* The page's lead: the question, a little larger than body text. */
.pe-lead { font-size: 1.1rem; }
/* ---------------- frame.live: in-chart inputs and play buttons ---------------- */
/* The component's own mounts draw nothing: no empty element, no gap. */
.st-key-pe_live, .st-key-pe_present, [class*="st-key-pe_play_"] { display: none !important; }
/* In-chart inputs (Vega's .vega-bind): every target at least 24 × 24 px, on a phone too (WCAG 2.5.8). */
/* (The chart's own selector makes them win over Streamlit's, whose slider is one thumb, 16 px, tall.) */
[data-testid="stVegaLiteChart"] form.vega-bindings .vega-bind label { min-height: 28px; }
[data-testid="stVegaLiteChart"] form.vega-bindings .vega-bind input[type="range"] { height: 28px; min-width: 8em; }
[data-testid="stVegaLiteChart"] form.vega-bindings .vega-bind input[type="radio"],
[data-testid="stVegaLiteChart"] form.vega-bindings .vega-bind input[type="checkbox"] { width: 24px; height: 24px; margin: 0; }
[data-testid="stVegaLiteChart"] form.vega-bindings .vega-bind select { min-height: 32px; min-width: 48px; }
@media (max-width: 640px) {  /* a phone: the label's 8 em reserve would push the slider and its value to new rows */
  [data-testid="stVegaLiteChart"] form.vega-bindings .vega-bind .vega-bind-name { min-width: 0; }
  [data-testid="stVegaLiteChart"] form.vega-bindings .vega-bind input[type="range"] { width: 10em; }
}
/* Play/Pause (a real button before its slider): 32 px tall, the colour of the house's buttons. */
.pe-play { font: inherit; min-height: 32px; min-width: 4.8rem; padding: 0.15rem 0.8rem;
  border: 1px solid #1f5fbf; border-radius: 0.5rem; background: #ffffff; color: #1f5fbf; cursor: pointer; }
.pe-play[aria-pressed="true"] { background: #1f5fbf; color: #ffffff; }
.pe-play:focus-visible { outline: 3px solid #1f5fbf; outline-offset: 2px; }
/* A chart's reading (frame.live.reading_html): read out after the chart, not seen, and no gap in the page. */
[data-testid="stElementContainer"]:has(.pe-reading) { position: absolute !important; width: 1px !important;
  min-width: 0 !important; height: 1px !important; overflow: hidden; clip-path: inset(50%); white-space: nowrap;
  margin: 0; padding: 0; }
/* ---------------- end of frame.live's block ---------------- */
</style>
"""

PRESENT_STYLE = """
<style>
[data-pe-present="1"] [data-testid="stMain"] p,
[data-pe-present="1"] [data-testid="stMain"] li { font-size: 1.15rem; }
/* clear of the 64 px header */
[data-pe-present="1"] [data-testid="stMainBlockContainer"] { padding-top: 4.5rem; max-width: 100%; }
[data-pe-present="1"] [data-testid="stMain"] h1 { font-size: 2rem; padding-top: 0; }
[data-pe-present="1"] [data-testid="stMain"] h2 { font-size: 1.5rem; padding-top: 0.5rem; }
/* frame.live.shown_when: a container for one mode only (both are drawn; the root's mode hides the other). */
[data-pe-present="1"] [class*="st-key-pe-screen-only-"],
:root:not([data-pe-present="1"]) [class*="st-key-pe-projected-only-"],
[data-pe-present="1"] [data-testid="stLayoutWrapper"]:has(> [class*="st-key-pe-screen-only-"]),
:root:not([data-pe-present="1"]) [data-testid="stLayoutWrapper"]:has(> [class*="st-key-pe-projected-only-"]) {
  display: none !important; }  /* the wrapper too: a hidden block's empty wrapper still took the column's gap */
/* In-chart inputs: their names, values and options at the charts' projected 18 px (spec.PRESENT_SIZES). */
[data-pe-present="1"] [data-testid="stVegaLiteChart"] form.vega-bindings .vega-bind,
[data-pe-present="1"] [data-testid="stVegaLiteChart"] form.vega-bindings .vega-bind * { font-size: 18px; }
</style>
"""




def css() -> str:
    """The app's stylesheet: the house style, and presentation mode's, which applies while the document's root
    has ``data-pe-present="1"`` (frame/live.js sets it: the toggle reruns no page)."""
    return STYLE + PRESENT_STYLE
