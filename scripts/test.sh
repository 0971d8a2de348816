#!/usr/bin/env bash
# Install the test tools (Python packages, Debian's Chromium for the browser tests and Debian's HAProxy for the
# multi-process deployment test) and run every test.
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
python -m pytest "$@"
