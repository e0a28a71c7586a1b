"""Finding the Java runtime the embedded server will run on, and its version."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from assay.errors import EnvironmentFailure

MIN_JAVA = 17


_JAVA_VERSION_RE = re.compile(r'version\s+"(\d+)(?:\.(\d+))?')


_JAVA_HINT = (
    "install a Java 17+ runtime (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME"
)


def parse_java_version(output: str) -> int | None:
    """The major version in ``java -version`` output: ``1.8.0_392`` -> 8, ``17.0.15`` -> 17."""
    match = _JAVA_VERSION_RE.search(output)
    if match is None:
        return None
    major = int(match.group(1))
    if major == 1 and match.group(2) is not None:
        return int(match.group(2))
    return major


def java_version(java: str | None = None) -> int | None:
    """The major version of ``java`` (default: the one Spark would use), or ``None`` when it
    cannot be run or its output is not understood."""
    if java is None:
        try:
            java = find_java()
        except EnvironmentFailure:
            return None
    try:
        done = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_java_version(done.stderr + "\n" + done.stdout)


def find_java(env: Mapping[str, str] | None = None) -> str:
    """The ``java`` executable spark-submit will run: ``$JAVA_HOME/bin/java`` when JAVA_HOME
    is set (as spark-class does, with no PATH fallback), else ``java`` on PATH."""
    env = os.environ if env is None else env
    java_home = env.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home, "bin", "java")
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
        raise EnvironmentFailure(
            f"Java was not found: JAVA_HOME is set to '{java_home}' but it has no bin/java",
            hint=_JAVA_HINT,
        )
    found = shutil.which("java", path=env.get("PATH", os.defpath))
    if found is None:
        raise EnvironmentFailure(
            "Java was not found (JAVA_HOME is unset and there is no 'java' on PATH); "
            "the embedded Spark server needs it",
            hint=_JAVA_HINT,
        )
    return found


def check_java(env: Mapping[str, str] | None = None) -> str:
    """``find_java`` plus a version check; raises ``EnvironmentFailure`` below Java 17.
    An unreadable version is let through (Spark will say what is wrong)."""
    java = find_java(env)
    version = java_version(java)
    if version is not None and version < MIN_JAVA:
        raise EnvironmentFailure(
            f"Java {version} was found at {java}, but Spark 4 needs Java {MIN_JAVA} or newer",
            hint=_JAVA_HINT,
        )
    return java
