"""Analysis without a scan: several of a table's questions to Spark in one analysis RPC."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.connect.session import SparkSession


def analysed_beside(spark: SparkSession, text: str, frame: DataFrame) -> None:
    """Have Spark analyse the query ``text`` and ``frame`` together: the query's relation
    cross-joined with the frame, its schema read (one analysis RPC, no scan, no command:
    the relation is lazy, where ``spark.sql`` would first run the text as a command).
    Raises what Spark raises for either; when it does not, each analyses alone."""
    from pyspark.sql.connect.dataframe import DataFrame as ConnectFrame
    from pyspark.sql.connect.plan import SQL

    _ = ConnectFrame(SQL(text, [], {}, []), spark).crossJoin(frame).schema
