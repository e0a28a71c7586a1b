"""``python -m assay``."""

from __future__ import annotations

from assay.cli.entry import main

main()
