#!/usr/bin/env bash
# Opens an attn-tune HTML report (attn-tune report ... --out REPORT.html) in
# headless Chromium with the network cut off, fails when the page logs a
# console error or tries to load anything, checks the rendered DOM has the
# report's tables and charts, and writes a screenshot.
#
#   scripts/report-screenshot.sh REPORT.html [OUT.png] [WIDTH] [HEIGHT]
#
# Needs Chromium (Debian: apt-get install -y chromium). Not part of CI, which
# checks the HTML without a browser (tests/export/test_report.cpp).

# -h, --help: the opening comment, before any work
case "${1:-}" in
  -h | --help) awk 'NR > 1 && !/^#( |$)/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
esac
set -euo pipefail

if [ $# -lt 1 ]; then
  sed -n '2,9p' "$0" >&2
  exit 2
fi
html=$(realpath "$1")
png=${2:-${html%.html}.png}
width=${3:-1440}
height=${4:-2200}

chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chromium" ]; then
  echo "report-screenshot: no Chromium found (Debian: apt-get install -y chromium)" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Every host resolves to nothing and every proxy is refused: a report that
# needs the network shows it as an error below.
flags=(--headless=new --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --disable-extensions
       --user-data-dir="$work/profile" --host-resolver-rules="MAP * ~NOTFOUND" --proxy-server="127.0.0.1:9"
       --enable-logging=stderr --v=0 --virtual-time-budget=3000 --window-size="$width,$height")

"$chromium" "${flags[@]}" --dump-dom "file://$html" > "$work/dom.html" 2> "$work/dom.log"
"$chromium" "${flags[@]}" --screenshot="$png" "file://$html" > /dev/null 2> "$work/shot.log"

status=0
# Console messages from the page, failed loads, blocked requests.
if grep -E 'CONSOLE|Uncaught|net::ERR_|Failed to load|Refused to' "$work/dom.log" "$work/shot.log"; then
  echo "report-screenshot: the page logged errors or tried to load something (above)" >&2
  status=1
fi
svgs=$(grep -o '<svg' "$work/dom.html" | wc -l)
tables=$(grep -o '<table' "$work/dom.html" | wc -l)
if ! grep -q '</html>' "$work/dom.html" || [ "$svgs" -lt 1 ] || [ "$tables" -lt 1 ]; then
  echo "report-screenshot: the rendered page is missing its charts or tables ($svgs svg, $tables table)" >&2
  status=1
fi
if [ ! -s "$png" ]; then
  echo "report-screenshot: no screenshot written" >&2
  status=1
fi
echo "report-screenshot: $html rendered: $svgs charts, $tables tables; screenshot $png (${width}x${height})"
exit $status
