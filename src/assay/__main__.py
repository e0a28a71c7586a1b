"""``python -m assay``."""

from __future__ import annotations

from assay.cli.app import main

main()
