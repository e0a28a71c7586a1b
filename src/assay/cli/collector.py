"""Python's cyclic garbage collector paused while a command starts.

A command's start builds over a million long-lived objects (pyspark's Connect client with
pandas, numpy, pyarrow and gRPC; typer and pydantic; assay's dataclasses, sqlglot), and
the collector, triggered every 700 allocations, scans them again and again as they
pile up: its full collections alone grow with the heap (~40 ms each at the end). A
10-rule ``assay run --remote`` spent ~0.15 s of its ~1.1 CPU s in them
(benchmarks/README.md, Start-up). So the command line (:func:`assay.cli.entry.main`)
pauses the collector first, and resumes it once the run's first event is written (its
first plan has answered) or after :data:`PAUSE_SECONDS`, whichever comes first: what was
built by then is frozen (``gc.freeze``: never scanned again, as it lives as long as the
process), and later garbage is collected as usual. Only the standard library here."""

from __future__ import annotations

import gc
import threading

PAUSE_SECONDS = 10.0
"""The longest the collector stays paused: a start that takes longer (a slow config, a
JVM starting) has its garbage collected from then on."""

_PAUSED: dict[str, threading.Timer | None] = {"timer": None}


def pause() -> None:
    """Pause the collector (when it runs), until :func:`resume` or ``PAUSE_SECONDS``."""
    if not gc.isenabled() or _PAUSED["timer"] is not None:
        return
    gc.disable()
    timer = threading.Timer(PAUSE_SECONDS, resume)
    timer.daemon = True
    timer.name = "assay-gc-resume"
    _PAUSED["timer"] = timer
    timer.start()


def resume() -> None:
    """Freeze what exists and run the collector again (once; no-op when not paused)."""
    timer = _PAUSED["timer"]
    if timer is None or gc.isenabled():
        return
    gc.freeze()
    gc.enable()
    if timer is not threading.current_thread():
        timer.cancel()
