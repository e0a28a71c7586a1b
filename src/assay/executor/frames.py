"""DataFrames a Python caller hands to a run (``assay.validate``), bound without temp views.

A table whose source is a :class:`~assay.ir.suite.DataFrameSource` reads the DataFrame
itself; SQL text names it by :attr:`DataFrameSource.sql_name`, and the run's session is
wrapped so that every ``spark.sql`` call naming it passes the DataFrame's plan along with
the query (Spark Connect's ``spark.sql(text, name=df)``: a subquery alias inside the same
SQL command, so no view is created and nothing is left in the session).

Spark records the statements that bind the DataFrame as SQL executions of their own
(analysis, no scan): a table whose SQL rules cannot be folded into its aggregate shows
more executions in the Spark UI than ``spark_plans`` counts; folded SQL rules (the
common ``SELECT count(*) ... FROM _validation_df WHERE ...``) are analysed over the
DataFrame's schema instead and cost nothing extra.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from pyspark.sql.connect import functions as F

from assay.emit import spark as emit
from assay.ir.suite import DataFrameSource, Source

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.connect.session import SparkSession


class BoundSession:
    """A session whose SQL may name the run's DataFrames; everything else is the
    session's own. One per run: concurrent runs on one session do not share it."""

    def __init__(self, spark: SparkSession, frames: Mapping[str, DataFrame]):
        self.session = spark
        self.frames = dict(frames)

    def sql(self, query: str, args: Any = None, **kwargs: Any) -> DataFrame:
        """``spark.sql(query)``, with each bound DataFrame the text names passed along.

        The relation is built lazily (as :func:`assay.emit.spark.analysed` does): Spark
        Connect's own ``spark.sql`` would first run the text as a command, which Spark
        records as an execution once the text holds a DataFrame."""
        text, fields = self.formatted(query)
        if not fields or args is not None or kwargs:
            return cast("DataFrame", self.session.sql(query, args, **kwargs))
        from pyspark.sql.connect.dataframe import DataFrame
        from pyspark.sql.connect.plan import SQL, SubqueryAlias
        from pyspark.sql.connect.sql_formatter import SQLStringFormatter

        formatter = SQLStringFormatter(self.session)
        text = formatter.format(text, **fields)
        views = [SubqueryAlias(df._plan, name) for df, name in formatter._temp_views]  # noqa: SLF001
        return DataFrame(SQL(text, [], {}, views), self.session)

    def formatted(self, query: str) -> tuple[str, dict[str, DataFrame]]:
        """``query`` as a format string naming the bound DataFrames it uses, and them."""
        named = {
            name: df for name, df in self.frames.items() if DataFrameSource(name).sql_name in query
        }
        if not named:
            return query, {}
        # The DataFrames reach Spark as format fields: escape every other brace first.
        text = query.replace("{", "{{").replace("}", "}}")
        fields = {}
        for name, df in named.items():
            text = text.replace(DataFrameSource(name).sql_name, "{" + f"f_{name}" + "}")
            fields[f"f_{name}"] = df
        return text, fields

    def __getattr__(self, name: str) -> Any:
        return getattr(self.session, name)


def bind(spark: SparkSession, frames: Mapping[str, DataFrame] | None) -> SparkSession:
    """The session the run uses: ``spark`` itself unless there are DataFrames to bind."""
    if not frames:
        return spark
    return cast("SparkSession", BoundSession(unbound(spark), frames))


def unbound(spark: SparkSession) -> SparkSession:
    """The real session under a bound one."""
    return spark.session if isinstance(spark, BoundSession) else spark


def source_frame(spark: SparkSession, source: Source, row_filter: str | None) -> DataFrame:
    """The table's rows, as :func:`assay.emit.spark.source_frame`, or a bound DataFrame."""
    if not isinstance(source, DataFrameSource):
        return emit.source_frame(spark, source, row_filter)
    frames: Mapping[str, DataFrame] = spark.frames if isinstance(spark, BoundSession) else {}
    if source.name not in frames:
        raise KeyError(f"no DataFrame is bound to the source {source.name!r} in this run")
    df = frames[source.name]
    return cast("DataFrame", df.where(F.expr(row_filter))) if row_filter else df
