#!/usr/bin/env bash
# Install the test tools (Python packages, Debian's Chromium for the browser tests and Debian's HAProxy for the
# multi-process deployment test, axe-core from npm for the accessibility test) and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q --disable-pip-version-check -r requirements-test.txt
if [ ! -x /usr/bin/chromium ]; then
  echo "Installing Debian's chromium for the browser tests..."
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null;
  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi
fi
/usr/bin/chromium --version   # fail here, not skip later, if the browser is still missing
if [ ! -x /usr/sbin/haproxy ]; then
  echo "Installing Debian's haproxy for the deployment test..."
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq haproxy >/dev/null;
  else sudo apt-get update -qq && sudo apt-get install -y -qq haproxy >/dev/null; fi
fi
/usr/sbin/haproxy -v             # fail here, not skip later, if haproxy is still missing
mkdir -p artifacts
if [ ! -s artifacts/axe.min.js ]; then
  echo "Fetching axe-core (npm) for the accessibility test..."
  axe_tmp="$(mktemp -d)"
  (cd "$axe_tmp" && npm pack --silent axe-core@4 >/dev/null && tar -xzf axe-core-*.tgz package/axe.min.js)
  cp "$axe_tmp/package/axe.min.js" artifacts/axe.min.js
  rm -rf "$axe_tmp"
fi
test -s artifacts/axe.min.js     # fail here, not skip later, if axe-core could not be fetched
python -m pytest "$@"
