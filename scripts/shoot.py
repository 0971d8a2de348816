"""Screenshot pages of the app in headless Chromium, as a student or a teacher would see them.

    python scripts/shoot.py [--port PORT] [--sizes 1366x768,390x844,1024x768] [--out DIR] PATH[?query] ...

Without --port it starts its own server (bench/browser.py). Grows the viewport to the main area's scrollHeight
first, so the picture is the whole page; prints any exception shown on the page, and any chart wider than its
container. Files: DIR/<page>-<width>.png.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from playwright.sync_api import sync_playwright

from bench.browser import CHROMIUM, CHROMIUM_ARGS, DONE, streamlit_server

ROOT = Path(__file__).resolve().parent.parent

OVERFLOW = """() => [...document.querySelectorAll('[data-testid=stMain] [data-testid=stVegaLiteChart]')].filter(c => {
  const box = c.getBoundingClientRect(); const main = document.querySelector('[data-testid=stMain]').getBoundingClientRect();
  const canvas = c.querySelector('canvas, svg'); const inner = canvas ? canvas.getBoundingClientRect() : box;
  return inner.right > Math.min(box.right, main.right) + 2 || inner.left < box.left - 2;
}).length"""


def shoot(base: str, paths: list[str], sizes: list[tuple[int, int]], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for width, height in sizes:
            page = browser.new_page(viewport={"width": width, "height": height})
            for path in paths:
                page.goto(f"{base}/{path.lstrip('/')}")
                page.wait_for_selector(DONE, timeout=60000)
                page.wait_for_timeout(1500)
                full = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
                page.set_viewport_size({"width": width, "height": max(height, min(int(full) + 40, 16000))})
                page.wait_for_timeout(800)
                errors = page.locator("[data-testid=stException]")
                for i in range(errors.count()):
                    print("EXCEPTION on", path, ":", errors.nth(i).inner_text()[:2000])
                spill = page.evaluate(OVERFLOW)
                if spill:
                    print(f"{spill} chart(s) wider than their container on {path} at {width}px")
                name = (path.split("?")[0].strip("/") or "home").replace("/", "_")
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
    args = ap.parse_args()
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    (ROOT / "artifacts").mkdir(exist_ok=True)
    server = contextlib.nullcontext(f"http://127.0.0.1:{args.port}") if args.port else streamlit_server()
    with server as base:
        shoot(base, args.paths, sizes, args.out)


if __name__ == "__main__":
    main()
