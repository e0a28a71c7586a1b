"""Config dialects: front ends that turn a parsed document into IR tables.

:data:`DIALECTS` is the registry (name -> :class:`Dialect`), in detection order;
:func:`detect` picks the first dialect whose shape a document has.
"""

from __future__ import annotations

from assay.config.node import Node, describe, unknown_message
from assay.dialects import native
from assay.dialects.base import Context, Dialect
from assay.errors import ConfigError

__all__ = ["DIALECTS", "Context", "Dialect", "detect", "get"]

DIALECTS: dict[str, Dialect] = {
    native.DIALECT.name: native.DIALECT,
}


def detect(doc: Node) -> str:
    """The name of the first dialect that recognises ``doc``.

    Raises:
        ConfigError: no dialect does; the message lists the shapes expected.
    """
    for name, dialect in DIALECTS.items():
        if dialect.matches(doc):
            return name
    shapes = "; or ".join(d.shape for d in DIALECTS.values())
    if not isinstance(doc.value, dict):
        raise doc.error(f"expected {shapes}; got {describe(doc.value)} at the root")
    keys = ", ".join(f"'{k}'" for k in doc.as_mapping()) or "no keys"
    raise doc.error(f"cannot tell the config format: expected {shapes}; got {keys}")


def get(name: str) -> Dialect:
    """The dialect called ``name``.

    Raises:
        ConfigError: no such dialect (with did-you-mean).
    """
    if name not in DIALECTS:
        raise ConfigError(unknown_message("dialect", name, DIALECTS))
    return DIALECTS[name]
