"""Which settings hold secrets, by their name: the one rule every place that shows a
variable, a Spark setting or a source option follows (logs, events, reports, ``assay
server status``). Their values are shown as ``***``.

A name looks secret when it contains ``secret``, ``password``, ``passwd``, ``credential``
or ``token`` anywhere, or has ``key`` or ``auth`` (``authorization``, ``authentication``,
``authenticate``) as one of its words: words are split at ``.``, ``_``, ``-``, spaces
and a lower-case letter followed by an upper-case one (``apiKey``).

>>> [n for n in ("password", "db_passwd", "spark.hadoop.fs.s3a.secret.key",
...     "fs.s3a.access.key", "api_key", "apiKey", "AWS_SESSION_TOKEN", "credentials_file",
...     "auth", "http.authorization") if looks_secret(n)] == [
...     "password", "db_passwd", "spark.hadoop.fs.s3a.secret.key", "fs.s3a.access.key",
...     "api_key", "apiKey", "AWS_SESSION_TOKEN", "credentials_file", "auth",
...     "http.authorization"]
True
>>> [n for n in ("keys", "monkey", "author", "user", "spark.sql.shuffle.partitions",
...     "region", "keyspace") if looks_secret(n)]
[]
"""

from __future__ import annotations

import re

REDACTED = "***"

_ANYWHERE = re.compile(r"(?i)secret|password|passwd|credential|token")
_WORDS = re.compile(r"[._\-\s]+|(?<=[a-z0-9])(?=[A-Z])")
_SECRET_WORDS = frozenset(
    {"key", "apikey", "auth", "authorization", "authentication", "authenticate"}
)


def looks_secret(name: str) -> bool:
    """Whether ``name`` (a variable's, a setting's, an option's) names a secret."""
    if _ANYWHERE.search(name):
        return True
    return any(word.lower() in _SECRET_WORDS for word in _WORDS.split(name))


def shown(name: str, value: str) -> str:
    """``value`` as it may be shown: :data:`REDACTED` when ``name`` looks secret."""
    return REDACTED if looks_secret(name) else value
