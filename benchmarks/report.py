"""Render benchmark JSON files as the Markdown tables of benchmarks/README.md.

    python benchmarks/report.py benchmarks/results/sf1.json [more.json ...]

Rows come in file order; a suite measured in several files appears once per file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ORDER = ("floor", "handwritten", "naive", "assay_api", "assay_cli")


def results_table(documents: list[dict[str, Any]]) -> str:
    lines = [
        "| rules | strategy | seconds (median) | × floor | × assay | SQL executions | server s | other cores (max) | verdicts |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for doc in documents:
        rows = sorted(doc.get("results", []),
                      key=lambda r: (r["suite"], ORDER.index(r["strategy"])
                                     if r["strategy"] in ORDER else 99))
        for r in rows:
            if r.get("error") and r.get("seconds") is None:
                lines.append(f"| {r['suite']} | {r['strategy']} | error | | | | | | "
                             f"{r['error'][:80]} |")
                continue
            others = [v for v in r.get("other_cores_runs") or [] if v is not None]
            verdict = ""
            if r.get("failed_rules") is not None:
                same = r.get("verdicts_match_handwritten", True)
                verdict = f"{len(r['failed_rules'])} failing" + ("" if same else ", DIFFER")
            lines.append(
                f"| {r['suite']} | {r['strategy']} | {r['seconds']:.2f} | {_num(r.get('ratio_floor'))}"
                f" | {_num(r.get('ratio_assay'))} | {r.get('sql_executions', '')}"
                f" | {_num(r.get('server_seconds'))} | {max(others) if others else ''} | {verdict} |")
    return "\n".join(lines)


def _num(value: Any) -> str:
    return "" if value is None else f"{value:.2f}"


def main(paths: list[str]) -> int:
    documents = [json.loads(Path(p).read_text()) for p in paths]
    print(results_table(documents))
    for doc in documents:
        env = doc.get("environment", {})
        source = doc.get("assay_source") or {}
        print(f"\n{doc.get('benchmark')} {env.get('date')}: SF{env.get('scale'):g}, "
              f"{env.get('rows')} rows, Spark {env.get('spark')}, {env.get('cpus')} CPUs, "
              f"repeat {env.get('repeat')}, assay source {source.get('sha256')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
