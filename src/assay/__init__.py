"""spark-assay: data-quality checks compiled into one Spark plan per table.

Importing ``assay`` is cheap: nothing here imports pyspark, lark or orjson.
"""

from __future__ import annotations

__version__ = "0.1.0"
