"""Screenshot pages of a running app in headless Chromium: python scripts/shoot.py PORT PATH[?query] OUT.png [...]

Waits for the script run to finish; prints any exception text shown on the page.
"""

import sys

from playwright.sync_api import sync_playwright

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def shoot(port: int, jobs: list[tuple[str, str]], width: int = 1400, height: int = 900) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        for path, out in jobs:
            page.goto(f"http://127.0.0.1:{port}/{path.lstrip('/')}")
            page.wait_for_selector("[data-testid=stApp][data-test-script-state=notRunning]", timeout=60000)
            page.wait_for_timeout(1500)
            full = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
            page.set_viewport_size({"width": width, "height": max(height, min(int(full) + 40, 12000))})
            page.wait_for_timeout(800)
            errors = page.locator("[data-testid=stException]")
            for i in range(errors.count()):
                print("EXCEPTION on", path, ":", errors.nth(i).inner_text()[:2000])
            page.screenshot(path=out, full_page=True)
            page.set_viewport_size({"width": width, "height": height})
            print("saved", out)
        browser.close()


if __name__ == "__main__":
    port = int(sys.argv[1])
    rest = sys.argv[2:]
    shoot(port, list(zip(rest[0::2], rest[1::2])))
