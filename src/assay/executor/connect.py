"""Which sessions a Python caller may hand over (:mod:`assay.api`): Spark Connect ones only.

assay is a Spark Connect thin client (no py4j): a classic session, or a DataFrame of one,
is refused before anything runs, with what to do instead. Nothing here starts a JVM.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.errors import UnsupportedSession

if TYPE_CHECKING:
    from pyspark.sql.connect.dataframe import DataFrame
    from pyspark.sql.connect.session import SparkSession

CONNECT_HINT = (
    'use a Spark Connect session: SparkSession.builder.remote("sc://host:15002")'
    '.getOrCreate(); on Spark 4, .config("spark.api.mode", "connect") gives a Connect'
    " session for a master too; or call assay.run(config) without spark= to use assay's"
    " embedded server"
)


def is_classic(value: object) -> bool:
    """Whether ``value`` is a classic (py4j) PySpark session or DataFrame.

    >>> is_classic(object())
    False
    """
    module = type(value).__module__
    return module.startswith("pyspark.sql.classic") or module in (
        "pyspark.sql.session",
        "pyspark.sql.dataframe",
    )


def connect_session(spark: object) -> SparkSession:
    """``spark`` itself when it is a Spark Connect session.

    Raises:
        UnsupportedSession: a classic session, or something else.
    """
    from pyspark.sql.connect.session import SparkSession

    if isinstance(spark, SparkSession):
        return spark
    if is_classic(spark):
        raise UnsupportedSession(
            "assay runs over Spark Connect, but this is a classic SparkSession", hint=CONNECT_HINT
        )
    raise UnsupportedSession(
        f"expected a Spark Connect SparkSession, got {type(spark).__name__}", hint=CONNECT_HINT
    )


def connect_frame(df: object) -> DataFrame:
    """``df`` itself when it is a Spark Connect DataFrame.

    Raises:
        UnsupportedSession: a DataFrame of a classic session, or something else.
    """
    from pyspark.sql.connect.dataframe import DataFrame

    if isinstance(df, DataFrame):
        return df
    if is_classic(df):
        raise UnsupportedSession(
            "assay runs over Spark Connect, but this DataFrame belongs to a classic SparkSession",
            hint=CONNECT_HINT,
        )
    raise UnsupportedSession(
        f"expected a Spark Connect DataFrame, got {type(df).__name__}", hint=CONNECT_HINT
    )
