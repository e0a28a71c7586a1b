"""Where a run's OpenLineage events go (:class:`Lineage`) and the POST of each to an
OpenLineage HTTP endpoint (Marquez, DataHub...), as openlineage-python's ``HttpTransport``
sends them: ``urljoin(url, "api/v1/lineage")``, ``Content-Type: application/json``,
``Authorization: Bearer $OPENLINEAGE_API_KEY``, a bounded timeout.

The client's environment is honoured: ``OPENLINEAGE_URL`` (the URL when
``--openlineage-url`` is not given), ``OPENLINEAGE_ENDPOINT``, ``OPENLINEAGE_API_KEY``,
``OPENLINEAGE_NAMESPACE`` (the job namespace without ``--openlineage-namespace``) and
``OPENLINEAGE_DISABLED=true`` (no POST from the environment's URL).
"""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

import orjson

from assay.errors import ConfigError

DEFAULT_NAMESPACE = "assay"
"""The jobs' namespace without ``--openlineage-namespace`` or ``OPENLINEAGE_NAMESPACE``
(declared here, not beside the events of :mod:`assay.report.openlineage`, so that a run
reading its lineage options imports none of the report's model)."""

ENDPOINT = "api/v1/lineage"
"""The client's default endpoint, joined to the URL (``OPENLINEAGE_ENDPOINT`` overrides)."""
TIMEOUT = 5.0
"""Seconds one POST may take (the client's default ``timeout``)."""
ANSWER = 300
"""Characters of an endpoint's error answer a message quotes."""


@dataclass(frozen=True)
class Lineage:
    """Where the OpenLineage events of a run go: a JSON-lines file (``path``), an HTTP
    endpoint (``url``), or both; ``namespace`` is the jobs' namespace."""

    namespace: str = DEFAULT_NAMESPACE
    path: str | None = None
    url: str | None = None
    endpoint: str = ENDPOINT
    api_key: str | None = field(default=None, repr=False)
    timeout: float = TIMEOUT

    @property
    def target(self) -> str | None:
        """The URL the events are POSTed to."""
        return None if self.url is None else urljoin(self.url, self.endpoint)


def lineage_of(
    path: str | None, url: str | None, namespace: str | None, environ: Mapping[str, str]
) -> Lineage | None:
    """The lineage output of the options and the environment, ``None`` without one.

    Raises:
        ConfigError: the URL is not an ``http(s)://host`` URL (exit 2, before anything ran).
    """
    disabled = environ.get("OPENLINEAGE_DISABLED", "").strip().lower() == "true"
    from_env = None if disabled else (environ.get("OPENLINEAGE_URL") or None)
    given = url or from_env
    if path is None and given is None:
        return None
    if given is not None:
        parts = urlsplit(given.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            what = "--openlineage-url" if url else "OPENLINEAGE_URL"
            raise ConfigError(
                f"{what} {given!r} is not an HTTP URL",
                hint="give the OpenLineage server's base URL, e.g. http://marquez:5000 "
                "(events are POSTed to its /api/v1/lineage)",
            )
    return Lineage(
        namespace=namespace or environ.get("OPENLINEAGE_NAMESPACE") or DEFAULT_NAMESPACE,
        path=path,
        url=None if given is None else given.strip(),
        endpoint=environ.get("OPENLINEAGE_ENDPOINT") or ENDPOINT,
        api_key=environ.get("OPENLINEAGE_API_KEY") or None,
    )


class LineageFailure(RuntimeError):
    """An event could not be delivered; the message says which and why."""


def post_events(events: Sequence[dict[str, Any]], lineage: Lineage) -> None:
    """POST each event, in order; stop at the first the endpoint does not take.

    Raises:
        LineageFailure: the endpoint refused an event, answered an error, or did not
            answer within the timeout; the message counts the events it took.
    """
    target = lineage.target
    assert target is not None
    headers = {"Content-Type": "application/json"}
    if lineage.api_key:
        headers["Authorization"] = f"Bearer {lineage.api_key}"
    for sent, event in enumerate(events):
        request = urllib.request.Request(
            target, data=orjson.dumps(event), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=lineage.timeout) as answer:
                answer.read()
        except (OSError, ValueError, http.client.HTTPException) as e:
            taken = f"{sent} of {len(events)} events were sent"
            raise LineageFailure(f"POST {target}: {_why(e, lineage.timeout)} ({taken})") from None


def _why(error: Exception, timeout: float) -> str:
    """A failed POST in words: the HTTP status and the start of the answer, the refused
    connection, or the timeout."""
    if isinstance(error, urllib.error.HTTPError):
        body = error.read().decode("utf-8", "replace").strip() if error.fp else ""
        body = " ".join(body.split())[:ANSWER]
        return f"the server answered HTTP {error.code} {error.reason}" + (
            f": {body}" if body else ""
        )
    reason = error.reason if isinstance(error, urllib.error.URLError) else error
    if isinstance(reason, TimeoutError):
        return f"no answer within {timeout:g} s"
    if isinstance(reason, ConnectionRefusedError):
        return "the connection was refused (is the OpenLineage server running at that URL?)"
    return f"cannot reach it: {reason}"
