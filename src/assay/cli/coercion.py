"""typer's coercion of an option's value, built only for a value that needs it.

typer (from 0.26) coerces every parameter of the command run through a pydantic
``TypeAdapter`` it builds on first use, even a parameter left out, whose value (None) it
then returns without the adapter; ``assay run`` has ~30 options, most left out, so its
parse built ~30 adapters and imported pydantic: ~85 ms of every command's start. Here a
parameter's adapter is built only for a value it would change: None gives what typer's
own coercion gives it (``RuntimeParam.coerce``: ``()`` for a parameter of many values,
else None); a ``str``, ``int`` or ``bool`` for a plain parameter of that type (no parser
or clamping; an ``int`` within its bounds) is what the adapter returns (its default, a
string as given); the config files (``list[Path]``, no path checks), the one argument a
run is given, are made ``Path`` objects as pydantic makes them. So a plain run does not
import pydantic. Any other version of typer (without ``get_runtime_param``) is left as it
is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


class _Deferred:
    """A parameter's coercion, typer's own built only for a value given."""

    def __init__(self, build: Callable[[], Any], plain: Any, bounds: tuple[Any, Any]) -> None:
        self._build = build
        self._bounds = bounds
        """An ``int`` parameter's ``min`` and ``max`` (None: unbounded)."""
        self._plain = plain
        """``str``, ``int``, ``bool`` or ``list[Path]`` when the parameter is that type
        alone."""

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        many = param.multiple or param.nargs == -1
        if value is None:
            return () if many else None
        if type(value) is self._plain and self._within(value):  # what the adapter returns
            return value
        listed = many and isinstance(value, (list, tuple))
        if self._plain == list[Path] and listed and all(type(v) is str for v in value):
            return [Path(item) for item in value]
        return self._build().coerce(value, param=param, ctx=ctx)

    def _within(self, value: Any) -> bool:
        low, high = self._bounds
        return (low is None or value >= low) and (high is None or value <= high)


def defer_coercions(command: Any) -> Any:
    """``command`` (a click command or group, as typer built it), each of its parameters'
    coercion deferred to a value that needs it (this module's docstring), its ``--help``
    option's too (made on first use)."""
    for sub in getattr(command, "commands", {}).values():
        defer_coercions(sub)
    for param in command.params:
        _defer(param)
    made = getattr(command, "get_help_option", None)
    if made is not None:

        def get_help_option(ctx: Any) -> Any:
            option = made(ctx)
            if option is not None:
                _defer(option)
            return option

        command.get_help_option = get_help_option
    return command


def _defer(param: Any) -> None:
    build = getattr(param, "get_runtime_param", None)
    if build is None or "get_runtime_param" in vars(param):
        return  # not typer's coercion, or deferred already
    if getattr(param, "_runtime_param", False) is not None:
        return
    info = param.type_descriptor.parameter_info
    bounds = (getattr(info, "min", None), getattr(info, "max", None))
    deferred = _Deferred(build, _plain(param), bounds)
    param.get_runtime_param = lambda: deferred


def _plain(param: Any) -> Any:
    """``param``'s type when it is ``str``, ``int``, ``bool`` or ``list[Path]`` with none
    of typer's parsers, clamping or path checks (bounds on an ``int`` only); else None."""
    descriptor = getattr(param, "type_descriptor", None)
    info = getattr(descriptor, "parameter_info", None)
    if descriptor is None or info is None or descriptor.file_annotation is not None:
        return None
    unset = {"parser": None, "clamp": False, "exists": False,
             "file_okay": True, "dir_okay": True, "writable": False, "readable": True,
             "resolve_path": False, "allow_dash": False, "path_type": None}  # fmt: skip
    if any(getattr(info, name, default) != default for name, default in unset.items()):
        return None
    annotation = descriptor.annotation
    bounded = getattr(info, "min", None) is not None or getattr(info, "max", None) is not None
    if bounded and annotation is not int:
        return None
    return annotation if annotation in (str, int, bool, list[Path]) else None
