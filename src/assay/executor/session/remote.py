"""A remote Spark Connect server: the ``sc://`` URL checked, normalised and connected to."""

from __future__ import annotations

import os
import re
import urllib.parse

from assay.errors import ConfigError
from assay.executor.session.client import URL_HINT, connect
from assay.executor.session.handle import SparkHandle
from assay.executor.session.redaction import redact_text, redact_url


def open_remote(url: str, connect_timeout: float) -> SparkHandle:
    """Validate ``url`` and connect to it."""
    normalised = validate_remote_url(url)
    spark = connect(normalised, _url_secrets(normalised), connect_timeout)
    return SparkHandle(
        spark=spark, url=redact_url(normalised), ui_url=None, embedded=False, connect_url=normalised
    )


def validate_remote_url(url: str) -> str:
    """``url`` checked and normalised for pyspark, or ``ConfigError`` quoting it redacted.

    Normalising only percent-encodes ``=`` inside parameter values (base64 tokens), which
    pyspark 4.x would otherwise reject while echoing the token.
    """
    url = url.strip()
    shown = redact_url(url)
    if not url.startswith("sc://"):
        hint = URL_HINT
        if url.startswith("local"):
            hint = "omit --remote and unset SPARK_REMOTE to use the embedded local server"
        raise ConfigError(f"the Spark Connect URL must start with 'sc://': '{shown}'", hint=hint)
    parsed = urllib.parse.urlparse("http" + url[2:])
    try:
        parsed.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise ConfigError(
            f"the Spark Connect URL has an invalid port: '{shown}'", hint=URL_HINT
        ) from None
    if not parsed.hostname or ";" in parsed.netloc:
        raise ConfigError(f"the Spark Connect URL has no host: '{shown}'", hint=URL_HINT)
    if parsed.path not in ("", "/") or parsed.query or parsed.fragment:
        raise ConfigError(
            f"the Spark Connect URL must have no path or query: '{shown}'",
            hint="parameters go after '/;', e.g. sc://host:15002/;use_ssl=true",
        )
    params = _normalise_params(parsed.params, shown)
    return f"sc://{parsed.netloc}/" + "".join(f";{p}" for p in params)


def _normalise_params(params: str, shown: str) -> list[str]:
    """``key=value`` parts of the URL parameters, empty parts dropped, ``=`` in values encoded."""
    out = []
    for part in params.split(";"):
        if not part:
            continue
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise ConfigError(
                f"parameter '{redact_text(key)}' of the Spark Connect URL is not "
                f"key=value: '{shown}'",
                hint=URL_HINT,
            )
        out.append(f"{key}={value.replace('=', '%3D')}")
    return out


def _url_secrets(url: str) -> list[str]:
    """Token values that could appear in pyspark's messages for ``url``."""
    found = [urllib.parse.unquote(m.group(0)[6:]) for m in re.finditer(r"token=[^;]*", url)]
    env_token = os.environ.get("SPARK_CONNECT_AUTHENTICATE_TOKEN")
    return [s for s in [*found, env_token] if s]
