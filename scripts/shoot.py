"""Screenshot pages of the app in headless Chromium, as a student or a teacher would see them.

    python scripts/shoot.py [--port PORT] [--sizes 1366x768,390x844,1024x768] [--out DIR] PATH[?query] ...
    python scripts/shoot.py --play 6 sinusoids binary rope stretch beyond    # a strip of frames per Play button

Without --port it starts its own server (harness/browser.py). Grows the viewport to the main area's scrollHeight
first, so the picture is the whole page; prints any exception shown on the page, and any chart wider than its
container. Files: DIR/<page>-<width>.png. With --play N it presses each Play button of the page instead and saves
N frames of its chart, 0.4 s apart, side by side: DIR/<page>-play-<param>-<width>.png (a screen recording's
strip, to look at the motion).
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from playwright.sync_api import sync_playwright

from harness.browser import CHROMIUM, CHROMIUM_ARGS, DONE, streamlit_server, wait_charts

ROOT = Path(__file__).resolve().parent.parent

OVERFLOW = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]')].filter(c => {
  const box = c.getBoundingClientRect(); const main = document.querySelector('[data-testid=stMain]').getBoundingClientRect();
  const canvas = c.querySelector('canvas, svg'); const inner = canvas ? canvas.getBoundingClientRect() : box;
  return inner.right > Math.min(box.right, main.right) + 2 || inner.left < box.left - 2;
}).length"""


def play_strips(page, name: str, width: int, frames: int, out: Path) -> None:
    """Press each Play button on the page, grab ``frames`` pictures of its chart while it plays, join them."""
    from PIL import Image

    buttons = page.locator("[data-testid=stMain] button.pe-play")
    for i in range(buttons.count()):
        button = buttons.nth(i)
        param = button.get_attribute("data-param") or str(i)
        chart = button.locator("xpath=ancestor::*[@data-testid='stVegaLiteChart'][1]")
        button.scroll_into_view_if_needed()
        button.click()
        shots = []
        for k in range(frames):
            page.wait_for_timeout(400)
            file = out / f".{name}-{param}-{k}.png"
            chart.screenshot(path=str(file))
            shots.append(Image.open(file))
        button.click()  # pause
        strip = Image.new("RGB", (sum(s.width for s in shots) + 8 * (frames - 1), max(s.height for s in shots)),
                          "white")
        x = 0
        for shot in shots:
            strip.paste(shot, (x, 0))
            x += shot.width + 8
        file = out / f"{name}-play-{param}-{width}.png"
        strip.save(file)
        for k in range(frames):
            (out / f".{name}-{param}-{k}.png").unlink()
        print("saved", file)


def shoot(base: str, paths: list[str], sizes: list[tuple[int, int]], out: Path, play: int = 0) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for width, height in sizes:
            page = browser.new_page(viewport={"width": width, "height": height})
            for path in paths:
                page.goto(f"{base}/{path.lstrip('/')}")
                page.wait_for_selector(DONE, timeout=60000)
                page.wait_for_timeout(1500)
                name = (path.split("?")[0].strip("/") or "home").replace("/", "_")
                if play:
                    wait_charts(page)  # a Play button is drawn with its chart (a cold server's first page is slow)
                    play_strips(page, name, width, play, out)
                    continue
                full = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
                page.set_viewport_size({"width": width, "height": max(height, min(int(full) + 40, 16000))})
                page.wait_for_timeout(800)
                errors = page.locator("[data-testid=stException]")
                for i in range(errors.count()):
                    print("EXCEPTION on", path, ":", errors.nth(i).inner_text()[:2000])
                spill = page.evaluate(OVERFLOW)
                if spill:
                    print(f"{spill} chart(s) wider than their container on {path} at {width}px")
                file = out / f"{name}-{width}.png"
                page.screenshot(path=str(file), full_page=True)
                page.set_viewport_size({"width": width, "height": height})
                print("saved", file)
            page.close()
        browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--port", type=int)
    ap.add_argument("--sizes", default="1366x768")
    ap.add_argument("--out", type=Path, default=ROOT / "artifacts" / "screenshots")
    ap.add_argument("--play", type=int, default=0, metavar="N", help="N frames of each Play button's chart")
    args = ap.parse_args()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    (ROOT / "artifacts").mkdir(exist_ok=True)
    server = contextlib.nullcontext(f"http://127.0.0.1:{args.port}") if args.port else streamlit_server()
    with server as base:
        shoot(base, args.paths, sizes, args.out, args.play)


if __name__ == "__main__":
    main()
