"""Spark exceptions -> short messages and assay errors a user can act on."""

from __future__ import annotations

import re
from pathlib import Path

from assay.errors import AssayError, ConfigError, SparkFailure
from assay.executor.deadline import Interrupted, PlanTimeout
from assay.ir.origin import Origin

# Analysis errors caused by the data not being there: the environment, not the config.
_MISSING_DATA = (
    "TABLE_OR_VIEW_NOT_FOUND",
    "PATH_NOT_FOUND",
    "SCHEMA_NOT_FOUND",
    "UNABLE_TO_INFER_SCHEMA",
)
_TOKEN = re.compile(r"(token=)[^;&\s'\"]+")


def condition_of(exc: BaseException) -> str | None:
    """The Spark error condition (``TABLE_OR_VIEW_NOT_FOUND``...) when there is one."""
    get = getattr(exc, "getCondition", None) or getattr(exc, "getErrorClass", None)
    try:
        return get() if callable(get) else None
    except Exception:  # noqa: BLE001 - a broken error object must not hide the real error
        return None


# The analysed plan Spark appends to an analysis error (``;\n'Project [...]``, ``+- ...``):
# not the user's words (a parse error's ``== SQL ==`` block quotes the query, kept).
_PLAN_LINE = re.compile(r"^\s*(?:'[A-Z]\w*|:?\+- |:- |\w+ \[.*#\d+)")

# What follows the message in Spark's text: the JVM's stack traces, gRPC's debug string.
_TRACE_MARKERS = (
    "\n\nJVM stacktrace:", "\nJVM stacktrace:", "\n\tdebug_error_string", "\nDriver stacktrace:"
)  # fmt: skip

# A Java stack trace's lines inside a message (a task's failure carries its executor's):
# frames, "... 12 more", and the causes and suppressed exceptions they belong to.
_JAVA_TRACE_LINE = re.compile(
    r"^\s*(?:at [\w$.<>/-]+\(.*\)|\.\.\. \d+ more|Caused by: |Suppressed: )"
)

# A task's failure as the driver words it, before the exception that failed the task.
_TASK_FAILURE = re.compile(
    r"^(?:\[[A-Z_.]+\] )?Job aborted due to stage failure: .*?most recent failure: "
    r"Lost task [^:]*?\(TID \d+\)(?: \([^)]*\))?: "
)

# A Java exception named at the start of a line: ``java.io.IOException: Mkdirs failed``.
_JAVA_EXCEPTION = re.compile(r"^((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*): ")


def spark_message(exc: BaseException, max_lines: int = 12) -> str:
    """The useful part of a Spark error, the one cleaner every message of Spark's goes
    through: no JVM stack trace (nor a task's, inside the message), no gRPC debug string,
    no analysed plan, tokens redacted, at most ``max_lines`` lines. A task's failure is
    said as the exception that failed the task.

    >>> class E(Exception): pass
    >>> print(spark_message(E("[TABLE_OR_VIEW_NOT_FOUND] The table `x` cannot be found."
    ...     " SQLSTATE: 42P01; line 1 pos 14;\\n'Project [*]\\n+- 'UnresolvedRelation [x]")))
    [TABLE_OR_VIEW_NOT_FOUND] The table `x` cannot be found. SQLSTATE: 42P01; line 1 pos 14
    >>> print(spark_message(E("Job aborted due to stage failure: Task 1 in stage 0.0 failed 1"
    ...     " times, most recent failure: Lost task 1.0 in stage 0.0 (TID 1) (localhost executor"
    ...     " driver): java.io.IOException: Mkdirs failed to create file:/x\\n\\tat"
    ...     " org.apache.hadoop.fs.ChecksumFileSystem.create(ChecksumFileSystem.java:772)\\n"
    ...     "\\t... 20 more\\nCaused by: java.io.IOException: no\\n\\tat a.B.c(B.java:1)")))
    a Spark task failed: (java.io.IOException) Mkdirs failed to create file:/x
    """
    text = str(exc)
    for marker in _TRACE_MARKERS:
        text = text.split(marker)[0]
    lines = []
    for line in text.strip().splitlines():
        if _PLAN_LINE.match(line):
            break  # the plan or the quoted query: everything after it is too
        if _JAVA_TRACE_LINE.match(line):
            continue
        if line.strip():
            lines.append(line.rstrip())
    if lines:
        lines[0] = _task_failure(lines[0])
        lines[-1] = lines[-1].rstrip(";")
    text = "\n".join(lines[:max_lines])
    return _TOKEN.sub(r"\1***", text)


def _task_failure(line: str) -> str:
    """A stage failure's line as the exception of the task that failed, named as pyspark
    names a driver's (``(java.io.IOException) ...``); any other line as it is."""
    found = _TASK_FAILURE.match(line)
    if found is None:
        return line
    cause = line[found.end() :]
    named = _JAVA_EXCEPTION.match(cause)
    if named is not None:
        cause = f"({named[1]}) {cause[named.end() :]}"
    return f"a Spark task failed: {cause}"


_GONE = ("UNAVAILABLE", "DEADLINE_EXCEEDED", "CANCELLED")


def _chain(exc: BaseException):
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def lost_server(exc: BaseException) -> bool:
    """Whether ``exc`` says the Spark Connect server stopped answering (a gRPC
    ``UNAVAILABLE``, the client's retries exhausted), not that a query failed."""
    for e in _chain(exc):
        code = getattr(e, "code", None)
        try:
            name = getattr(code(), "name", "") if callable(code) else ""
        except Exception:  # noqa: BLE001 - not a gRPC error after all
            name = ""
        if name in _GONE or type(e).__name__ == "RetriesExceeded":
            return True
        if any(f"StatusCode.{g}" in str(e) for g in _GONE[:2]):
            return True
    return False


_PACKAGE = Path(__file__).resolve().parents[1]


def internal(exc: BaseException) -> bool:
    """Whether ``exc`` is a fault of assay's own code (raised there, not by Spark, the
    Connect client or one of assay's own errors): it must not be blamed on Spark.

    >>> internal(KeyError("m001"))  # not raised anywhere: no frame to blame
    False
    """
    if isinstance(exc, (AssayError, PlanTimeout, Interrupted)):
        return False
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return Path(tb.tb_frame.f_code.co_filename).resolve().is_relative_to(_PACKAGE)


def failure_sentence(exc: BaseException, *, server: str, table: str, step: str) -> str:
    """What went wrong while running a table, as a sentence a user can act on: the
    server that stopped answering and when, Spark's own message (short, redacted), or,
    for a fault of assay's own, that it is one."""
    if isinstance(exc, PlanTimeout):
        return f"table {table}'s {step} {exc}"
    if isinstance(exc, Interrupted):
        return f"table {table}'s {step} was interrupted: the run was stopped"
    if internal(exc):
        return (
            f"assay failed during table {table}'s {step}, an internal error (please report"
            f" it): {type(exc).__name__}: {spark_message(exc)}"
        )
    if lost_server(exc):
        return (
            f"{server} stopped answering during table {table}'s {step}; check that the "
            "server is running and reachable (its log says why it stopped), then run again"
        )
    return f"Spark failed during table {table}'s {step}: {spark_message(exc)}"


_SQLSTATE = re.compile(r"SQLSTATE: ([0-9A-Z]{5})")


def is_analysis_error(exc: BaseException) -> bool:
    """Whether Spark rejected the query itself (bad SQL, unknown column), not the run:
    an analysis or parse exception, or SQLSTATE class 42 (syntax error or access rule
    violation), which also comes as a generic gRPC error when the server's exception
    class is one the client does not map (``ExtendedAnalysisException``)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if names & {"AnalysisException", "ParseException"}:
        return True
    get = getattr(exc, "getSqlState", None)
    try:
        state = get() if callable(get) else None
    except Exception:  # noqa: BLE001 - a broken error object must not hide the real error
        state = None
    if state is None:
        found = _SQLSTATE.search(str(exc).split("JVM stacktrace:")[0])
        state = found[1] if found else None
    return bool(state and state.startswith("42"))


def to_assay_error(
    exc: BaseException, what: str, origin: Origin | None, reason: str | None = None
) -> AssayError:
    """Classify a Spark exception raised while doing ``what`` (``reason``: Spark's words
    for it when not its own message, e.g. :func:`in_users_text`).

    Analysis errors in config text (bad SQL, unknown columns) are config errors (exit 2);
    missing data and everything that failed while running are Spark failures (exit 3).
    """
    if isinstance(exc, AssayError):
        return exc
    condition = condition_of(exc)
    message = f"{what}: {reason if reason is not None else spark_message(exc)}"
    if is_analysis_error(exc) and not (condition and condition.startswith(_MISSING_DATA)):
        return ConfigError(message, origin=origin)
    hint = None
    if condition and condition.startswith(_MISSING_DATA):
        hint = "check that the table or path exists and is readable by the Spark server"
    return SparkFailure(message, origin=origin, hint=hint)


_PARSE_AT = re.compile(r"\(line (\d+), pos (\d+)\)")
_ANALYSIS_AT = re.compile(r";? ?line (\d+) pos (\d+)")


def in_users_text(exc: BaseException, query: str, first_line: int) -> str:
    """Spark's message for ``exc`` (raised for a text whose line ``first_line`` is where
    ``query`` starts) about ``query`` alone: the first line of Spark's message, with its
    position counted in ``query`` and the query's line with a caret under it; never the
    text assay wrapped the query in, nor an analysed plan.

    >>> class E(Exception): pass
    >>> print(in_users_text(E("[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'."
    ...     " SQLSTATE: 42601 (line 3, pos 0)\\n\\n== SQL ==\\nWITH ..."), "SELEC 1", 3))
    [PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. SQLSTATE: 42601 (line 1, pos 0)
        SELEC 1
        ^
    """
    text = spark_message(exc)
    first = text.split("\n", 1)[0]
    for pattern in (_PARSE_AT, _ANALYSIS_AT):
        found = pattern.search(first)
        if found is None:
            continue
        line, pos = int(found[1]) - first_line + 1, int(found[2])
        lines = query.split("\n")
        if not 1 <= line <= len(lines):
            break
        at = "(line {}, pos {})" if pattern is _PARSE_AT else "line {} pos {}"
        head = first[: found.start()].rstrip(" ;") + " " + at.format(line, pos)
        return f"{head}\n    {lines[line - 1]}\n    {' ' * pos}^"
    # only the sentence: what follows is the wrapper or an analysed plan
    return first.rstrip(" ;")
