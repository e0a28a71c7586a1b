"""An oracle engine's answers recorded beside its test, keyed by what they depend on.

The live-engine oracles (DQX, Great Expectations) recompute the same answers on every run
while the data, the checks, the engine and the test's own calling code stay the same.
Their answers (verdicts and numbers only) are kept in a JSON file beside the test, one
entry per case, each with the digest (``key``) of everything the answers depend on:

- the rows as the test generates them and their types (``rows_digest``), made
  deterministic by writing each value's ``repr`` in the schema's column order;
- the checks or suite as written (JSON, sorted keys);
- the engine's version and pyspark's (``importlib.metadata``);
- the source of the test's code that calls the engine (``inspect.getsource``).

``answers`` returns the recorded answers when the case's key matches (the engine is not
run); else it runs the engine live and returns its answers, writing them when
``ASSAY_RECORD_ORACLES=1`` or when the file has no entry for the case yet (a new case, a
new file), and otherwise warning that the recording is stale. ``stale`` lists the cases whose recorded key is not the current
one: each oracle has a test without Spark that fails on it, so a stale recording cannot go
unnoticed although the oracle itself then checks against the live engine.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import inspect
import json
import math
import os
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

RECORD = "ASSAY_RECORD_ORACLES"


def rows_digest(schema: Any, rows: Iterable[dict[str, Any]]) -> str:
    """The digest of a table as generated: its (arrow) schema and each row's values'
    ``repr`` in the schema's column order (a missing value is None, as arrow reads it)."""
    names = [field.name for field in schema]
    text = "\n".join([str(schema), *(repr([row.get(n) for n in names]) for row in rows)])
    return hashlib.sha256(text.encode()).hexdigest()


def sources(*objects: Any) -> str:
    """The source of the test's functions and classes that call the engine."""
    return "\n".join(inspect.getsource(o) for o in objects)


def versions(*distributions: str) -> dict[str, str]:
    return {d: importlib.metadata.version(d) for d in distributions}


def key_of(inputs: dict[str, Any]) -> str:
    """The digest of a case's inputs (JSON, sorted keys; values not JSON as ``repr``)."""
    text = json.dumps(inputs, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.exists() else {}


def plain(value: Any) -> Any:
    """``value`` with numpy's scalars as Python's (``np.True_`` is ``True``): what a
    recording gives back, for the live answers to compare as the recorded ones do."""
    if type(value).__module__ == "numpy" and hasattr(value, "item"):
        return value.item()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def _plain(value: Any, where: str) -> None:
    """Refuse what JSON would not give back as it is (a tuple, a Decimal, a numpy
    number): the recorded answers must compare exactly as the live ones."""
    if value is None or type(value) in (bool, int, float, str):
        return
    if type(value) is list:
        for i, item in enumerate(value):
            _plain(item, f"{where}[{i}]")
        return
    if type(value) is dict and all(type(k) is str for k in value):
        for k, item in value.items():
            _plain(item, f"{where}.{k}")
        return
    raise TypeError(f"{where}: {type(value).__name__} {value!r} would not be recorded as is")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _write(path: Path, case: str, key: str, inputs: dict[str, Any], found: Any) -> None:
    _plain(found, case)
    back = json.loads(json.dumps(found))
    assert _same(found, back), f"{case}: the answers do not read back as written"
    recording = _read(path)
    about = {k: v for k, v in inputs.items() if k == "versions"}
    recording[case] = {"key": key, **about, "answers": found}
    path.write_text(_text(recording))


def _text(recording: dict[str, Any]) -> str:
    """The recording as sorted JSON, one line per answer (its diff reads answer by answer)."""

    def one(value: Any) -> str:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)

    lines = ["{"]
    for i, (case, entry) in enumerate(sorted(recording.items())):
        lines.append(f" {one(case)}: {{")
        lines.append('  "answers": {')
        found = sorted(entry["answers"].items())
        lines += [
            f"   {one(k)}: {one(v)}{',' * (j < len(found) - 1)}" for j, (k, v) in enumerate(found)
        ]
        lines.append("  },")
        rest = sorted((k, v) for k, v in entry.items() if k != "answers")
        lines += [
            f"  {one(k)}: {one(v)}{',' * (j < len(rest) - 1)}" for j, (k, v) in enumerate(rest)
        ]
        lines.append(" }" + "," * (i < len(recording) - 1))
    return "\n".join([*lines, "}"]) + "\n"


def answers(path: Path, case: str, inputs: dict[str, Any], live: Callable[[], Any]) -> Any:
    """The engine's answers for ``case``: recorded if its key is ``inputs``' digest,
    else ``live()`` (recorded when ``ASSAY_RECORD_ORACLES=1`` or the file has no entry for
    ``case`` yet)."""
    key = key_of(inputs)
    entry = _read(path).get(case)
    record = os.environ.get(RECORD) == "1" or entry is None
    if entry is not None and entry["key"] == key and not record:
        return entry["answers"]
    found = live()
    if record:
        _write(path, case, key, inputs, found)
    else:
        warnings.warn(
            f"{path.name} [{case}] is stale (the data, the checks, the engine's version or "
            f"the test's calling code changed): the engine ran live; re-record with "
            f"{RECORD}=1 python -m pytest {_shown(path.parent)}",
            stacklevel=2,
        )
    return found


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def stale(path: Path, cases: dict[str, dict[str, Any]]) -> list[str]:
    """The cases (name -> inputs) whose recording is missing or keyed by other inputs."""
    recording = _read(path)
    return [
        f"{case}: recorded {recording.get(case, {}).get('versions')}, now {inputs.get('versions')}"
        for case, inputs in cases.items()
        if recording.get(case, {}).get("key") != key_of(inputs)
    ]


def assert_current(path: Path, cases: dict[str, dict[str, Any]], engine: str, test: str) -> None:
    """Fail, naming how to re-record, when a recording of ``engine``'s answers is stale
    (``test``: the test file whose live run records it). When only the installed versions
    differ (a new release on a fresh install), skip saying so: the oracle test runs the
    engine live then, so nothing is compared with old answers."""
    found = stale(path, cases)
    recording = _read(path)
    by_versions = [
        case
        for case, inputs in cases.items()
        if recording.get(case, {}).get("key") != key_of(inputs)
        and recording.get(case, {}).get("key")
        == key_of({**inputs, "versions": recording.get(case, {}).get("versions")})
    ]
    how = f"re-record with {RECORD}=1 python -m pytest {test}"
    if found and len(by_versions) == len(found):
        pytest.skip(f"{engine}'s answers were recorded with other versions ({how})")
    assert not found, (
        f"{engine}'s recorded answers are stale (the oracle ran {engine} live): {how}\n"
        + "\n".join(found)
    )
