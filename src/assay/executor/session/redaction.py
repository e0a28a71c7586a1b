"""Redaction: no message from a session contains a connection token or a URL password."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable

_TOKEN_RE = re.compile(r"(?i)(token=)[^;&\s'\"]*")


_USERINFO_RE = re.compile(r"(://[^/@:\s;'\"]*):[^/@\s'\"]*@")


_BEARER_RE = re.compile(r"(?i)(bearer\s+)[^\s'\"]+")


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
    return _BEARER_RE.sub(r"\1***", text)
