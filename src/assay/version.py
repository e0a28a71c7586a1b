"""The package's version: one home (``pyproject.toml`` reads it, ``assay.__version__``
re-exports it), importable by any module without importing the package's API."""

from __future__ import annotations

__version__ = "0.1.0"
