"""Dataset comparison (reconciliation by key, docs/compare.md), its pure part: which columns
are compared and how, the names of the one aggregate's outputs (``plan``), the metrics read
back and the checks' verdicts (``judge``), the numeric tolerances (``tolerance``) and the
text ``assay explain`` prints (``render``). It imports only the IR.

The rest of a comparison lives with the layer it belongs to, which it cannot leave without
an import circle between packages (the planner's explain reads ``judge`` and ``render``;
the suite's run in ``executor.run`` runs comparisons): its IR in ``ir/compare.py``, its
config entries in ``dialects/compare.py`` (spark-data-test's in
``dialects/spark_data_test.py``), its Spark frames in ``emit/compare.py``,
``emit/compare_tolerance.py`` and ``emit/sdt_reports.py``, its run in
``executor/compare.py`` (with ``prepared_comparison.py`` and ``sdt_reports.py``), its
event and pages in ``report/comparison.py``, ``report/compared.py`` and
``report/sidebyside.py``, ``assay.compare`` in ``api/comparing.py`` and ``assay compare``
in ``cli/compare.py``.
"""
