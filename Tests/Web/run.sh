#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The companion's tests (Tests/Web/test_companion.py): a real tactus-web against a real-time
# simulated box (`simulate --headless --realtime --web`), over real HTTP and in headless
# Chromium. Installs what it needs: Debian's chromium (scripts/install-deps.sh web) and
# Playwright from PyPI, which drives /usr/bin/chromium (no browser download). About 3 min
# on two cores at load 15 (the pages at phone and desktop size and the Songs flows, tests
# 02a-02c, about 60 s of it).
# Run by `make test` after the Swift tests (which build tactus and tactus-web), or alone.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
scripts/install-deps.sh web
# Debian's own python3 refuses pip outside a venv (PEP 668) unless told; a pyenv python does not.
python3 -c 'import playwright' 2>/dev/null || python3 -m pip install -q 'playwright==1.65.2' \
  || python3 -m pip install -q --break-system-packages 'playwright==1.65.2'
for product in tactus tactus-web; do
  [ -x ".build/debug/$product" ] || ${SWIFT:-swift} build --product "$product"
done
python3 Tests/Web/test_companion.py
# Issue 32: the companion on a hostile LAN (raw sockets, SIGKILL, another user; about 80 s).
python3 Tests/Web/test_hostile.py
