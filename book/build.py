"""The book's one pipeline: papermill executes every notebook, then Jupyter Book renders HTML.

Papermill is the only executor (``_config.yml`` turns Jupyter Book's own
execution off), so what the book shows is exactly what the committed executed
notebooks hold, and nbval can re-run those notebooks against their outputs.

For each ``notebooks/*.ipynb`` (sorted by name) this

1. refuses a notebook without exactly one cell tagged ``parameters``
   (papermill would otherwise inject parameters at the top with only a
   warning, and ``-p`` would silently change nothing);
2. executes it with its default parameters, kernel ``python3``, working
   directory ``notebooks/``;
3. tags papermill's injected-parameters cell (present when parameters are
   passed) ``remove-input`` so the rendered page hides it;
4. strips volatile metadata (papermill's timestamps, durations and paths,
   the kernel's per-cell execution timings) so the same sources give the same
   bytes on every run;
5. writes ``book/chapters/NAME.ipynb`` atomically (temp file in the same
   folder, then ``os.replace``), so a failed run never leaves half a notebook;

then runs ``jupyter-book build . -W -n --keep-going``: any warning (a broken
reference, a missing glue key, a bad figure option) fails the build.

Usage::

    python book/build.py                 # execute every notebook, build the HTML
    python book/build.py --only NAME     # execute notebooks/NAME.ipynb only (repeatable), then build
    python book/build.py --no-execute    # build the HTML from the committed executed notebooks
    python book/build.py --no-build      # execute only
    python book/build.py --jobs 1        # one notebook at a time (default: one per core, at most 4)
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = ROOT / "book" / "chapters"
KERNEL = "python3"

#: Notebook-level papermill metadata worth keeping: the parameters a page was built with.
_KEEP_PAPERMILL = ("parameters",)
#: Cell-level metadata that changes on every run.
_VOLATILE_CELL_KEYS = ("papermill", "execution")


class BuildError(RuntimeError):
    """The pipeline cannot go on; the message says which notebook and what to do."""


def notebook_paths(only: str | list[str] | None = None) -> list[Path]:
    """The source notebooks to execute, sorted by name (just those named in ``only`` when given)."""
    if only is None:
        return sorted(NOTEBOOKS.glob("*.ipynb"))
    paths = []
    for name in [only] if isinstance(only, str) else only:
        stem = Path(name[:-6] if name.endswith(".ipynb") else name).name
        path = NOTEBOOKS / f"{stem}.ipynb"
        if not path.is_file():
            available = ", ".join(p.stem for p in sorted(NOTEBOOKS.glob("*.ipynb"))) or "(none)"
            raise BuildError(f"--only {name!r}: there is no notebooks/{path.name}; available: {available}")
        paths.append(path)
    return sorted(set(paths))


def parameter_cells(nb: Any) -> list[int]:
    """Indices of the cells tagged ``parameters``."""
    return [i for i, cell in enumerate(nb.cells) if "parameters" in cell.get("metadata", {}).get("tags", [])]


def check_parameters_cell(nb: Any, path: Path) -> None:
    """Fail unless exactly one code cell is tagged ``parameters``."""
    found = parameter_cells(nb)
    if len(found) != 1:
        raise BuildError(
            f"{_rel(path)} has {len(found)} cells tagged 'parameters'; it needs exactly one code cell with that "
            "tag (in JupyterLab: select the cell, open the property inspector, add the tag 'parameters'), "
            "holding literal defaults only"
        )
    if nb.cells[found[0]].cell_type != "code":
        raise BuildError(f"{_rel(path)}: the cell tagged 'parameters' must be a code cell")


def clean(nb: Any) -> Any:
    """Hide the injected-parameters cell and drop everything that changes from run to run (in place)."""
    papermill_meta = nb.metadata.get("papermill")
    if papermill_meta is not None:
        nb.metadata["papermill"] = {k: papermill_meta[k] for k in _KEEP_PAPERMILL if k in papermill_meta}
    for cell in nb.cells:
        meta = cell.get("metadata", {})
        for key in _VOLATILE_CELL_KEYS:
            meta.pop(key, None)
        tags = meta.get("tags")
        if tags is not None:
            if "injected-parameters" in tags and "remove-input" not in tags:
                tags.append("remove-input")
            if not tags:
                del meta["tags"]
    return nb


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes owner-only files; the book is for everyone to read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def execute(src: Path, dest: Path | None = None, parameters: Mapping[str, Any] | None = None) -> Path:
    """Execute one source notebook with papermill into ``dest`` (default ``book/chapters/NAME.ipynb``)."""
    import nbformat
    import papermill

    dest = dest or CHAPTERS / src.name
    check_parameters_cell(nbformat.read(src, as_version=4), src)
    try:
        executed = papermill.execute_notebook(
            str(src),
            None,  # nothing written by papermill: we clean first, then write atomically
            parameters=dict(parameters or {}),
            kernel_name=KERNEL,
            cwd=str(NOTEBOOKS),
            progress_bar=False,
        )
    except papermill.PapermillExecutionError as err:
        raise BuildError(
            f"{_rel(src)} failed in cell {err.cell_index} ({err.ename}: {err.evalue}); "
            f"run it alone with: python book/build.py --only {src.stem} --no-build"
        ) from None
    nbformat.validate(executed)
    write_atomic(dest, nbformat.writes(clean(executed)) + "\n")
    return dest


def _timed_execute(path: Path) -> tuple[Path, float]:
    started = time.perf_counter()
    return execute(path), time.perf_counter() - started


def execute_all(paths: list[Path], jobs: int) -> None:
    """Execute ``paths`` into book/chapters/, ``jobs`` notebooks at a time (each in its own kernel)."""
    total = len(paths)
    if jobs <= 1 or total == 1:
        for k, path in enumerate(paths, 1):
            t0 = time.perf_counter()
            print(f"[{k}/{total}] running {_rel(path)}", end=" ... ", flush=True)
            dest = execute(path)
            print(f"ok ({time.perf_counter() - t0:.1f} s) -> {_rel(dest)}", flush=True)
        return
    # Notebooks are independent (each writes only its own executed copy), so
    # running them side by side changes no byte of any output.
    print(f"running {total} notebooks, {jobs} at a time", flush=True)
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {}
        for path in paths:
            futures[pool.submit(_timed_execute, path)] = path
        failures = []
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            path = futures[future]
            try:
                dest, seconds = future.result()
            except BuildError as err:
                failures.append(str(err))
                print(f"[{done}/{total}] FAILED {_rel(path)}", flush=True)
                continue
            print(f"[{done}/{total}] ok {_rel(path)} ({seconds:.1f} s) -> {_rel(dest)}", flush=True)
    if failures:
        raise BuildError("\n".join(failures))


def build_html() -> None:
    """``jupyter-book build . -W -n --keep-going``: a warning is a failure."""
    local = Path(sys.executable).with_name("jupyter-book")
    exe = str(local) if local.exists() else shutil.which("jupyter-book")
    if exe is None:
        raise BuildError("jupyter-book is not installed; install the book extra: pip install -e '.[book]'")
    cmd = [exe, "build", str(ROOT), "-W", "-n", "--keep-going"]
    print("$ jupyter-book build . -W -n --keep-going", flush=True)
    result = subprocess.run(cmd, cwd=ROOT)
    if result.returncode != 0:
        raise BuildError(
            f"jupyter-book build failed (exit {result.returncode}); every warning above is an error, "
            "see _build/html/reports/ for notebook tracebacks"
        )


def orphans() -> list[str]:
    """Executed notebooks in book/chapters/ whose source in notebooks/ is gone."""
    sources = {p.name for p in NOTEBOOKS.glob("*.ipynb")}
    return sorted(p.name for p in CHAPTERS.glob("*.ipynb") if p.name not in sources)


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--only", metavar="NAME", action="append", help="execute only notebooks/NAME.ipynb (repeat for several)"
    )
    parser.add_argument("--no-execute", action="store_true", help="build HTML from the committed executed notebooks")
    parser.add_argument("--no-build", action="store_true", help="execute notebooks but do not build HTML")
    parser.add_argument(
        "--jobs", type=int, default=min(os.cpu_count() or 1, 4), metavar="N",
        help="notebooks executed side by side (default: one per core, at most 4)",
    )
    args = parser.parse_args(argv)
    if args.only and args.no_execute:
        parser.error("--only and --no-execute contradict each other")
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    started = time.perf_counter()
    try:
        if not args.no_execute:
            paths = notebook_paths(args.only)
            if not paths:
                raise BuildError("notebooks/ holds no .ipynb files")
            for path in paths:  # checked up front, so a bad notebook fails the run before any kernel starts
                import nbformat

                check_parameters_cell(nbformat.read(path, as_version=4), path)
            execute_all(paths, args.jobs)
            stale = orphans()
            if stale:
                print(f"warning: book/chapters/ holds executed notebooks with no source: {', '.join(stale)}")
        executed_at = time.perf_counter()
        if not args.no_build:
            build_html()
    except BuildError as err:
        print(f"\nbuild failed: {err}", file=sys.stderr)
        return 1
    total = time.perf_counter() - started
    if not args.no_execute:
        print(f"executed notebooks in {executed_at - started:.1f} s")
    print(f"done in {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
