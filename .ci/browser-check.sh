#!/usr/bin/env bash
# Renders an ordinate report in headless Chromium and checks it (see
# .ci/node/check-outputs.mjs browser). Installs Debian's chromium when it is
# missing and we are root. Usage: browser-check.sh REPORT.html WORKDIR
set -euo pipefail
html=$(realpath "$1")
work=$2
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "browser-check: chromium is missing and only root can install it (apt-get install chromium)" >&2
    exit 1
  fi
  echo "browser-check: installing Debian's chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null; }
fi

flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
  --no-first-run --enable-logging=stderr --v=0)
timeout 120 chromium "${flags[@]}" --window-size=1280,8000 --screenshot="$work/report.png" "file://$html" \
  >/dev/null 2>"$work/chromium.log"
timeout 120 chromium "${flags[@]}" --dump-dom "file://$html" >"$work/dom.html" 2>>"$work/chromium.log"
node .ci/node/check-outputs.mjs browser "$work/report.png" "$work/dom.html" "$work/chromium.log"
