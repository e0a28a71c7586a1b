"""A data contract checked against its standard's JSON Schema before anything else is
read (docs/dialects.md, "Data contracts"): ODCS v3.0.x, v3.1.0, v3.2.0 (``apiVersion``)
and datacontract.com's specification 0.9.x, 1.1.0, 1.2.x (``dataContractSpecification``).

The schema files are vendored in ``assay/schema/`` (``odcs-*.schema.json``,
``datacontract-*.schema.json``; where they come from and their licence:
``assay/schema/DATA-CONTRACT-SCHEMAS.md``). Each error the validator reports is a
:class:`ConfigError` at the line of the value it is about.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from importlib import resources
from typing import TYPE_CHECKING, Any

from assay.config.node import Node
from assay.errors import ConfigError, ConfigErrors

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

ODCS_SCHEMAS = {
    "v3.0.0": "odcs-3.0.2",
    "v3.0.1": "odcs-3.0.2",
    "v3.0.2": "odcs-3.0.2",
    "v3.1.0": "odcs-3.1.0",
    "v3.2.0": "odcs-3.2.0",
}
"""ODCS ``apiVersion`` -> its schema file (3.0.0 and 3.0.1 are 3.0.2's grammar, as
datacontract-cli reads them)."""
DCS_SCHEMAS = {
    "1.2.1": "datacontract-1.2.1",
    "1.2.0": "datacontract-1.2.0",
    "1.1.0": "datacontract-1.1.0",
    "0.9.3": "datacontract-1.1.0",
    "0.9.2": "datacontract-1.1.0",
    "0.9.1": "datacontract-1.1.0",
    "0.9.0": "datacontract-1.1.0",
}
"""datacontract.com's ``dataContractSpecification`` -> its schema file (the 0.9.x
versions are in 1.1.0's list of versions, as datacontract-cli ships no schema of theirs)."""
_QUOTED = re.compile(r"'([^']*)'")


@functools.cache
def _validator(name: str) -> Any:
    import jsonschema  # only when a contract is read: the other commands start without it

    text = (resources.files("assay") / "schema" / f"{name}.schema.json").read_text("utf-8")
    schema = json.loads(text)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def plain(node: Node) -> Any:
    """A node as the JSON document the schema validates: dates and timestamps YAML read
    are their text (the standards hold them as strings)."""
    value = node.value
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime)):
        return node.text if node.text is not None else value.isoformat()
    return value


def validate(doc: Node, schema: str, standard: str) -> None:
    """Check ``doc`` against the schema file ``schema``.

    Raises:
        ConfigErrors: every violation, each at the line of its value.
    """
    validator = _validator(schema)
    found = {(tuple(e.absolute_path), e.message): e for e in validator.iter_errors(plain(doc))}
    errors = list(found.values())
    # a value that fails a branch also leaves its keys "unevaluated": noise beside the
    # branch's own error at the same place
    failing = {tuple(e.absolute_path) for e in errors if e.validator != "unevaluatedProperties"}
    errors = [
        e
        for e in errors
        if e.validator != "unevaluatedProperties" or tuple(e.absolute_path) not in failing
    ]
    problems = [_problem(doc, e, standard) for e in sorted(errors, key=_order)]
    if problems:
        raise ConfigErrors(problems)


def _order(error: ValidationError) -> tuple[str, ...]:
    return tuple(str(p) for p in error.absolute_path)


def _problem(doc: Node, error: ValidationError, standard: str) -> ConfigError:
    node = _at(doc, list(error.absolute_path))
    message = error.message
    from jsonschema.exceptions import best_match

    if error.validator in ("oneOf", "anyOf") and error.context:
        # the branch the value meant (its key is there) explains it, not the others'
        meant = [c for c in error.context if c.validator != "required"] or error.context
        same_type = [c for c in meant if not (c.validator == "type" and not c.path)]
        if same_type:
            best = best_match(same_type)
            message = best.message
            node = _at(node, list(best.path))
    elif error.validator in ("unevaluatedProperties", "additionalProperties"):
        keys = [k for k in _QUOTED.findall(message) if isinstance(node.value, dict)]
        named = [k for k in keys if k in node.value]  # type: ignore[operator]
        if len(named) == 1:
            node = node.as_mapping()[named[0]]
            message = f"'{named[0]}' is not a key {standard} defines here"
        elif named:
            message = f"{', '.join(repr(k) for k in named)} are not keys {standard} defines here"
    hint = f"the file is checked against {standard}'s JSON Schema before anything is read"
    path = list(error.absolute_path)
    if "logicalTypeOptions" in path:
        prop = _at(doc, path[: path.index("logicalTypeOptions")])
        if isinstance(prop.value, dict) and "logicalType" not in prop.value:
            hint = (
                "the logicalTypeOptions a property may have depend on its logicalType: declare it"
            )
    return node.error(f"{standard}: {_short(message)}", hint=hint)


def _short(message: str) -> str:
    """jsonschema's message, the value it quotes cut when long."""
    if len(message) <= 300:
        return message
    return message[:297] + "..."


def _at(node: Node, path: list[object]) -> Node:
    """The node at ``path`` below ``node`` (the deepest one found)."""
    for step in path:
        value = node.value
        found: Node | None = None
        if isinstance(value, dict) and isinstance(step, str):
            found = value.get(step)
        elif isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value):
            found = value[step]
        if found is None:
            break
        node = found
    return node
