"""Config documents: YAML/JSON files read into :class:`Node` trees that remember where
each value was written (file, line, column, path), for the dialects to read.

``read_document`` reads one file safely. Loading a whole suite (files -> dialect -> IR)
is :func:`assay.dialects.load_suite`, a layer above this one.
"""

from __future__ import annotations

from typing import Any

from assay.config.document import read_document
from assay.config.node import Node

__all__ = ["Node", "load_suite", "read_document"]


def __getattr__(name: str) -> Any:
    # ``assay.config.load_suite`` is where callers found it first; the dialects (a layer
    # above, which read these documents) own it now. Imported on first use only, so that
    # importing this package never imports the dialects.
    if name == "load_suite":
        from assay.dialects.load import load_suite

        return load_suite
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
