"""The registry of config dialects: name -> :class:`Dialect`, and :func:`detect`."""

from __future__ import annotations

from assay.config.node import Node, describe, unknown_message
from assay.dialects import (
    data_validator,
    dqx,
    embedded,
    great_expectations,
    metorikku,
    native,
    odcs,
    soda,
    spark_data_test,
    sparquet,
)
from assay.dialects.base import Dialect
from assay.errors import ConfigError

assert embedded.READERS  # native rules in a dialect's words (docs/config.md)

DIALECTS: dict[str, Dialect] = {
    native.DIALECT.name: native.DIALECT,
    data_validator.DIALECT.name: data_validator.DIALECT,
    metorikku.DIALECT.name: metorikku.DIALECT,
    sparquet.DIALECT.name: sparquet.DIALECT,
    spark_data_test.DIALECT.name: spark_data_test.DIALECT,
    great_expectations.DIALECT.name: great_expectations.DIALECT,
    soda.DIALECT.name: soda.DIALECT,
    dqx.DIALECT.name: dqx.DIALECT,
    odcs.DIALECT.name: odcs.DIALECT,
}


def detect(doc: Node) -> str:
    """The name of the first dialect that recognises ``doc``.

    Raises:
        ConfigError: no dialect does; the message lists the shapes expected.
    """
    # The native format last: its shape test is lenient (a malformed native file is still
    # recognised, so that its errors can be explained), the others' are specific.
    for name in (*(n for n in DIALECTS if n != "native"), "native"):
        if DIALECTS[name].matches(doc):
            return name
    shapes = "; or ".join(d.shape for d in DIALECTS.values())
    hint = "force a format with --dialect " + "|".join(DIALECTS)
    if not isinstance(doc.value, dict):
        raise doc.error(f"expected {shapes}; got {describe(doc.value)} at the root", hint)
    keys = ", ".join(f"'{k}'" for k in doc.as_mapping()) or "no keys"
    raise doc.error(f"cannot tell the config format: expected {shapes}; got {keys}", hint)


def get(name: str) -> Dialect:
    """The dialect called ``name``.

    Raises:
        ConfigError: no such dialect (with did-you-mean).
    """
    if name not in DIALECTS:
        raise ConfigError(unknown_message("dialect", name, DIALECTS))
    return DIALECTS[name]
