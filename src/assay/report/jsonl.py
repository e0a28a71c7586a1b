"""The stdout sink: one JSON object per line, written and flushed as events arrive."""

from __future__ import annotations

import sys
import threading
from typing import IO, Any

import orjson


class JsonLinesSink:
    """Writes events as JSON lines to a binary stream (stdout by default), thread-safe."""

    def __init__(self, stream: IO[bytes] | None = None):
        self._stream = stream if stream is not None else sys.stdout.buffer
        self._lock = threading.Lock()

    def __call__(self, event: Any) -> None:
        line = orjson.dumps(event.to_dict(), option=orjson.OPT_APPEND_NEWLINE, default=str)
        with self._lock:
            self._stream.write(line)
            self._stream.flush()
