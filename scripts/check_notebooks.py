"""Check that notebook sources under notebooks/ are stored clean: no outputs, no execution counts.

The executed copies in book/chapters/ are written by ``python book/build.py``
alone; a source committed with outputs would duplicate them and make every
diff of a source noisy. Run by pre-commit on the notebooks a commit touches
and by tests/repository/test_lint.py on all of them. Exits 1, printing one
line per problem, if any notebook given on the command line is not clean.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def problems(path: Path) -> list[str]:
    """What keeps one notebook source from being clean; empty when it is.

    Parameters
    ----------
    path:
        A ``.ipynb`` file.

    Returns
    -------
    list of str
        One line per cell with outputs or an execution count.
    """
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        return [f"{path}: cannot be read as a notebook ({err})"]
    found = []
    for number, cell in enumerate(notebook.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        if cell.get("outputs"):
            found.append(f"{path}: cell {number} has outputs (sources are stored without them; book/build.py writes the executed copy)")
        if cell.get("execution_count") is not None:
            found.append(f"{path}: cell {number} has an execution count")
    return found


def main(argv: list[str]) -> int:
    """Check every notebook named in ``argv``; print each problem; 1 if there was any."""
    found = [line for name in argv for line in problems(Path(name))]
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
