"""Every doctest of every module of ``assay`` runs with the suite (no Spark server).

The modules are found by walking the package, so a new module's examples run without
being listed here. Run them alone with ``python -m pytest tests/test_docs.py``.
"""

from __future__ import annotations

import doctest
import importlib
import io
import pkgutil

import pytest

import assay

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def modules() -> list[str]:
    names = [assay.__name__]
    names += [m.name for m in pkgutil.walk_packages(assay.__path__, prefix="assay.")]
    return sorted(n for n in names if not n.endswith("__main__"))


def examples(name: str) -> list[doctest.DocTest]:
    module = importlib.import_module(name)
    tests = doctest.DocTestFinder(exclude_empty=True).find(module, name)
    return [t for t in tests if t.examples]


@pytest.mark.parametrize("name", modules())
def test_doctests(name):
    out = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in examples(name):
        runner.run(test, out=out.write)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, out.getvalue()


def test_the_doctests_are_found():
    # a walk that found nothing (a packaging change, say) must not pass silently
    count = sum(len(t.examples) for name in modules() for t in examples(name))
    assert count >= 50, count
