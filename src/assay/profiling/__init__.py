"""Profiles and suggestions (docs/profile.md), their pure part: the first plan, every
column's statistics as measures of one aggregate (``plan``), the second look its values call
for (``second``), and the starter config ``assay suggest`` writes from a profile's events
(``suggest``). It imports the IR and the planner, never pyspark.

The rest lives with the layer it belongs to: the Spark frames in ``emit/profile.py``, the
run in ``executor/profile.py``, the ``profile_column``/``profile_table`` events in
``report/profile.py`` beside the other events, the page in ``report/profile_page.py``,
``assay.profile`` in ``api/profiling.py`` and the commands in ``cli/profile.py``.
"""
