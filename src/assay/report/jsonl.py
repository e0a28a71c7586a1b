"""The stdout sink: one JSON object per line, written and flushed as events arrive.

:func:`json_line` is the one encoding of a line (the sink, ``Result.to_json_lines`` and
the CLI's own lines use it): orjson's, with the three characters some line splitters
treat as line ends (U+0085, U+2028, U+2029: Python's ``str.splitlines``, JavaScript
before ES2019) written as ``\\u`` escapes, so a line of the stream is always one event.
"""

from __future__ import annotations

import sys
import threading
from typing import IO, Any

import orjson

# In UTF-8 these byte sequences only ever encode these characters (a lead byte never
# follows a lead byte), and JSON can only hold them inside strings, where an escape is
# the same character.
_LINE_BREAKERS = (
    (b"\xc2\x85", b"\\u0085"),
    (b"\xe2\x80\xa8", b"\\u2028"),
    (b"\xe2\x80\xa9", b"\\u2029"),
)


def json_line(obj: Any) -> bytes:
    """``obj`` as one JSON line (with its newline).

    >>> json_line({"s": "a\\u2028b\\x85"})
    b'{"s":"a\\\\u2028b\\\\u0085"}\\n'
    """
    line = orjson.dumps(obj, option=orjson.OPT_APPEND_NEWLINE, default=str)
    for raw, escaped in _LINE_BREAKERS:
        if raw in line:
            line = line.replace(raw, escaped)
    return line


class JsonLinesSink:
    """Writes events as JSON lines to a binary stream (stdout by default), thread-safe."""

    def __init__(self, stream: IO[bytes] | None = None):
        self._stream = stream if stream is not None else sys.stdout.buffer
        self._lock = threading.Lock()

    def __call__(self, event: Any) -> None:
        line = json_line(event.to_dict())
        with self._lock:
            self._stream.write(line)
            self._stream.flush()
