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
"""

from __future__ import annotations

import os
import time

READY = "assay: Spark Connect plugin ready"


def main() -> None:
    from pyspark.sql import SparkSession

    parent = os.getppid()
    SparkSession.builder.getOrCreate()
    print(READY, flush=True)
    while os.getppid() == parent:
        time.sleep(1.0)


if __name__ == "__main__":
    main()
