"""Start an embedded Spark Connect server and run ``run_peers.py`` against it.

For developing the peer adapters on small data without the whole benchmark
(``benchmarks/run.py --peers`` does the same with its own server). Run it with assay's
Python (it starts the server through ``assay.executor.session.open_session``); the peers
runner runs with ``--python`` (default ``benchmarks/.venv-peers/bin/python``)::

    python benchmarks/peers/serve_and_run.py --master 'local[1]' -- \\
        --data benchmarks/data/sf0.01/lineitem.parquet --rules 100 --repeat 1 --warmup 0 \\
        --out /tmp/peers_sf001.json

Everything after ``--`` goes to ``run_peers.py`` unchanged; ``--ui-url`` is added so SQL
executions are counted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=str(HERE.parent / ".venv-peers" / "bin" / "python"))
    ap.add_argument("--master", default="local[*]", help="spark.master of the embedded server")
    ap.add_argument("--script", default=str(HERE / "run_peers.py"),
                    help="what to run against the server (default: run_peers.py)")
    ap.add_argument("rest", nargs=argparse.REMAINDER, help="-- then the arguments of run_peers.py")
    args = ap.parse_args()
    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest

    from assay.executor.session import open_session, quiet_pyspark_logging

    quiet_pyspark_logging()
    with open_session(None, server_conf={"spark.master": args.master}) as handle:
        env = dict(os.environ, SPARK_REMOTE=handle.connect_url)  # token via env, not argv
        cmd = [args.python, args.script, *rest]
        if handle.ui_url and "--ui-url" not in rest and Path(args.script).name == "run_peers.py":
            cmd += ["--ui-url", handle.ui_url]
        sys.stderr.write(f"[serve] server up ({handle.url}, UI {handle.ui_url}); running peers\n")
        return subprocess.run(cmd, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
