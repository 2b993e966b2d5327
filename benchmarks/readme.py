"""Rewrite the README's performance table from ``data/benchmarks/latest.json``: ``python -m benchmarks.readme``.

``scripts/bench.sh`` runs it after the suite, so the README always shows the
latest record (``tests/repository/test_benchmark_report.py`` checks that it does).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cvlib.presentation.performance import load_record

from .report import with_readme_table

README = Path("README.md")


def main() -> None:
    record = load_record(sys.argv[1] if len(sys.argv) > 1 else None)
    text = with_readme_table(README.read_text(), record)
    tmp = README.with_name(f".{README.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, README)
    print(f"rewrote the performance table in {README}", file=sys.stderr)


if __name__ == "__main__":
    main()
