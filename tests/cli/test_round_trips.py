"""What ``assay run`` costs before and around its Spark plans, counted, not timed: the
gRPC round trips a 10-rule run makes to the server (read by a proxy between the command
and the server that forwards every call byte for byte and records its method and kind),
and the modules it imports (``python -X importtime``). A round trip or a module added
to a plain run fails here; an intended one updates the counts, saying why."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from collections import Counter
from concurrent import futures
from typing import Any

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.spark

RULES = [
    "{type: not_null, column: id}",
    "{type: range, column: qty, min: 1, max: 50}",
    "{type: accepted_values, column: flag, values: [A, N, R]}",
    "{type: regex, column: mode, pattern: '^[A-Z]+( [A-Z]+)*$'}",
    "{type: unique, columns: [id, line]}",
    "{type: length, column: note, min: 3, max: 12}",  # fails: so the detail plan runs
    "{type: row_count, min: 1}",
    "{type: avg, column: qty, must_be: '>= 1'}",
    "{type: sql, query: 'SELECT count(*) = 0 FROM _validation_df WHERE qty > 2 * line + 60'}",
    "{type: range, column: shipped, min: '1990-01-01', max: '2030-12-31'}",
]
"""The benchmark's first block of ten (benchmarks/suites.py), one of each kind, over a
small table of the same shape."""

ROUND_TRIPS = {
    # the connection's check that the server answers (executor/session/client.py)
    "AnalyzePlan:spark_version": 1,
    # the session's shuffle partitions, bounding the uniqueness group-by (executor/run.py)
    "Config:get:spark.sql.shuffle.partitions": 1,
    # pyspark's own, before its first plan: whether to compress plans
    "Config:get:spark.connect.session.planCompression.threshold": 1,
    # the source's schema (prepare.read_source); the folded SQL rule as written over
    # the table and its condition in the aggregate, together (prepare._rejected_folds)
    "AnalyzePlan:schema": 2,
    # the source's size and columnarity (emit.statistics.scan_facts); the regexes
    # compiled by Java, all in one query (emit.uncompilable_patterns)
    "AnalyzePlan:explain": 2,
    # the aggregate plan, then the detail plan (one rule failed)
    "ExecutePlan": 2,
    # pyspark's own, after each collect: how binary values are returned
    "Config:get_with_default:spark.sql.execution.pyspark.binaryAsBytes": 2,
    "ReleaseSession": 1,
}
"""The round trips of a 10-rule run with one failed rule, by kind. Not counted:
``ReleaseExecute``, pyspark's acknowledgements of a reattachable plan's answers, sent
from a thread of its own as the batches arrive (their number follows the answer's
batches, not the command)."""

NOT_IMPORTED = (
    "jinja2",  # the HTML and Markdown pages: only when one is written
    "markupsafe",
    "assay.report.render",
    "assay.report.model",
    "assay.report.github",  # GitHub Actions: only in a step
    "assay.report.junit",
    "assay.report.openlineage",  # the events: only when lineage is asked for
    "pydantic",  # typer's coercion of options left out (assay.cli.coercion)
)
"""Modules a plain ``assay run`` (no report file, no lineage, outside GitHub Actions)
does not import."""


class CountingProxy:
    """A gRPC server forwarding every call to ``target`` as bytes, recording each call's
    method (with the kind of analysis, the config keys) in ``calls``."""

    def __init__(self, target: str) -> None:
        unbounded = [("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1)]
        import grpc

        self._grpc = grpc
        self.calls: list[str] = []
        self._lock = threading.Lock()
        self._channel = grpc.insecure_channel(target, options=unbounded)
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=8), options=unbounded)
        self._server.add_generic_rpc_handlers((self,))
        self.port = self._server.add_insecure_port("127.0.0.1:0")
        self._server.start()

    def close(self) -> None:
        self._server.stop(None)
        self._channel.close()

    def service(self, details: Any) -> Any:  # grpc.GenericRpcHandler
        grpc, method = self._grpc, details.method

        def metadata(context: Any) -> tuple[tuple[str, str], ...]:
            return tuple(context.invocation_metadata())

        if method.endswith("/AddArtifacts"):

            def stream_in(requests: Any, context: Any) -> Any:
                self._note(method, None)
                return self._channel.stream_unary(method)(requests, metadata=metadata(context))

            return grpc.stream_unary_rpc_method_handler(stream_in)
        if method.endswith(("/ExecutePlan", "/ReattachExecute")):

            def stream_out(request: bytes, context: Any) -> Any:
                self._note(method, request)
                yield from self._channel.unary_stream(method)(request, metadata=metadata(context))

            return grpc.unary_stream_rpc_method_handler(stream_out)

        def unary(request: bytes, context: Any) -> Any:
            self._note(method, request)
            return self._channel.unary_unary(method)(request, metadata=metadata(context))

        return grpc.unary_unary_rpc_method_handler(unary)

    def _note(self, method: str, request: bytes | None) -> None:
        import pyspark.sql.connect.proto as pb

        name = method.rsplit("/", 1)[-1]
        if name == "AnalyzePlan" and request is not None:
            name += ":" + str(pb.AnalyzePlanRequest.FromString(request).WhichOneof("analyze"))
        elif name == "Config" and request is not None:
            operation = pb.ConfigRequest.FromString(request).operation
            kind = str(operation.WhichOneof("op_type"))
            chosen = getattr(operation, kind)
            keys = list(getattr(chosen, "keys", [])) or [
                p.key for p in getattr(chosen, "pairs", [])
            ]
            name += f":{kind}:{keys[0] if keys else ''}"
        with self._lock:
            self.calls.append(name)


@pytest.fixture(scope="module")
def data(spark, tmp_path_factory) -> str:
    import datetime as dt

    path = str(tmp_path_factory.mktemp("round_trips") / "t.parquet")
    rows = [
        (i // 4, i % 4 + 1, 1 + i % 50, "ANR"[i % 3], ["AIR", "REG AIR", "MAIL"][i % 3],
         f"note {i}" if i % 9 else "a much longer note", dt.date(2000, 1, 1) + dt.timedelta(days=i))
        for i in range(400)
    ]  # fmt: skip
    schema = "id long, line int, qty int, flag string, mode string, note string, shipped date"
    spark.createDataFrame(rows, schema).write.parquet(path)
    return path


def test_a_ten_rule_run_makes_the_round_trips_counted_and_imports_no_report(server, data, tmp_path):
    body = "".join(f"      - {r}\n" for r in RULES)
    config = tmp_path / "ten.yaml"
    config.write_text(
        f"tables:\n  - name: t\n    source: {{path: '{data}'}}\n    keys: [id, line]\n"
        f"    rules:\n{body}"
    )
    address = re.match(r"sc://([^/]+)", server.url)
    assert address is not None
    proxy = CountingProxy(address.group(1))
    try:
        url = server.url.replace(address.group(1), f"localhost:{proxy.port}", 1)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "OPENLINEAGE_"))}
        env.update(SPARK_REMOTE=url, ASSAY_NO_WARM_CLIENT="1")
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "assay", "run", str(config)],
            capture_output=True, text=True, timeout=300, cwd=ROOT, env=env,
        )  # fmt: skip
    finally:
        proxy.close()
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert '"passed": false' in proc.stdout.replace('"passed":false', '"passed": false')
    calls = Counter(c for c in proxy.calls if c != "ReleaseExecute")
    assert dict(calls) == ROUND_TRIPS
    imported = _imported(proc.stderr)
    assert "pyspark.sql.connect.session" in imported  # the list is read right
    assert [m for m in NOT_IMPORTED if m in imported] == []


def _imported(stderr: str) -> set[str]:
    """The modules ``-X importtime`` lists."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }


def test_the_proxy_reads_a_config_request():
    """The proxy's reading of a request, without a server: the kind and the first key."""
    import pyspark.sql.connect.proto as pb

    proxy = CountingProxy("127.0.0.1:1")
    try:
        request = pb.ConfigRequest(
            operation=pb.ConfigRequest.Operation(get=pb.ConfigRequest.Get(keys=["a.b"]))
        )
        proxy._note("/spark.connect.SparkConnectService/Config", request.SerializeToString())  # noqa: SLF001
        analyze = pb.AnalyzePlanRequest(spark_version=pb.AnalyzePlanRequest.SparkVersion())
        proxy._note("/spark.connect.SparkConnectService/AnalyzePlan", analyze.SerializeToString())  # noqa: SLF001
    finally:
        proxy.close()
    assert proxy.calls == ["Config:get:a.b", "AnalyzePlan:spark_version"]


@pytest.mark.parametrize(
    ("filter_", "source", "analyses", "error"),
    [
        ("qty > 3", None, 1, None),
        ("qty >>> 3", None, 2, "the filter does not run"),
        ("qty > 3", "/no/such/dir/t.parquet", 2, "cannot read its source"),
    ],
)
def test_a_filtered_table_is_analysed_once(
    server, data, tmp_path, filter_, source, analyses, error
):
    """A table's source and filter are analysed in one schema RPC; only when Spark
    rejects them is the source analysed alone, to say which of the two is at fault."""
    from pyspark.sql.connect.session import SparkSession

    from assay.config import load_suite
    from assay.errors import AssayError
    from assay.executor.prepare import read_source

    config = tmp_path / "filtered.yaml"
    config.write_text(
        f"tables:\n  - name: t\n    source: {{path: '{source or data}'}}\n"
        f"    filter: '{filter_}'\n    rules:\n      - {{type: row_count, min: 1}}\n"
    )
    table = load_suite([str(config)]).tables[0]
    address = re.match(r"sc://([^/]+)", server.url)
    assert address is not None
    proxy = CountingProxy(address.group(1))
    spark = SparkSession.builder.remote(
        server.url.replace(address.group(1), f"localhost:{proxy.port}", 1)
    ).create()
    try:
        before = len(proxy.calls)
        found = read_source(spark, table)
        calls = Counter(proxy.calls[before:])
    finally:
        spark.stop()
        proxy.close()
    assert calls["AnalyzePlan:schema"] == analyses
    if error is None:
        assert not isinstance(found, AssayError)
        assert [name for name, _ in found[1]][:3] == ["id", "line", "qty"]
    else:
        assert isinstance(found, AssayError) and error in found.message
