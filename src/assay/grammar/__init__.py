"""Lark grammars for the small languages inside config strings, and their IR builders.

* thresholds (``must_be``/``warn``): ``> 0``, ``< 5%``, ``<= 2h``, ``between 10 and 20``;
* tolerances (row-level ``threshold``): ``1000``, ``0.25``, ``33%``;
* templates: ``$name``, ``${name}`` and ``$$`` inside any config string.

Importing this package imports lark (not ``import assay`` itself); parsers are built on first use.
"""

from __future__ import annotations

from assay.grammar.parser import (
    parse_template,
    parse_threshold,
    parse_tolerance,
    references,
    substitute,
)
from assay.grammar.transformers import VarRef

__all__ = [
    "VarRef",
    "parse_template",
    "parse_threshold",
    "parse_tolerance",
    "references",
    "substitute",
]
