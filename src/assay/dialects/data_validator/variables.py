"""data-validator's variables: ``vars`` (value, env, shell, sql) read in order, substituted
with data-validator's ``$var`` syntax (no escapes: :func:`assay.grammar.substitute` with
``escapes=False``), ``sql`` and ``shell`` ones deferred to the run (:func:`resolve_deferred`)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping

from assay.config.node import Node
from assay.dialects import sources
from assay.dialects.base import Context
from assay.dialects.data_validator.shell_commands import check_shell_refs, run_shell, shown_command
from assay.errors import ConfigError, VariableError
from assay.grammar import references, substitute
from assay.ir.outputs import DeferredVariable

VAR_KINDS = ("value", "env", "shell", "sql")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
"""A variable name a ``$name`` reference can name."""


def _json_scalar(text: str) -> str | int | float | bool:
    """A substituted JSON parameter as data-validator reads it (``string2Json``): a
    number or boolean when the text is one, else the text."""
    stripped = text.strip()
    if re.fullmatch(r"-?(0|[1-9][0-9]*)", stripped):
        return int(stripped)
    if re.fullmatch(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?", stripped):
        return float(stripped)
    if stripped in ("true", "false"):
        return stripped == "true"
    return text


class Variables:
    """The resolved variables, the names still deferred to the run, and the names whose
    definition failed (its error is reported; their uses are not reported again)."""

    def __init__(self, values: dict[str, str], deferred: set[str], failed: set[str] | None = None):
        self.values = values
        self.deferred = deferred
        self.failed = failed if failed is not None else set()

    def touches_deferred(self, node: Node) -> bool:
        """Whether a string in ``node`` refers to a variable deferred to the run."""
        return _touches(node, self.deferred)

    def touches_failed(self, node: Node) -> bool:
        """Whether a string in ``node`` refers to a variable whose definition failed."""
        return _touches(node, self.failed)

    def text(self, node: Node, what: str = "a string") -> str:
        return substitute(node.as_str(what), self.values, node.origin, escapes=False)

    def node(self, node: Node, json: bool = False) -> Node:
        """``node`` with every string substituted (numbers and booleans read as JSON
        when ``json``)."""
        value = node.value
        if isinstance(value, str):
            text = substitute(value, self.values, node.origin, escapes=False)
            if text == value:
                return node
            return Node(_json_scalar(text) if json else text, node.origin, text=text)
        if isinstance(value, dict):
            return Node({k: self.node(v, json) for k, v in value.items()}, node.origin)
        if isinstance(value, list):
            return Node([self.node(v, json) for v in value], node.origin)
        return node


def _touches(node: Node, names: set[str]) -> bool:
    """Whether a string in ``node`` refers to one of ``names``."""
    if not names:
        return False
    value = node.value
    if isinstance(value, str):
        return any(name in names for name in references(value, node.origin, escapes=False))
    if isinstance(value, dict):
        return any(_touches(v, names) for v in value.values())
    if isinstance(value, list):
        return any(_touches(v, names) for v in value)
    return False


def read_variables(doc: Node, ctx: Context) -> Variables:
    """``vars`` in order: values and environment variables now; ``sql`` and ``shell``
    variables (and values built on them) deferred to the run. Names given on the command
    line (and, on the second pass of a run, the resolved deferred ones) win."""
    given = dict(ctx.variables)
    found = Variables(dict(given), set())
    node = doc.get("vars")
    if node is None:
        return found
    items = ctx.attempt(node.as_list, "a list of variables (mappings with 'name')") or []
    seen: dict[str, Node] = {}
    for item in items:
        ctx.attempt(_read_one, item, found, given, seen, ctx)
    return found


def _read_one(
    item: Node, found: Variables, given: dict[str, str], seen: dict[str, Node], ctx: Context
) -> None:
    """One variable; when its definition fails, its name still stands (with its own
    reference as value, as a deferred one), so its uses add no "unknown variable" error
    to the real one."""
    try:
        _variable(item, found, given, seen, ctx)
    except ConfigError:
        name = _defined_name(item)
        if name is not None and name not in found.values:
            _stand_in(found, name)
        raise


def _defined_name(item: Node) -> str | None:
    """The name a variable definition gives, when it gives a valid one."""
    value = item.value
    name = value.get("name") if isinstance(value, dict) else None
    text = name.value if isinstance(name, Node) else None
    return text if isinstance(text, str) and _NAME.fullmatch(text) else None


def _stand_in(found: Variables, name: str) -> None:
    """``name`` known, with no value: its definition failed (or used one that did)."""
    found.failed.add(name)
    found.values[name] = f"${{{name}}}"


def _variable(
    item: Node, found: Variables, given: dict[str, str], seen: dict[str, Node], ctx: Context
) -> None:
    item.as_mapping("a variable (a mapping with 'name' and one of value, env, shell, sql)")
    name_node = item.require("name")
    name = name_node.as_str("a variable name")
    kinds = [k for k in VAR_KINDS if k in item.as_mapping()]
    item.check_keys({"name", *VAR_KINDS})
    if not _NAME.fullmatch(name):
        raise VariableError(
            f"invalid variable name '{name}' (a letter, then letters, digits or _)",
            origin=name_node.origin,
        )
    if name in seen:
        raise name_node.error(
            f"variable '{name}' is defined twice (first at line {seen[name].origin.line})"
        )
    seen[name] = item
    if len(kinds) != 1:
        got = " and ".join(f"'{k}'" for k in kinds) if kinds else "none"
        raise item.error(f"a variable needs exactly one of value, env, shell, sql; got {got}")
    kind = kinds[0]
    node = item.require(kind)
    if kind == "shell" and not ctx.options.allow_shell and name not in given:
        raise VariableError(
            f"variable '{name}' runs a shell command ({shown_command(node)}); shell commands run "
            "only with --allow-shell",
            origin=node.origin,
            hint=f"pass --allow-shell if you trust this config, or --vars {name}=VALUE",
        )
    if name in given:
        return  # the command line (or the run's resolution) gave its value
    used = references(node.value, node.origin, escapes=False) if isinstance(node.value, str) else ()
    if any(r in found.failed for r in used):
        _stand_in(found, name)  # built on a variable that failed: that one's error says why
        return
    if kind == "value":
        if any(r in found.deferred for r in used):
            _defer(found, ctx, name, "value", node)
            return
        text = sources.scalar_text(node, "a value (a string, number or boolean)")
        found.values[name] = found.text(node) if isinstance(node.value, str) else text
    elif kind == "env":
        env = found.text(node, "an environment variable name")
        if env not in os.environ:
            raise VariableError(
                f"variable '{name}': environment variable '{env}' is not set",
                origin=node.origin,
                hint=f"set {env}, or pass --vars {name}=VALUE",
            )
        found.values[name] = os.environ[env]
    else:
        text = node.as_str("a SQL query" if kind == "sql" else "a shell command")
        if kind == "sql":
            _check_sql_refs(text, found, node)
        else:
            check_shell_refs(text, node)
        _defer(found, ctx, name, kind, node)  # type: ignore[arg-type]


def _defer(found: Variables, ctx: Context, name: str, kind, node: Node) -> None:
    text = str(node.value)
    bindings = tuple(
        (r, found.values[r])
        for r in references(text, node.origin, escapes=False)
        if r in found.values and r not in found.deferred
    )
    ctx.deferred.append(DeferredVariable(name, kind, text, node.origin, bindings))
    found.deferred.add(name)
    found.values[name] = f"${{{name}}}"  # a placeholder until the run resolves it


def _check_sql_refs(text: str, found: Variables, node: Node) -> None:
    missing = [r for r in references(text, node.origin, escapes=False) if r not in found.values]
    if missing:
        substitute(text, found.values, node.origin, escapes=False)  # raises, naming them


def resolve_deferred(
    deferred: tuple[DeferredVariable, ...],
    given: Mapping[str, str],
    query: Callable[[str, DeferredVariable], str],
) -> dict[str, str]:
    """Values for the deferred variables, in order: ``sql`` through ``query`` (text with
    variables substituted), ``shell`` run with the variables it refers to in its
    environment, ``value`` templates substituted. ``given`` are the values known so far
    (command line and resolved values of the first pass).

    Raises:
        VariableError: a command fails, times out or prints nothing; a query fails.
    """
    resolved: dict[str, str] = {}
    for var in deferred:
        if var.name in given:
            resolved[var.name] = given[var.name]
            continue
        values = {**dict(var.bindings), **resolved, **given}
        if var.kind == "value":
            resolved[var.name] = substitute(var.text, values, var.origin, escapes=False)
        elif var.kind == "sql":
            resolved[var.name] = query(substitute(var.text, values, var.origin, escapes=False), var)
        else:
            resolved[var.name] = run_shell(var, values)
    return resolved
