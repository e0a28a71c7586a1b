"""Emission: plan IR -> Spark Connect DataFrames (the only place plans meet pyspark)."""
