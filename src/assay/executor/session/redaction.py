"""Redaction: no message from a session contains a connection token or a URL password,
and no line that shows a command (the warm client's log) the value of a variable or a
setting whose name looks secret (:mod:`assay.ir.secrets`)."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Sequence

from assay.ir.secrets import REDACTED, looks_secret

_TOKEN_RE = re.compile(r"(?i)(token=)[^;&\s'\"]*")


_USERINFO_RE = re.compile(r"(://[^/@:\s;'\"]*):[^/@\s'\"]*@")


_BEARER_RE = re.compile(r"(?i)(bearer\s+)[^\s'\"]+")


_ASSIGNED_RE = re.compile(r"(?<![\w.\-])([A-Za-z_][\w.\-]*)=([^\s;&,'\"]*)")
"""``name=value`` in a text: a ``--var`` or a ``--conf`` (one of ``--vars a=1,b=2``)."""


_ITEM_RE = re.compile(r"((?:--[\w-]+=)?([A-Za-z_][\w.\-]*)=)(.*)", re.S)
"""A command-line item that is one assignment: ``password=...``, ``--var=password=...``."""


def redact_url(url: str) -> str:
    """``url`` with the ``token=`` value and any ``user:password@`` password replaced by ``***``.

    >>> redact_url("sc://h:1/;token=abc=;x=1")
    'sc://h:1/;token=***;x=1'
    >>> redact_url("sc://me:pw@h:1")
    'sc://me:***@h:1'
    """
    return redact_text(url)


def redact_text(text: str, secrets_: Iterable[str] = ()) -> str:
    """``text`` with every value in ``secrets_`` (and its URL-quoted form), every
    ``token=...`` value, URL password and bearer token replaced by ``***``."""
    for secret in secrets_:
        if secret:
            text = text.replace(secret, "***").replace(urllib.parse.quote(secret, safe=""), "***")
    text = _TOKEN_RE.sub(r"\1***", text)
    text = _USERINFO_RE.sub(r"\1:***@", text)
    text = _ASSIGNED_RE.sub(_assigned, text)
    return _BEARER_RE.sub(r"\1***", text)


def _assigned(found: re.Match[str]) -> str:
    name = found[1]
    return f"{name}={REDACTED}" if looks_secret(name) else found[0]


def redact_command(argv: Sequence[str]) -> str:
    """A command line as a log shows it: an item that assigns a secret-looking name
    (``--var password=x``, ``--conf spark.hadoop.fs.s3a.secret.key=x``) has its whole
    value redacted, spaces included; every item is redacted as :func:`redact_text` does.

    >>> redact_command(["run", "c.yaml", "--var", "db_password=a b", "--var", "day=1"])
    'run c.yaml --var db_password=*** --var day=1'
    >>> redact_command(["--conf=spark.hadoop.fs.s3a.secret.key=k", "--vars", "u=me,apiKey=k"])
    '--conf=spark.hadoop.fs.s3a.secret.key=*** --vars u=me,apiKey=***'
    """
    shown = []
    for item in map(str, argv):
        found = _ITEM_RE.fullmatch(item)
        if found is not None and looks_secret(found[2]):
            shown.append(found[1] + REDACTED)
        else:
            shown.append(redact_text(item))
    return " ".join(shown)
