"""target/data-validator YAML -> IR tables (docs/dialects.md, "data-validator").

The file's global settings become table settings (``numKeyCols`` -> ``Table.key_count``,
``numErrorsToReport`` -> ``sample_size``, ``detailedErrors`` -> ``detail``); each check is
renamed to its native rule type and built by the native catalogue
(:mod:`assay.dialects.native_rules`), so the semantics are defined once. Variables follow
data-validator's own substitution (``$name`` / ``${name}``, no escape), done once on the
parsed strings; ``sql`` and ``shell`` variables are deferred to the run
(:class:`~assay.ir.outputs.DeferredVariable`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import os
import re
from collections.abc import Callable, Mapping
from decimal import Decimal
from functools import partial

from assay import shell
from assay.config.node import Node, describe, unknown_message
from assay.dialects import sources
from assay.dialects.base import Context, Dialect
from assay.dialects.native_rules import build_rule
from assay.errors import ConfigError, ConfigErrors, ThresholdSyntaxError, VariableError
from assay.ir.origin import Origin
from assay.ir.outputs import DeferredVariable, EmailReport, Report, ReportFile, ReportPipe
from assay.ir.rules import RowCheck, Rule, TypeRequirement, UniqueCheck
from assay.ir.suite import CatalogSource, PathSource, Source, Table
from assay.ir.values import Tolerance

NAME = "data-validator"
TOP_KEYS = frozenset(
    {"numKeyCols", "numErrorsToReport", "detailedErrors", "email", "vars", "outputs", "tables"}
)
REQUIRED_TOP = ("numKeyCols", "numErrorsToReport", "detailedErrors", "tables")
SOURCE_KEYS = ("db", "table", "orcFile", "parquetFile", "format", "options", "loadData")
TABLE_KEYS = frozenset({*SOURCE_KEYS, "keyColumns", "condition", "checks"})
VAR_KINDS = ("value", "env", "shell", "sql")
EMAIL_KEYS = frozenset({"smtpHost", "subject", "from", "to", "cc", "bcc"})
MAX_ERRORS_TO_REPORT = 1000

VARIABLE = re.compile(r"\$([A-Za-z][A-Za-z0-9_]*)|\$\{([A-Za-z][A-Za-z0-9_]*)\}")
"""data-validator's variable syntax (VarSubstitution.scala): ``$name`` or ``${name}``, a
letter first. Anything else with a ``$`` (``$1``, ``${x``, ``$$``) is literal text."""

CHECKS: dict[str, tuple[str, dict[str, str]]] = {
    "rowCount": ("row_count", {"minNumRows": "min_num_rows"}),
    "nullCheck": ("not_null", {"column": "column", "threshold": "tolerance"}),
    "negativeCheck": ("negative_check", {"column": "column", "threshold": "tolerance"}),
    "rangeCheck": (
        "range_check",
        {
            "column": "column",
            "minValue": "min_value",
            "maxValue": "max_value",
            "inclusive": "inclusive",
            "threshold": "tolerance",
        },
    ),
    "stringLengthCheck": (
        "string_length_check",
        {
            "column": "column",
            "minLength": "min_length",
            "maxLength": "max_length",
            "threshold": "tolerance",
        },
    ),
    "stringRegexCheck": (
        "string_regex_check",
        {"column": "column", "regex": "regex", "threshold": "tolerance"},
    ),
    "uniqueCheck": ("unique", {"columns": "columns"}),
    "columnSumCheck": (
        "column_sum_check",
        {
            "column": "column",
            "minValue": "min_value",
            "maxValue": "max_value",
            "inclusive": "inclusive",
        },
    ),
    "columnMaxCheck": ("column_max_check", {"column": "column", "value": "value"}),
    "colstats": ("colstats", {"column": "column"}),
}
"""data-validator check type -> (native rule type, data-validator key -> native key)."""

JSON_KEYS = frozenset(
    {"minValue", "maxValue", "value", "minLength", "maxLength", "inclusive", "regex", "minNumRows"}
)
"""Parameters data-validator substitutes as JSON (``getVarSubJson``: ``"$n"`` with
``n=5`` is the number 5); the others (``column``, ``columns``, ``threshold``) stay text."""

_NATIVE_WORDS = {
    native: dv for _, keys in CHECKS.values() for dv, native in keys.items() if native != dv
} | {native: dv for dv, (native, _) in CHECKS.items() if native not in ("unique", "not_null")}


def matches(doc: Node) -> bool:
    """A mapping whose ``tables`` entries have ``checks`` and a data-validator source key,
    or with one of data-validator's global settings."""
    if not isinstance(doc.value, dict) or "tables" not in doc.value:
        return False
    if any(k in doc.value for k in REQUIRED_TOP[:3]):
        return True
    tables = doc.value["tables"].value
    if not isinstance(tables, list):
        return False
    entries = [t.value for t in tables if isinstance(t.value, dict)]
    return any("checks" in e and any(k in e for k in SOURCE_KEYS) for e in entries)


# --- substitution -------------------------------------------------------------------------


def substitute(text: str, variables: Mapping[str, str], origin: Origin) -> str:
    """data-validator's substitution, in one left-to-right pass: every ``$name`` and
    ``${name}`` is replaced by its value, inserted verbatim (never re-expanded). Unlike
    data-validator's repeated ``replaceAll``, ``$foo`` never touches ``$foobar``.

    >>> from assay.ir.origin import UNKNOWN
    >>> substitute("${a}b $a_c $1 $$a ${${a}}", {"a": "X", "a_c": "Y"}, UNKNOWN)
    'Xb Y $1 $X ${X}'

    Raises:
        VariableError: a reference to an unknown variable (all of them are named).
    """
    if "$" not in text:
        return text
    missing: list[str] = []

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name in variables:
            return variables[name]
        if name not in missing:
            missing.append(name)
        return match.group(0)

    result = VARIABLE.sub(value, text)
    if missing:
        known = ", ".join(sorted(variables)) or "none"
        raise VariableError(
            f"unknown variable{'s' if len(missing) > 1 else ''} "
            + ", ".join(f'"{m}"' for m in missing)
            + f"; known variables: {known}",
            origin=origin,
            hint="define it under 'vars' or pass --vars NAME=VALUE",
        )
    return result


def references(text: str) -> tuple[str, ...]:
    """The variable names ``text`` refers to, in order, without duplicates."""
    return tuple(dict.fromkeys(m.group(1) or m.group(2) for m in VARIABLE.finditer(text)))


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


class _Vars:
    """The resolved variables and the names still deferred to the run."""

    def __init__(self, values: dict[str, str], deferred: set[str]):
        self.values = values
        self.deferred = deferred

    def touches_deferred(self, node: Node) -> bool:
        value = node.value
        if isinstance(value, str):
            return any(name in self.deferred for name in references(value))
        if isinstance(value, dict):
            return any(self.touches_deferred(v) for v in value.values())
        if isinstance(value, list):
            return any(self.touches_deferred(v) for v in value)
        return False

    def text(self, node: Node, what: str = "a string") -> str:
        return substitute(node.as_str(what), self.values, node.origin)

    def node(self, node: Node, json: bool = False) -> Node:
        """``node`` with every string substituted (numbers and booleans read as JSON
        when ``json``)."""
        value = node.value
        if isinstance(value, str):
            text = substitute(value, self.values, node.origin)
            if text == value:
                return node
            return Node(_json_scalar(text) if json else text, node.origin, text=text)
        if isinstance(value, dict):
            return Node({k: self.node(v, json) for k, v in value.items()}, node.origin)
        if isinstance(value, list):
            return Node([self.node(v, json) for v in value], node.origin)
        return node


# --- the document -------------------------------------------------------------------------


def build(doc: Node, ctx: Context) -> tuple[Table, ...]:
    """The tables of a data-validator file; errors go to ``ctx.errors``."""
    mapping = doc.as_mapping("a data-validator config (a mapping with 'tables')")
    ctx.attempt(doc.check_keys, TOP_KEYS)
    for key in REQUIRED_TOP:
        if key not in mapping:
            ctx.errors.append(
                doc.error(
                    f"missing required key '{key}'",
                    hint="data-validator requires numKeyCols, numErrorsToReport, "
                    "detailedErrors and tables",
                )
            )
    settings = _Settings(
        key_count=ctx.attempt(_int_setting, doc, "numKeyCols", 0, None),
        sample_size=ctx.attempt(_int_setting, doc, "numErrorsToReport", 0, MAX_ERRORS_TO_REPORT),
        detail=ctx.attempt(_bool_setting, doc, "detailedErrors"),
    )
    variables = _variables(doc, ctx)
    _outputs(doc, ctx, variables)
    email = doc.get("email")
    if email is not None:
        report = ctx.attempt(_email, email, variables)
        if report is not None:
            ctx.reports.append(report)
    tables_node = doc.get("tables")
    if tables_node is None:
        return ()
    items = ctx.attempt(partial(tables_node.as_list, non_empty=True), "a list of tables") or []
    tables: list[Table] = []
    used: set[str] = set()
    for i, item in enumerate(items):
        table = _table(item, ctx.table_offset + i, ctx, settings, variables, used)
        if table is not None:
            tables.append(table)
    return tuple(tables)


class _Settings:
    def __init__(self, key_count: int | None, sample_size: int | None, detail: bool | None):
        self.key_count = key_count
        self.sample_size = 5 if sample_size is None else sample_size
        self.detail = True if detail is None else detail


def _int_setting(doc: Node, key: str, minimum: int, maximum: int | None) -> int | None:
    node = doc.get(key)
    return None if node is None else node.as_int("an integer", minimum=minimum, maximum=maximum)


def _bool_setting(doc: Node, key: str) -> bool | None:
    node = doc.get(key)
    return None if node is None else node.as_bool()


# --- variables ----------------------------------------------------------------------------


def _variables(doc: Node, ctx: Context) -> _Vars:
    """``vars`` in order: values and environment variables now; ``sql`` and ``shell``
    variables (and values built on them) deferred to the run. Names given on the command
    line (and, on the second pass of a run, the resolved deferred ones) win."""
    given = dict(ctx.variables)
    found = _Vars(dict(given), set())
    node = doc.get("vars")
    if node is None:
        return found
    items = ctx.attempt(node.as_list, "a list of variables (mappings with 'name')") or []
    seen: dict[str, Node] = {}
    for item in items:
        ctx.attempt(_variable, item, found, given, seen, ctx)
    return found


def _variable(
    item: Node, found: _Vars, given: dict[str, str], seen: dict[str, Node], ctx: Context
) -> None:
    item.as_mapping("a variable (a mapping with 'name' and one of value, env, shell, sql)")
    name_node = item.require("name")
    name = name_node.as_str("a variable name")
    kinds = [k for k in VAR_KINDS if k in item.as_mapping()]
    item.check_keys({"name", *VAR_KINDS})
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
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
            f"variable '{name}' runs a shell command ({_short(node)}); shell commands run "
            "only with --allow-shell",
            origin=node.origin,
            hint=f"pass --allow-shell if you trust this config, or --vars {name}=VALUE",
        )
    if name in given:
        return  # the command line (or the run's resolution) gave its value
    if kind == "value":
        if isinstance(node.value, str) and any(r in found.deferred for r in references(node.value)):
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
            _check_shell_refs(text, node)
        _defer(found, ctx, name, kind, node)  # type: ignore[arg-type]


def _short(node: Node) -> str:
    text = str(node.value).strip().replace("\n", " ")
    return text if len(text) <= 60 else text[:57] + "..."


def _defer(found: _Vars, ctx: Context, name: str, kind, node: Node) -> None:
    text = str(node.value)
    bindings = tuple(
        (r, found.values[r])
        for r in references(text)
        if r in found.values and r not in found.deferred
    )
    ctx.deferred.append(DeferredVariable(name, kind, text, node.origin, bindings))
    found.deferred.add(name)
    found.values[name] = f"${{{name}}}"  # a placeholder until the run resolves it


def _check_sql_refs(text: str, found: _Vars, node: Node) -> None:
    missing = [r for r in references(text) if r not in found.values]
    if missing:
        substitute(text, found.values, node.origin)  # raises, naming them


def _check_shell_refs(text: str, node: Node) -> None:
    for ref in references(text):
        if shell.reserved(ref):
            raise node.error(
                f"a shell command cannot use ${ref}: variables are passed to the command as "
                f"environment variables, and {ref} would change how the shell itself behaves",
                hint="rename the variable",
            )


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
            resolved[var.name] = substitute(var.text, values, var.origin)
        elif var.kind == "sql":
            resolved[var.name] = query(substitute(var.text, values, var.origin), var)
        else:
            resolved[var.name] = _run_shell(var, values)
    return resolved


def _run_shell(var: DeferredVariable, values: Mapping[str, str]) -> str:
    env = {r: values[r] for r in references(var.text) if r in values}
    what = f"variable '{var.name}': shell command"
    try:
        done = shell.run_command(var.text, env)
    except shell.CommandTimeout as e:
        raise VariableError(f"{what} {e}", origin=var.origin) from None
    except (OSError, ValueError) as e:
        raise VariableError(f"{what} cannot start: {e}", origin=var.origin) from None
    if done.returncode != 0:
        err = done.stderr.strip().splitlines()[:3]
        raise VariableError(
            f"{what} exited with status {done.returncode}"
            + (f": {' / '.join(err)}" if err else ""),
            origin=var.origin,
        )
    if not done.stdout:
        raise VariableError(f"{what} printed nothing", origin=var.origin)
    return done.first_line()


# --- outputs and email --------------------------------------------------------------------


def _outputs(doc: Node, ctx: Context, variables: _Vars) -> None:
    node = doc.get("outputs")
    if node is None:
        return
    for item in ctx.attempt(node.as_list, "a list of outputs") or []:
        report = ctx.attempt(_output, item, ctx, variables)
        if report is not None:
            ctx.reports.append(report)


def _output(item: Node, ctx: Context, variables: _Vars) -> Report:
    mapping = item.as_mapping("an output (a mapping with 'filename' or 'pipe')")
    if "filename" in mapping:
        item.check_keys({"filename", "append"})
        append = item.get("append")
        path = variables.text(item.require("filename"), "a file name")
        return ReportFile(
            _local_file(path, item.require("filename")),
            bool(append and append.as_bool()),
            item.origin,
        )
    if "pipe" in mapping:
        item.check_keys({"pipe", "ignoreError"})
        pipe = item.require("pipe")
        command = pipe.as_str("a program to pipe the JSON report to")
        if not ctx.options.allow_shell:
            raise pipe.error(
                f"the output pipes the report to a shell command ({_short(pipe)}); shell "
                "commands run only with --allow-shell",
                hint="pass --allow-shell if you trust this config",
            )
        _check_shell_refs(command, pipe)
        env = tuple((r, variables.values[r]) for r in references(command) if r in variables.values)
        ignore = item.get("ignoreError")
        return ReportPipe(command, bool(ignore and ignore.as_bool()), env, item.origin)
    raise item.error(unknown_message("output", ", ".join(mapping) or "{}", ("filename", "pipe")))


def _local_file(path: str, node: Node) -> str:
    """A report file name: local paths (``/x``, ``local:///x``, or relative to the current
    directory); ``hdfs://`` and other remote schemes are refused."""
    if path.startswith("local://"):
        path = path[len("local://") :]
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", path):
        raise node.error(
            f"cannot write the report to '{path}': only local files are supported",
            hint="write to a local path and copy it (hdfs:// outputs are not reproduced)",
        )
    return os.path.abspath(path)


_ADDRESS = re.compile(r"[^@\s,]+@[^@\s,]+")


def _email(node: Node, variables: _Vars) -> EmailReport:
    node.as_mapping("an email config")
    node.check_keys(EMAIL_KEYS)
    node = variables.node(node)

    def addresses(key: str, required: bool) -> tuple[str, ...]:
        child = node.get(key)
        if child is None:
            if required:
                node.require(key)
            return ()
        found: list[str] = []
        for item in child.as_list("a list of email addresses", non_empty=required):
            for part in item.as_str("an email address").split(","):
                address = part.strip()
                if not _ADDRESS.fullmatch(address):
                    raise item.error(f"'{address}' is not an email address")
                found.append(address)
        return tuple(found)

    sender = node.require("from").as_str("an email address")
    if not _ADDRESS.fullmatch(sender.strip()):
        raise node.require("from").error(f"'{sender}' is not an email address")
    return EmailReport(
        smtp_host=node.require("smtpHost").as_str("an SMTP host"),
        subject=node.require("subject").as_str("a subject", allow_empty=True),
        sender=sender.strip(),
        to=addresses("to", True),
        cc=addresses("cc", False),
        bcc=addresses("bcc", False),
        origin=node.origin,
    )


# --- tables -------------------------------------------------------------------------------


def _table(
    node: Node, position: int, ctx: Context, settings: _Settings, variables: _Vars, used: set[str]
) -> Table | None:
    before = len(ctx.errors)
    if ctx.attempt(node.as_mapping, "a table (a mapping with a source and 'checks')") is None:
        return None
    ctx.attempt(node.check_keys, TABLE_KEYS)
    source = ctx.attempt(_source, node, ctx, variables)
    keys_node, cond_node = node.get("keyColumns"), node.get("condition")
    keys = ctx.attempt(_keys, keys_node, variables) if keys_node is not None else ()
    condition = (
        ctx.attempt(variables.text, cond_node, "a SQL condition") if cond_node is not None else None
    )
    rules = _checks(node, ctx, variables)
    if len(ctx.errors) > before or source is None:
        return None
    name = _unique_name(_name(source, position), used)
    return Table(
        name=name,
        source=source,
        rules=rules,
        origin=node.origin,
        filter=condition,
        keys=keys or (),
        key_count=None if keys else settings.key_count,
        sample_size=settings.sample_size,
        detail=settings.detail,
    )


def _keys(node: Node, variables: _Vars) -> tuple[str, ...]:
    names: list[str] = []
    for item in node.as_list("a list of key column names", non_empty=True):
        name = variables.text(item, "a column name")
        if name in names:
            raise item.error(f"duplicate key column '{name}'")
        names.append(name)
    return tuple(names)


def _source(node: Node, ctx: Context, variables: _Vars) -> Source:
    mapping = node.as_mapping()
    kinds = [k for k in ("db", "orcFile", "parquetFile", "format") if k in mapping]
    if "table" in mapping and "db" not in mapping:
        raise node.require("table").error("'table' needs 'db' (a Hive table is db + table)")
    if len(kinds) != 1:
        got = " and ".join(f"'{k}'" for k in kinds) if kinds else "none"
        raise node.error(
            f"a table needs exactly one source: db + table, orcFile, parquetFile or format "
            f"(+ options, loadData); got {got}"
        )
    kind = kinds[0]
    for key in ("options", "loadData"):
        if key in mapping and kind != "format":
            raise mapping[key].error(f"'{key}' applies only with 'format'")
    if kind == "db":
        db = variables.text(node.require("db"), "a database name")
        table = variables.text(node.require("table"), "a table name")
        return CatalogSource(f"{db}.{table}")
    if kind in ("orcFile", "parquetFile"):
        path = variables.text(node.require(kind), "a file path")
        return PathSource(
            "orc" if kind == "orcFile" else "parquet", (sources.resolve(path, ctx.base_dir),)
        )
    fmt = variables.text(node.require("format"), "a Spark data source format").strip().lower()
    options: list[tuple[str, str]] = []
    options_node = node.get("options")
    if options_node is not None:
        for key, value in options_node.as_mapping("a mapping of reader option to value").items():
            text = sources.scalar_text(value, "an option value (a string, number or boolean)")
            options.append((key, substitute(text, variables.values, value.origin)))
    paths: list[str] = []
    load_node = node.get("loadData")
    if load_node is not None:
        items = (
            load_node.as_list("a list of paths")
            if isinstance(load_node.value, list)
            else [load_node]
        )
        for item in items:
            path = variables.text(item, "a path")
            paths.append(
                sources.resolve(path, ctx.base_dir)
                if fmt in set(sources.FORMATS.values())
                else path
            )
    return PathSource(fmt, tuple(paths), tuple(options))


def _name(source: Source, position: int) -> str:
    if isinstance(source, CatalogSource):
        derived = source.table
    elif isinstance(source, PathSource) and source.paths:
        derived = sources.stem(source.paths[0])
    else:
        derived = f"{source.format}_{position}"  # type: ignore[union-attr]
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", derived).strip("_.") or f"table_{position}"


def _unique_name(name: str, used: set[str]) -> str:
    """data-validator tables have no names: the same source checked twice (say, with two
    conditions) gets ``name``, ``name_2``..."""
    candidate, n = name, 1
    while candidate in used:
        n += 1
        candidate = f"{name}_{n}"
    used.add(candidate)
    return candidate


# --- checks -------------------------------------------------------------------------------


def _checks(node: Node, ctx: Context, variables: _Vars) -> tuple[Rule, ...]:
    checks_node = ctx.attempt(node.require, "checks")
    if checks_node is None:
        return ()
    items = ctx.attempt(checks_node.as_list, "a list of checks")
    if items == []:
        ctx.errors.append(
            checks_node.error(
                "expected at least one check, got an empty list",
                hint="a table with 0 checks would pass silently",
            )
        )
    rules: list[Rule] = []
    for item in items or ():
        if isinstance(item.value, dict) and variables.touches_deferred(item):
            # Uses a sql/shell variable: only a run knows its value. `assay check` reports
            # it as unresolved (data-validator's config check skips substitutions too).
            ctx.unresolved_rules += 1
            continue
        rule = ctx.attempt(build_check, item, variables)
        if rule is not None:
            rules.append(rule)
    return tuple(rules)


def build_check(item: Node, variables: _Vars | None = None) -> Rule:
    """One data-validator check as the native rule it maps to (errors name the
    data-validator keys), with data-validator's own config checks: those it makes
    without the table (:func:`_config_check`) now, those that need the schema as the
    rule's ``type_checks`` (preflight, before any scan)."""
    item.as_mapping("a check (a mapping with a 'type')")
    type_node = item.require("type")
    kind = type_node.as_str("a check type such as 'nullCheck'")
    if kind not in CHECKS:
        raise type_node.error(unknown_message("check type", kind, CHECKS))
    native, keys = CHECKS[kind]
    item.check_keys({"type", *keys})
    if variables is not None:
        item = Node(
            {k: variables.node(v, json=k in JSON_KEYS) for k, v in item.as_mapping().items()},
            item.origin,
        )
    item = Node({k: _normalised(k, v) for k, v in item.as_mapping().items()}, item.origin)
    tolerance = _threshold(item.get("threshold"))
    type_checks = _config_check(kind, item)
    renamed = {"type": Node(native, type_node.origin, type_node.text)}
    for key, child in item.as_mapping().items():
        if key not in ("type", "threshold"):
            renamed[keys[key]] = child
    try:
        rule = build_rule(Node(renamed, item.origin))
    except ConfigErrors as e:
        raise ConfigErrors([_in_dv_words(x) for x in e.errors]) from None
    except ConfigError as e:
        raise _in_dv_words(e) from None
    check = rule.check
    if isinstance(check, UniqueCheck):
        # "N duplicates found!": duplicated values, nulls grouped as a value (groupBy).
        check = dataclasses.replace(check, counted="values", nulls="none")
    if tolerance is not None:
        assert isinstance(check, RowCheck)
        check = dataclasses.replace(check, tolerance=tolerance)
    requires = rule.requires
    if kind in ("rangeCheck", "columnMaxCheck"):
        # the value's fit to the column's type is data-validator's own (type_checks)
        requires = tuple((c, f) for c, f in requires if f in ("orderable", "any"))
    params = rule.params
    if tolerance is not None:
        params = (*params, ("tolerance", tolerance.text))
    return dataclasses.replace(
        rule,
        check=check,
        threshold=tolerance.text if tolerance is not None else rule.threshold,
        requires=requires,
        params=params,
        type_checks=type_checks,
    )


# --- data-validator's config checks -------------------------------------------------------

THRESHOLD = re.compile(r"^([0-9]+\.*[0-9]*)\s*%{0,1}$", re.ASCII)
"""data-validator's ``RowBased.THRESHOLD_NUMBER_REGEX`` (``findFirstIn``; Java's ``$``
also matches before a final line terminator, as Python's does before a final ``\\n``)."""

INTEGRAL = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}
"""The integer column types data-validator compares a JSON number with (circe's
``toByte``/``toShort``/``toInt``/``toLong``: a whole number within range)."""

_UNSUPPORTED_RUNS = "data-validator accepts this in its config check but fails at run time"


def _threshold(node: Node | None) -> Tolerance | None:
    """A row-level ``threshold`` as data-validator reads it: a string matching its regex
    (``10``, ``0.5``, ``1.``, ``150%``, ``5 %``), computed by its own arithmetic."""
    if node is None:
        return None
    value = node.value
    if not isinstance(value, str):
        raise node.error(
            f"threshold must be a quoted string, got {describe(value)}",
            hint=f'write threshold: "{node.text or value}" (data-validator reads only a '
            "string threshold: it silently ignores an unquoted number and allows no "
            "failing row)",
        )
    if THRESHOLD.search(value) is None:
        raise ThresholdSyntaxError(
            f"Threshold `{value}` not parsable.",
            origin=node.origin,
            hint="a row count (10), a fraction of the rows below 1 (0.05) or a percentage "
            "(5%), digits and dots only, no sign and no leading space",
        )
    percent = value.endswith("%")
    number = value[:-1] if percent else value
    try:
        parsed = float(number)  # Java's toDouble, which trims like Python's float
    except ValueError:
        raise ThresholdSyntaxError(
            f"Threshold `{value}` is not a number",
            origin=node.origin,
            hint=f"{_UNSUPPORTED_RUNS} (NumberFormatException): write one decimal point, "
            "and '%' last",
        ) from None
    kind = "dv_percent" if percent else "dv_number"
    return Tolerance(kind, Decimal(repr(parsed)), value)  # type: ignore[arg-type]


def _normalised(key: str, node: Node) -> Node:
    """A JSON parameter as the native builder reads it: a whole float is an integer
    where data-validator asks circe for one (``minLength: 3.0`` is 3), and a YAML date
    or timestamp is the string written (circe-yaml reads every scalar that is not a
    number, boolean or null as a string)."""
    value = node.value
    if isinstance(value, (dt.date, dt.datetime)):
        return Node(node.text or value.isoformat(), node.origin, node.text)
    whole = isinstance(value, float) and value.is_integer() and math.isfinite(value)
    if key in ("minNumRows", "minLength", "maxLength") and whole:
        return Node(int(value), node.origin, node.text)  # type: ignore[arg-type]
    return node


def _shown(node: Node) -> str:
    """A parameter as written: strings quoted, the rest as in the file."""
    if isinstance(node.value, str):
        return repr(node.value)
    return node.text or str(node.value)


def _is_number(node: Node) -> bool:
    return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _is_ref(node: Node) -> bool:
    return isinstance(node.value, str) and node.value.startswith("`")


def _integer_types(value: int | float) -> frozenset[str]:
    if isinstance(value, float) and not value.is_integer():
        return frozenset()
    return frozenset(t for t, (lo, hi) in INTEGRAL.items() if lo <= value <= hi)


def _bound_pair(item: Node, low_key: str, high_key: str, numbers: str) -> None:
    """data-validator's ``checkMinLessThanMax`` family: two numbers must be ordered
    (``numbers`` says how), two strings (column references) must differ, and a number
    beside a string, or a value that is neither, is "Unsupported type"."""
    given = [n for n in (item.get(low_key), item.get(high_key)) if n is not None]
    if not given:
        return
    if all(_is_number(n) for n in given):
        if len(given) == 2:
            low, high = (float(given[0].value), float(given[1].value))  # type: ignore[arg-type]
            if (low >= high) if numbers == "<" else (low > high):
                relation = "less than" if numbers == "<" else "less than or equal to"
                raise item.error(
                    f"{low_key} ({given[0].value}) must be {relation} {high_key} ({given[1].value})"
                )
        return
    if all(isinstance(n.value, str) for n in given):
        if len(given) == 2 and given[0].value == given[1].value:
            raise item.error(
                f"{low_key} and {high_key} are both '{given[0].value}' (data-validator: "
                "Min[String] must be less than max[String])"
            )
        return
    shown = ", ".join(f"{n.value!r}" for n in given)
    raise item.error(
        f"Unsupported type in {shown}: {low_key} and {high_key} must both be numbers or "
        "both be `column references"
    )


def _inclusive(item: Node) -> None:
    node = item.get("inclusive")
    if node is not None and not isinstance(node.value, bool):
        raise node.error(
            f"Inclusive flag is defined, but is not a boolean, inclusive: {_shown(node)}"
        )


def _config_check(kind: str, item: Node) -> tuple[TypeRequirement, ...]:
    """data-validator's ``configCheck`` of one check: what it refuses without the table
    raises here; what needs the column's type comes back as type requirements."""
    column_node = item.get("column")
    column = column_node.value if column_node is not None else None
    if kind == "rowCount":
        node = item.require("minNumRows")
        value = node.value
        if not _is_number(node) or not float(value).is_integer() or value <= 0:  # type: ignore[arg-type]
            raise node.error(
                f"minNumRows must be a natural number, got {_shown(node)}",
                hint="a whole number of rows, at least 1",
            )
        return ()
    if not isinstance(column, str):
        return ()  # the native builder reports the missing or wrong column
    if kind == "rangeCheck":
        return _range_check(item, column)
    if kind == "stringLengthCheck":
        if item.get("minLength") is None and item.get("maxLength") is None:
            raise item.error("Must define minLength or maxLength or both.")
        _bound_pair(item, "minLength", "maxLength", "<=")
        for key in ("minLength", "maxLength"):
            node = item.get(key)
            if node is None or _is_ref(node):
                continue
            if not _is_number(node) or not _integer_types(node.value) >= {"int"}:  # type: ignore[arg-type]
                raise node.error(
                    f"{key} must be an integer (or a `column), got {_shown(node)}",
                    hint=_UNSUPPORTED_RUNS,
                )
        return ()
    if kind == "stringRegexCheck":
        node = item.get("regex")
        if node is None:
            raise item.error("Must define a regex.")
        if not isinstance(node.value, str):
            raise node.error(f"regex must be a string, got {_shown(node)}", hint=_UNSUPPORTED_RUNS)
        if _is_ref(node):
            raise node.error(
                "a regex read from another column (`column) is not supported",
                hint="write the regular expression itself",
            )
        return ()
    if kind == "columnSumCheck":
        _inclusive(item)
        return (
            TypeRequirement(
                column,
                frozenset({"tinyint", "smallint", "int", "bigint", "float", "double"}),
                "columnSumCheck: column {column} is {type}: data-validator sums only byte, "
                "short, int, long, float and double columns",
                hint=f"{_UNSUPPORTED_RUNS} (a decimal sum is an unsupported type); cast "
                "the column in a view, or use the native sum rule",
            ),
        )
    if kind == "columnMaxCheck":
        return (_max_value(item.require("value"), column),)
    return ()


def _range_check(item: Node, column: str) -> tuple[TypeRequirement, ...]:
    """rangeCheck's config check: at least one bound; numbers ordered (min < max, also
    when inclusive); each bound a number fitting the column's type (byte, short, int,
    long: a whole number in range; double: any number) or a `column with a common type;
    inclusive a boolean."""
    if item.get("minValue") is None and item.get("maxValue") is None:
        raise item.error("Must defined minValue or maxValue or both.")
    _bound_pair(item, "minValue", "maxValue", "<")
    _inclusive(item)
    found: list[TypeRequirement] = []
    for key in ("minValue", "maxValue"):
        node = item.get(key)
        if node is None:
            continue
        if _is_ref(node):
            other = node.value[1:]  # type: ignore[index]
            found.append(
                TypeRequirement(
                    column,
                    frozenset(),
                    f"rangeCheck: {key} {node.value}: column {{other}} ({{other_type}}) is "
                    "not compatible with column {column} ({type})",
                    other=other[:-1] if other.endswith("`") else other,
                )
            )
            continue
        if not _is_number(node):
            raise node.error(
                f"Range constraint types not compatible with column '{column}': {key} "
                f"{_shown(node)} is neither a number nor a `column reference",
                hint="data-validator compares only with numbers or other columns",
            )
        fits = sorted(_integer_types(node.value) | {"double"})  # type: ignore[arg-type]
        found.append(
            TypeRequirement(
                column,
                frozenset(fits),
                f"rangeCheck: Range constraint types not compatible with column[{{type}}]: "
                f"'{{column}}' ({key} {node.value} fits {', '.join(fits)})",
                hint="data-validator compares a number only with a byte, short, int, long "
                "(a whole number in range) or double column; a string column with a number "
                "bound is accepted by its config check but fails at run time",
            )
        )
    return tuple(found)


def _max_value(node: Node, column: str) -> TypeRequirement:
    """columnMaxCheck's ``checkTypes``: a number for a byte/short/int/long column (whole,
    in range) or a double column, a string for a string column."""
    value = node.value
    if _is_number(node):
        types = _integer_types(value) | {"double"}  # type: ignore[arg-type]
        wanted = f"{value} fits {', '.join(sorted(types))}"
        hint = (
            "data-validator's config check refuses a float, decimal, date or timestamp "
            "column, and a number that does not fit the column's type"
        )
    elif isinstance(value, str):
        types, wanted = frozenset({"string"}), "a string needs a string column"
        hint = "write a number (unquoted) for a numeric column"
    else:
        types, wanted = frozenset(), f"{describe(value)} value"
        hint = (
            "data-validator accepts a boolean only for a boolean column, and then always "
            "fails (not implemented)"
        )
    return TypeRequirement(
        column,
        frozenset(types),
        f"columnMaxCheck: checkTypes failed for column {{column}} ({{type}}), value "
        f"{_shown(node)} ({wanted})",
        hint=hint,
    )


def _in_dv_words(error: ConfigError) -> ConfigError:
    """A native builder's error with data-validator's key and type names."""

    def words(text: str | None) -> str | None:
        if text is None:
            return None
        return re.sub(
            r"\b(" + "|".join(map(re.escape, _NATIVE_WORDS)) + r")\b",
            lambda m: _NATIVE_WORDS[m.group(1)],
            text,
        )

    return type(error)(words(error.message) or "", origin=error.origin, hint=words(error.hint))


DIALECT = Dialect(
    name=NAME,
    shape=(
        "a data-validator config (numKeyCols, numErrorsToReport, detailedErrors, and "
        "'tables' whose entries have 'checks' and db + table, orcFile, parquetFile or format)"
    ),
    matches=matches,
    build=build,
)

__all__ = ["CHECKS", "DIALECT", "build_check", "resolve_deferred", "substitute"]
