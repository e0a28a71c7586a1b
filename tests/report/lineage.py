"""Helpers of the OpenLineage tests: an OpenLineage HTTP endpoint on loopback that keeps
what it is sent, and validation against the spec's published JSON Schemas.

The schemas are the OpenLineage repository's ``spec/OpenLineage.json`` (2-0-2) and
``spec/facets/{DataQualityAssertionsDatasetFacet (1-1-0), DataQualityMetricsInputDatasetFacet
(1-0-3), ErrorMessageRunFacet (1-0-1), JobTypeJobFacet (2-0-4)}.json``, read from the
directory ``$ASSAY_OPENLINEAGE_SPEC``, else ``shared/reference/openlineage/`` beside the
checkout; the tests that need them skip, saying so, when they are not there.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

from tests.conftest import ROOT

SPEC = Path(
    os.environ.get("ASSAY_OPENLINEAGE_SPEC") or ROOT.parent / "shared/reference/openlineage"
)
FACET_FILES = {
    "dataQualityAssertions": "DataQualityAssertionsDatasetFacet.json",
    "dataQualityMetrics": "DataQualityMetricsInputDatasetFacet.json",
    "errorMessage": "ErrorMessageRunFacet.json",
    "jobType": "JobTypeJobFacet.json",
}
"""The schema of each facet the events carry, by its key."""


# --- the endpoint -------------------------------------------------------------------------


@dataclass
class Endpoint:
    """A loopback OpenLineage server: ``url`` to give assay, ``received`` the POSTs (path,
    headers, body as JSON) in the order they came."""

    url: str
    received: list[tuple[str, dict[str, str], Any]] = field(default_factory=list)

    @property
    def bodies(self) -> list[Any]:
        return [body for _, _, body in self.received]


@contextlib.contextmanager
def endpoint(status: int = 201, answer: bytes = b"", delay: float = 0.0) -> Iterator[Endpoint]:
    """An HTTP server on 127.0.0.1 (a free port) answering every POST with ``status``
    (Marquez answers 201) and ``answer``, after ``delay`` seconds."""
    found = Endpoint("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            found.received.append((self.path, dict(self.headers.items()), json.loads(body)))
            time.sleep(delay)
            self.send_response(status)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            """Quiet: the test asserts what came."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    found.url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield found
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def refused_url() -> str:
    """A loopback URL nothing listens on (a port just freed)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# --- the schemas --------------------------------------------------------------------------

CHECKER = FormatChecker()


@CHECKER.checks("uri")
def _uri(value: object) -> bool:
    """An absolute URI: a scheme, then an authority or a path."""
    if not isinstance(value, str):
        return True
    parts = urlsplit(value)
    return bool(parts.scheme) and bool(parts.netloc or parts.path)


@CHECKER.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    """RFC 3339: a date, a time and an offset (checked here, not by an optional package)."""
    if not isinstance(value, str):
        return True
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00")).tzinfo is not None


@dataclass(frozen=True)
class Schemas:
    """The spec's schemas, cross-file ``$ref``s resolved by a ``referencing`` registry."""

    registry: Registry
    by_file: dict[str, dict[str, Any]]

    def validator(self, schema: str | dict[str, Any]) -> Draft202012Validator:
        """A validator of a file of the spec, or of a schema referring to them."""
        given = self.by_file[schema] if isinstance(schema, str) else schema
        return Draft202012Validator(given, registry=self.registry, format_checker=CHECKER)

    def errors(self, event: dict[str, Any]) -> list[str]:
        """Every way ``event`` breaks the spec: as a ``RunEvent`` (each error on its own:
        the whole spec's ``oneOf`` would say only that it fits none), as an event of the
        spec, then each facet against its own schema."""
        run_event = {"$ref": f"{self.by_file['OpenLineage.json']['$id']}#/$defs/RunEvent"}
        found = [e.message for e in self.validator(run_event).iter_errors(event)]
        found = found or [e.message for e in self.validator("OpenLineage.json").iter_errors(event)]
        for key, facet in facets_of(event):
            check = self.validator(FACET_FILES[key])
            found += [f"{key}: {e.message}" for e in check.iter_errors({key: facet})]
        return found


def facets_of(event: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every facet of an event: the run's, the job's and each input's."""
    yield from (event["run"].get("facets") or {}).items()
    yield from (event["job"].get("facets") or {}).items()
    for dataset in event.get("inputs") or ():
        yield from (dataset.get("inputFacets") or {}).items()


def load_schemas() -> Schemas:
    """The schemas of :data:`SPEC`, or a skip naming where they are looked for."""
    wanted = ["OpenLineage.json", *FACET_FILES.values()]
    missing = [f for f in wanted if not (SPEC / f).is_file()]
    if missing:
        pytest.skip(
            f"the OpenLineage spec's schemas are not in {SPEC} (missing {', '.join(missing)}); "
            "set ASSAY_OPENLINEAGE_SPEC to a directory holding them"
        )
    by_file = {f: json.loads((SPEC / f).read_text(encoding="utf-8")) for f in wanted}
    registry: Registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in by_file.values()
    )
    return Schemas(registry, by_file)
