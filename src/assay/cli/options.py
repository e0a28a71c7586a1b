"""The command line of the commands, and how it becomes the
:class:`~assay.options.RunOptions` of a run (:func:`run_options`).

The options of a run are declared in :mod:`assay.options`, each with its flags and help;
here they become typer parameters (:data:`KINDS`: the type click parses a flag's value
as, its default, and the field's value made of the flags' values). ``assay run``,
``check`` and ``explain`` take theirs generated (:func:`takes_run_options`); the other
commands name the ones they take, by the annotations made from the same declarations
(:data:`Remote`, :data:`ServerConf`...), among options of their own.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from assay.errors import ConfigError, ConfigErrors
from assay.options import Declared, Flag, RunOptions, declarations

Field = dataclasses.Field[Any]

Configs = Annotated[
    list[Path],
    typer.Argument(
        help="Config files (YAML or JSON); their tables run together.", show_default=False
    ),
]
Format = Annotated[
    str, typer.Option("--format", help="text (for people) or json (one JSON line per table).")
]
Passes = Annotated[
    bool, typer.Option("--passes", help="Also print the planner's passes, in the order they run.")
]
Debug = Annotated[
    bool, typer.Option("--debug", envvar="ASSAY_DEBUG", help="Show tracebacks of internal errors.")
]


def parse_assignments(items: Iterable[str], what: str) -> dict[str, str]:
    """``["a=1", "b=x=y"]`` -> ``{"a": "1", "b": "x=y"}``; a missing ``=`` is a usage error."""
    found: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"{what} {item!r} must look like NAME=VALUE")
        found[name.strip()] = value
    return found


def parse_duration(text: str, what: str) -> float | None:
    """``"90s"``, ``"45m"``, ``"2h"``, ``"1.5"`` (seconds) -> seconds; ``"0"`` -> None (no
    bound); anything else is a usage error.

    >>> parse_duration("2h", "--plan-timeout"), parse_duration("0", "--plan-timeout")
    (7200.0, None)
    """
    from assay.grammar.transformers import SECONDS_PER_UNIT

    body = text.strip().lower()
    unit = SECONDS_PER_UNIT.get(body[-1:], None) if body else None
    number = body[:-1] if unit is not None else body
    try:
        seconds = float(number) * (unit or 1)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0 or seconds == float("inf"):
        raise ConfigError(f"{what} {text!r} must be a duration such as 30s, 45m or 2h")
    return seconds or None


VARIABLE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
"""A name ``$name`` and ``${name}`` can refer to: a letter, then letters, digits or ``_``."""


def variables(var: Iterable[str] | None, vars_: str | None) -> dict[str, str]:
    """``--vars k1=v1,k2=v2`` and ``--var NAME=VALUE`` (winning), each name one a
    reference can use (every other named)."""
    items = [p for p in (vars_ or "").split(",") if p]
    given = (
        ("--vars item", parse_assignments(items, "--vars item")),
        ("--var", parse_assignments(var or [], "--var")),
    )
    wrong = [
        ConfigError(
            f"{what} {name!r} is not a variable name: no $reference can use it",
            hint="a variable name is a letter, then letters, digits or _",
        )
        for what, found in given
        for name in found
        if not VARIABLE_NAME.fullmatch(name)
    ]
    if wrong:
        raise wrong[0] if len(wrong) == 1 else ConfigErrors(wrong)
    return {**given[0][1], **given[1][1]}


def bool_option(value: str | None, name: str, default: bool) -> bool:
    """``--exitErrorOnFail true|false`` (data-validator's spelling); not given: ``default``."""
    if value is None:
        return default
    lowered = value.strip().lower()
    if lowered not in ("true", "false"):
        raise ConfigError(f"{name} must be true or false, not {value!r}")
    return lowered == "true"


def _order(given: str, flag: str) -> str:
    from assay.api.ordering import order_of

    return order_of(given, flag)


def _progress_writer(progress: bool) -> Callable[[str], None] | None:
    from assay.cli.console import err

    return err if progress else None


def duration_text(seconds: float | None) -> str:
    """A duration as ``--plan-timeout`` takes it, in its largest whole unit.

    >>> duration_text(7200.0), duration_text(90.0), duration_text(None)
    ('2h', '90s', '0')
    """
    if seconds is None:
        return "0"
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


@dataclasses.dataclass(frozen=True)
class Kind:
    """How the command line spells a kind of field: the type click parses each of its
    flags' values as (``types``) and their defaults (``defaults``), from the field; and
    the field's value read from the flags' values (``read(field, flags, *values)``)."""

    types: Callable[[Field], tuple[Any, ...]]
    defaults: Callable[[Field], tuple[Any, ...]]
    read: Callable[..., Any]


def _optional(python_type: Any) -> Callable[[Field], tuple[Any, ...]]:
    """One flag of ``python_type``, optional when the field's default is None."""
    return lambda f: (Optional[python_type] if f.default is None else python_type,)  # noqa: UP045


def _its_default(f: Field) -> tuple[Any, ...]:
    return (f.default,)


def _none(f: Field) -> tuple[Any, ...]:
    return (None,)


def _first(flags: Sequence[Flag]) -> str:
    return flags[0].names[0]


KINDS: dict[str, Kind] = {
    "text": Kind(_optional(str), _its_default, lambda f, flags, given: given),
    "count": Kind(_optional(int), _its_default, lambda f, flags, given: given),
    "switch": Kind(lambda f: (bool,), _its_default, lambda f, flags, given: given),
    "file": Kind(
        lambda f: (Optional[Path],),  # noqa: UP045
        _none,
        lambda f, flags, given: None if given is None else str(given),
    ),
    "names": Kind(
        lambda f: (Optional[list[str]],),  # noqa: UP045
        _none,
        lambda f, flags, given: tuple(given or ()),
    ),
    "assignments": Kind(
        lambda f: (Optional[list[str]],),  # noqa: UP045
        _none,
        lambda f, flags, given: parse_assignments(given or [], _first(flags)),
    ),
    "variables": Kind(
        lambda f: (Optional[list[str]], Optional[str]),  # noqa: UP045
        lambda f: (None, None),
        lambda f, flags, var, vars_: variables(var, vars_),
    ),
    "duration": Kind(
        lambda f: (str,),
        lambda f: (duration_text(f.default),),  # type: ignore[arg-type]  # a float's default
        lambda f, flags, given: parse_duration(given, _first(flags)),
    ),
    "true_false": Kind(
        lambda f: (Optional[str],),  # noqa: UP045
        _none,
        lambda f, flags, given: bool_option(given, _first(flags), f.default),
    ),
    "order": Kind(
        lambda f: (str,), _its_default, lambda f, flags, given: _order(given, _first(flags))
    ),
    "progress": Kind(
        lambda f: (bool,), lambda f: (True,), lambda f, flags, given: _progress_writer(given)
    ),
}
"""Each kind of field a command line sets (:attr:`assay.options.Declared.kind`): ``text``,
``count`` and ``switch`` as parsed (optional when the field's default is None); a
``file`` path as a string; ``names`` a tuple; ``assignments`` NAME=VALUE items as a
mapping; ``variables`` ``--var`` and ``--vars`` merged; a ``duration`` (``2h``; 0: no
bound) in seconds; ``true_false`` data-validator's spelling of a boolean; ``order`` one
of the event orders; ``progress`` (shown by default) the writer of the progress lines."""


@functools.cache
def parameters(
    field_name: str, cls: type[RunOptions] = RunOptions
) -> tuple[inspect.Parameter, ...]:
    """The typer parameters of a field of ``cls``: one per flag, keyword-only, named by
    the flag's ``param`` (else the field's name); built once, so every command that
    takes a flag has the same annotation."""
    f, declared = _declaration(field_name, cls)
    kind = KINDS[declared.kind]
    return tuple(
        inspect.Parameter(
            flag.param or f.name,
            inspect.Parameter.KEYWORD_ONLY,
            default=default,
            annotation=Annotated[python_type, _typer_option(flag, declared, default)],
        )
        for flag, python_type, default in zip(
            declared.flags, kind.types(f), kind.defaults(f), strict=True
        )
    )


def _declaration(field_name: str, cls: type[RunOptions]) -> tuple[Field, Declared]:
    return next((f, d) for f, d in declarations(cls) if f.name == field_name)


def _typer_option(flag: Flag, declared: Declared, default: Any) -> Any:
    more: dict[str, Any] = {"show_default": False} if default is None else {}
    if flag.metavar is not None:
        more["metavar"] = flag.metavar
    if flag.envvar is not None:
        more["envvar"] = flag.envvar
    if flag.bounds is not None:
        more["min"], more["max"] = flag.bounds
    return typer.Option(
        *flag.names, help=flag.help, rich_help_panel=declared.group.capitalize(), **more
    )


def annotated(field_name: str, flag: int = 0) -> Any:
    """The annotation of a field's flag (its first by default), for a command that names
    it among options of its own: ``remote: opt.Remote = None``."""
    return parameters(field_name)[flag].annotation


Remote = annotated("remote")
Var = annotated("vars", 0)
Vars = annotated("vars", 1)
SampleSize = annotated("sample_size")
ServerConf = annotated("server_conf")
Metrics = annotated("metrics")
MetricsTable = annotated("metrics_table")
Tag = annotated("tags")
OpenLineage = annotated("openlineage")
OpenLineageUrl = annotated("openlineage_url")
OpenLineageNamespace = annotated("openlineage_namespace")

Given = Mapping[str, Any]
"""The run options of a command line as click parsed them, by parameter name (what
:func:`run_options` converts)."""


def takes_run_options(
    command: str, *, after: Mapping[str, str] | None = None, cls: type[RunOptions] = RunOptions
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make a command of a function that takes its run options as one mapping, ``given``:
    typer sees its own parameters and, generated from the declarations, every option of
    ``cls`` whose ``commands`` name ``command``, in field order. An own keyword parameter
    named in ``after`` comes after that field's flags (``explain``'s ``--format`` after
    ``--vars``), the others after every option (``--debug``)."""
    placed = after or {}

    def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
        own = [
            p for p in inspect.signature(function, eval_str=True).parameters.values()
            if p.name != "given"
        ]  # fmt: skip
        keyword = [p for p in own if p.kind is p.KEYWORD_ONLY]
        listed = [p for p in own if p.kind is not p.KEYWORD_ONLY]
        generated: list[str] = []
        for f, declared in declarations(cls):
            if command in declared.commands and declared.flags:
                for parameter in parameters(f.name, cls):  # type: ignore[arg-type]  # hashable
                    listed.append(parameter)
                    generated.append(parameter.name)
                listed += [p for p in keyword if placed.get(p.name) == f.name]
        listed += [p for p in keyword if p.name not in placed]

        @functools.wraps(function)
        def command_function(**values: Any) -> Any:
            given = {name: values.pop(name) for name in generated}
            return function(**values, given=given)

        command_function.__signature__ = inspect.Signature(listed)  # type: ignore[attr-defined]
        command_function.__annotations__ = {}  # typer reads the signature's
        return command_function

    return decorate


def run_options(params: Given, *, cls: type[RunOptions] = RunOptions, **given: Any) -> RunOptions:
    """The options of a run from a command's parsed parameters (each value by its
    parameter's name), in field order; a field the command has no option for keeps its
    default, or takes its value from ``given`` (``on_event``).

    Raises:
        ConfigError: an option's value is wrong (the first one, in field order).
        ConfigErrors: several ``--var`` / ``--vars`` names no reference can use.
    """
    found: dict[str, Any] = {}
    for f, declared in declarations(cls):
        names = [flag.param or f.name for flag in declared.flags]
        if any(name in params for name in names):
            values = (params.get(name) for name in names)
            found[f.name] = KINDS[declared.kind].read(f, declared.flags, *values)
    return cls(**{**found, **given})
