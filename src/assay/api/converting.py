"""``assay.convert``: the native config equivalent of config files in any dialect
(docs/dialects.md, "Migrating for good: assay convert")."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from assay.api.suites import Config, load, load_plugins
from assay.options import RunOptions, checked


def convert(
    config: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    out: str | os.PathLike[str] | None = None,
    **options: Any,
) -> str:
    """The native YAML config that loads to the same tables and rules as ``config`` (one
    file or several), with the keywords of :func:`assay.load` that bind the files to data
    (``vars``, ``dialect``, ``source``, ``inputs``, ``pipeline``, ``plugins``). Paths in it
    are relative to ``out``'s directory (the text is not written there), absolute without.

    Raises:
        ConfigErrors: the files' errors, or what the native format cannot say, each at its
            place in the original file.
    """
    return convert_with(config, RunOptions(**checked(load, options)), out=out)


def convert_with(config: Config, options: RunOptions, *, out: Any = None) -> str:
    """:func:`convert` with the options as one object (what the CLI passes down)."""
    from assay.conversion import convert_files
    from assay.dialects.base import LoadOptions

    load_plugins(options.plugins)
    paths = [config] if isinstance(config, (str, os.PathLike)) else list(config)  # type: ignore[arg-type]
    return convert_files(
        paths,
        variables=options.vars,
        dialect=options.dialect,
        options=LoadOptions.of(options, for_run=False),
        out=out,
    )
