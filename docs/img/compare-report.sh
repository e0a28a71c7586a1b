#!/usr/bin/env bash
# Regenerates docs/img/compare-report.png: two real runs of tests/report/data/compare.yaml (a
# table and two comparisons of a CSV file with a copy that lost, gained and changed rows),
# the first against an earlier copy, reported together (the second run's trends), the
# first comparison screenshot by headless Chromium (apt-get install -y chromium). Run from
# the repository's root:
#   bash docs/img/compare-report.sh
set -euo pipefail
mkdir -p build
config=tests/report/data/compare.yaml
assay run "$config" --var target=tgt-earlier.csv > build/compare-earlier.jsonl || [ $? -eq 1 ]
assay run "$config" > build/compare-run.jsonl || [ $? -eq 1 ]   # exits 1: the copy differs on purpose
assay report build/compare-earlier.jsonl build/compare-run.jsonl \
    --html build/compare-report.html --markdown build/compare-report.md
profile=$(mktemp -d)
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --user-data-dir="$profile" --window-size=1280,1700 \
    --screenshot=docs/img/compare-report.png "file://$PWD/build/compare-report.html#c0" 2>/dev/null
rm -rf "$profile"
echo "wrote docs/img/compare-report.png (from build/compare-report.html, its first comparison)"
