"""The warm server's driver program, run by ``spark-submit`` next to the server's JVM
(assay's own process reads only its path and :data:`READY`; ``main`` never runs there).

``SparkConnectServer``'s own main forces Spark's per-session artifact isolation on, which
gives every Connect session a class loader of its own; Spark's generated-code cache is
keyed by class loader, so each new session (each command on the warm server) compiled
every generated class of its plans anew and ran them in a cold JIT (19 classes and
0.3-0.5 s for the benchmark's 10-rule suite). This driver starts the same Connect service
as a plugin of a context whose sessions share the JVM's class loader
(``spark.sql.artifact.isolation.enabled=false``, set on the command line); a session's
temp views and settings stay its own. assay adds no artifacts to sessions.

It prints :data:`READY` once the session exists and then waits; it exits when its JVM
is gone (its parent changes), so a JVM that dies alone leaves no Python process behind.

While it waits it reaps the sessions of clients that died: a client of this machine names
its process in its Connect user id (:func:`client_user_id`), and every
:data:`REAP_INTERVAL` seconds the session of a process that no longer runs is closed,
which interrupts its running operations (a client killed with SIGKILL cannot release
its session itself). Spark's own bounds on abandoned sessions and operations
(``spark.connect.session.manager.defaultSessionTimeout``, 60 min;
``spark.connect.execute.manager.detachedTimeout``, 5 min once no client is attached)
know nothing of the client's process, so they are far longer.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from typing import Any

READY = "assay: Spark Connect plugin ready"

REAP_INTERVAL = 2.0
"""Seconds between two looks for the sessions of clients that died."""

_CLIENT = re.compile(r"assay-pid-(\d+)")


def client_user_id(pid: int) -> str:
    """The Connect user id a client process of this machine gives its sessions.

    >>> client_user_id(42), client_pid(client_user_id(42)), client_pid("alice")
    ('assay-pid-42', 42, None)
    """
    return f"assay-pid-{pid}"


def client_pid(user_id: str | None) -> int | None:
    """The client process a session's user id names, or None (not one of assay's)."""
    found = _CLIENT.fullmatch(user_id or "")
    return int(found[1]) if found else None


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    with contextlib.suppress(OSError, IndexError):
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]  # noqa: SIM115
        return state != "Z"
    return True


def reap(jvm: Any, log: Any = print) -> int:
    """Close the Connect sessions whose client process is gone; how many."""
    service = getattr(jvm.org.apache.spark.sql.connect.service, "SparkConnectService$")
    manager = getattr(service, "MODULE$").sessionManager()
    sessions = manager.listActiveSessions().iterator()
    closed = 0
    while sessions.hasNext():
        info = sessions.next()
        pid = client_pid(info.userId())
        if pid is None or running(pid):
            continue
        try:
            manager.closeSession(info.key(), False)
        except Exception:  # noqa: BLE001 - Spark 4.0's closeSession takes the key alone
            manager.closeSession(info.key())
        log(f"assay: closed session {info.sessionId()} of process {pid}, which is gone")
        closed += 1
    return closed


def main() -> None:
    from pyspark.sql import SparkSession

    parent = os.getppid()
    spark = SparkSession.builder.getOrCreate()
    print(READY, flush=True)
    said = ""
    while os.getppid() == parent:
        time.sleep(REAP_INTERVAL)
        try:
            reap(spark._jvm, lambda line: print(line, file=sys.stderr, flush=True))
        except Exception as exc:  # noqa: BLE001 - the server goes on; its log says why, once
            if str(exc) != said:
                print(f"assay: reaping sessions failed: {exc}", file=sys.stderr, flush=True)
            said = str(exc)


if __name__ == "__main__":
    main()
