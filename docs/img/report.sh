#!/usr/bin/env bash
# Regenerates docs/img/report.png: a real run of examples/orders.yaml, reported with two
# earlier saved runs of the same config (tests/report/data) as its trends, screenshot by
# headless Chromium (apt-get install -y chromium). Run from the repository's root:
#   bash docs/img/report.sh
set -euo pipefail
mkdir -p build
assay run examples/orders.yaml > build/orders-run.jsonl || [ $? -eq 1 ]   # exits 1: a rule fails on purpose
assay report tests/report/data/orders-2024-01-29.jsonl tests/report/data/orders-2024-01-30.jsonl \
    build/orders-run.jsonl --html build/report.html --markdown build/report.md
profile=$(mktemp -d)
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --user-data-dir="$profile" --window-size=1280,1500 \
    --screenshot=docs/img/report.png "file://$PWD/build/report.html" 2>/dev/null
rm -rf "$profile"
echo "wrote docs/img/report.png (from build/report.html)"
