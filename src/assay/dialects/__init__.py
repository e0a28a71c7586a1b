"""Config dialects: front ends that turn a parsed document into IR tables.

:data:`DIALECTS` is the registry (name -> :class:`Dialect`); :func:`detect` picks the
first dialect whose shape a document has, trying the native format last;
:func:`load_suite` reads config files into one suite, each file in its dialect.
"""

from __future__ import annotations

from assay.dialects.base import Context, Dialect, LoadOptions
from assay.dialects.load import load_suite
from assay.dialects.registry import DIALECTS, detect, get

__all__ = ["DIALECTS", "Context", "Dialect", "LoadOptions", "detect", "get", "load_suite"]
