"""``import assay`` names its API lazily; a public name that is also the name of one of the
package's modules would become that module as soon as anything imports it (Python sets
the submodule on its package), so ``assay.convert(...)`` would call a module."""

from __future__ import annotations

import importlib
import pkgutil
import types

import assay


def test_no_public_name_is_a_module_of_the_package():
    modules = {m.name for m in pkgutil.iter_modules(assay.__path__)}
    assert modules & set(assay.__all__) == set()


def test_every_public_name_is_what_it_names_after_every_module_is_imported():
    for module in pkgutil.walk_packages(assay.__path__, "assay."):
        if module.name.endswith(("__main__", "connect_driver")):
            continue  # an entry point and the warm server's driver program: run, not imported
        importlib.import_module(module.name)
    for name in assay.__all__:
        assert not isinstance(getattr(assay, name), types.ModuleType), name
