"""Config loading: files -> parsed :class:`Node` trees -> a validated IR suite.

``load_suite`` is the entry point; ``read_document`` reads one file safely.
"""

from __future__ import annotations

from assay.config.document import read_document
from assay.config.load import load_suite
from assay.config.node import Node

__all__ = ["Node", "load_suite", "read_document"]
