"""Shell commands of a data-validator config (``shell`` variables, ``pipe`` outputs): the
variables they may use, and running one (only with ``--allow-shell``)."""

from __future__ import annotations

from collections.abc import Mapping

from assay.config import shell
from assay.config.node import Node
from assay.errors import VariableError
from assay.grammar import references
from assay.ir.outputs import DeferredVariable


def shown_command(node: Node) -> str:
    text = str(node.value).strip().replace("\n", " ")
    return text if len(text) <= 60 else text[:57] + "..."


def check_shell_refs(text: str, node: Node) -> None:
    for ref in references(text, node.origin, escapes=False):
        if shell.reserved(ref):
            raise node.error(
                f"a shell command cannot use ${ref}: variables are passed to the command as "
                f"environment variables, and {ref} would change how the shell itself behaves",
                hint="rename the variable",
            )


def run_shell(var: DeferredVariable, values: Mapping[str, str]) -> str:
    env = {r: values[r] for r in references(var.text, var.origin, escapes=False) if r in values}
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
