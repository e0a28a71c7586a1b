"""Work run beside the caller's: a thread of its own whose round trips to the server are
in flight while the caller asks its own, its result or exception kept for the caller."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")


def beside(work: Callable[[], T], name: str = "assay-beside") -> Future[T]:
    """``work`` run in a daemon thread named ``name``; its result, or the exception it
    raised, read from the future where the caller needs it."""
    done: Future[T] = Future()

    def run() -> None:
        try:
            done.set_result(work())
        except BaseException as exc:  # noqa: BLE001 - raised where the result is read
            done.set_exception(exc)

    threading.Thread(target=run, name=name, daemon=True).start()
    return done
