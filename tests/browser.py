from bench.browser import *  # noqa: F401,F403  (moved to bench/browser.py; the tests will import it from there)
