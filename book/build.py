"""The book's one pipeline: papermill executes the chapters, then Jupyter Book renders HTML.

Papermill is the only executor (``_config.yml`` turns Jupyter Book's own
execution off), so what the book shows is exactly what the committed executed
notebooks hold, and nbval can re-run those notebooks against their outputs.

The table of contents (``_toc.yml``) is the list of chapters: each
``book/chapters/NAME`` entry is made either from ``notebooks/NAME.ipynb`` or,
for a page made from a scenario spec file, from ``notebooks/spec_page.ipynb``
run on that file. Nothing else is executed, so a stray notebook (a rerun's
output, a scratch copy) never becomes a chapter. For each chapter this

1. refuses a source without exactly one cell tagged ``parameters``
   (papermill would otherwise inject parameters at the top with only a
   warning, and ``-p`` would silently change nothing);
2. executes it with papermill (kernel ``python3``, working directory
   ``notebooks/``), a spec page with ``spec`` set to its file;
3. gives the page its labels: the first cell's label is NAME with ``-`` for
   ``_`` and a figure named after the source's label is renamed after NAME, so
   a copy of the template, or any number of spec pages, never collide; a spec
   page's first cell becomes the spec file's title and description;
4. tags papermill's injected-parameters cell ``remove-input`` (and gives it a
   fixed id in place of papermill's random one) and strips volatile metadata
   (timestamps, durations, paths, per-cell timings), so the same sources give
   the same bytes on every run;
5. writes ``book/chapters/NAME.ipynb`` atomically (temp file, then ``os.replace``);

then runs ``jupyter-book build . -W -n --keep-going``: any warning (a broken
reference, a missing glue key, a bad figure option) fails the build.

The output is one line per notebook and a summary; the kernels' and Sphinx's
chatter goes to ``_build/logs/`` (``--verbose`` shows it instead).

Usage (``bash scripts/book.sh`` passes its arguments here)::

    python book/build.py                    # execute every chapter in _toc.yml, build the HTML
    python book/build.py --only NAME        # execute book/chapters/NAME only (repeatable), then build;
                                            # a notebooks/NAME.ipynb not yet in _toc.yml is added to it
    python book/build.py --spec FILE        # make book/chapters/NAME.ipynb from the spec file NAME.yaml,
                                            # add it to _toc.yml under "Your own experiments", build
    python book/build.py --spec FILE --trust-code  # the same, for a spec file naming module:attribute executors
    python book/build.py --no-execute       # build the HTML from the committed executed notebooks
    python book/build.py --no-build         # execute only
    python book/build.py --jobs 1           # one notebook at a time (default: one per core, at most 4)
    python book/build.py --verbose          # show the kernels' and jupyter-book's own output
    python book/build.py --list             # print the executed chapters the table of contents names
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CHAPTERS = ROOT / "book" / "chapters"
TOC = ROOT / "_toc.yml"
LOGS = ROOT / "_build" / "logs"
#: What ran, when, for how long and with which versions: read by the execution-statistics page
#: (book/_ext/execution_statistics.py). Under _build/, so a build never dirties the checkout.
STATISTICS = ROOT / "_build" / "execution" / "statistics.json"
#: Software whose versions the execution-statistics page lists.
_RECORDED_PACKAGES = ("cvlib", "papermill", "nbclient", "ipykernel", "jupyter-book", "myst-nb", "sphinx", "numpy",
                      "pandas", "matplotlib", "dask")
SPEC_SOURCE = NOTEBOOKS / "spec_page.ipynb"
KERNEL = "python3"
#: The part of the table of contents that --spec and new --only pages are added to.
OWN_PART = "Your own experiments"
#: The toc prefix of executed chapters.
CHAPTER_PREFIX = "book/chapters/"

#: Notebook-level papermill metadata worth keeping: the parameters a page was built with.
_KEEP_PAPERMILL = ("parameters",)
#: Cell-level metadata that changes on every run.
_VOLATILE_CELL_KEYS = ("papermill", "execution")
_LABEL_LINE = re.compile(r"^\(([^()\s]+)\)=[ \t]*$", re.M)
_FIRST_LABEL = re.compile(r"\A\s*\(([^()\s]+)\)=[ \t]*\n?")


class BuildError(RuntimeError):
    """The pipeline cannot go on; the message says which notebook and what to do."""


@dataclass(frozen=True)
class Job:
    """One chapter to execute: its name, the notebook papermill runs, and with what.

    ``spec`` is set for a page made from a spec file: the path as the page
    shows it (relative to the repository root when the file is inside it).
    """

    name: str
    source: Path
    parameters: Mapping[str, Any] = field(default_factory=dict)
    spec: str | None = None

    @property
    def dest(self) -> Path:
        return CHAPTERS / f"{self.name}.ipynb"


# -- the table of contents ---------------------------------------------------------


def toc_files(toc_path: Path = TOC) -> list[str]:
    """Every ``file`` entry of the table of contents (the root first), suffix dropped."""
    import yaml

    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8")) or {}
    files = [toc.get("root", "")]

    def walk(entries: Iterable[Mapping[str, Any]] | None) -> None:
        for entry in entries or []:
            if "file" in entry:
                files.append(re.sub(r"\.(ipynb|md)$", "", entry["file"]))
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    walk(toc.get("chapters"))
    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    return [f for f in files if f]


def toc_chapters(toc_path: Path = TOC) -> list[str]:
    """Names of the executed chapters the table of contents lists, in reading order."""
    return [f[len(CHAPTER_PREFIX):] for f in toc_files(toc_path) if f.startswith(CHAPTER_PREFIX)]


def add_to_toc(name: str, toc_path: Path = TOC) -> bool:
    """Add ``book/chapters/NAME`` at the end of the part "Your own experiments"; False if already listed.

    The file is edited as text, so its comments and layout stay as they are;
    the part is created (above "Reference", or at the end) if it is missing.
    """
    import yaml

    entry = f"{CHAPTER_PREFIX}{name}"
    if entry in toc_files(toc_path):
        return False
    text = toc_path.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    caption = re.compile(rf"^(\s*)- caption:\s*[\"']?{re.escape(OWN_PART)}[\"']?\s*$")
    start = next((i for i, line in enumerate(lines) if caption.match(line)), None)
    if start is None:
        new = [f"  - caption: {OWN_PART}\n", "    chapters:\n", f"      - file: {entry}\n"]
        reference = next((i for i, line in enumerate(lines) if re.match(r"^\s*- caption:\s*Reference\s*$", line)), None)
        if reference is None:
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            lines += new
        else:
            lines[reference:reference] = new
    else:
        indent = len(caption.match(lines[start]).group(1))
        end = len(lines)
        for i in range(start + 1, len(lines)):
            stripped = lines[i].strip()
            if stripped and not stripped.startswith("#") and len(lines[i]) - len(lines[i].lstrip()) <= indent:
                end = i
                break
        files = [i for i in range(start + 1, end) if re.match(r"^\s*- file:", lines[i])]
        if files:
            at = files[-1] + 1
            pad = lines[files[-1]][: len(lines[files[-1]]) - len(lines[files[-1]].lstrip())]
            lines[at:at] = [f"{pad}- file: {entry}\n"]
        else:
            chapters = next((i for i in range(start + 1, end) if lines[i].strip() == "chapters:"), None)
            if chapters is None:
                lines[start + 1 : start + 1] = [" " * (indent + 2) + "chapters:\n", " " * (indent + 4) + f"- file: {entry}\n"]
            else:
                lines[chapters + 1 : chapters + 1] = [" " * (indent + 4) + f"- file: {entry}\n"]
    new_text = "".join(lines)
    yaml.safe_load(new_text)  # still valid YAML
    write_atomic(toc_path, new_text)
    if entry not in toc_files(toc_path):  # pragma: no cover - a layout this editor does not understand
        write_atomic(toc_path, text)
        raise BuildError(f"could not add {entry} to {toc_path.name}; add it by hand under '{OWN_PART}'")
    return True


# -- which notebook makes which chapter ------------------------------------------------


def spec_of(chapter: Path) -> str | None:
    """The spec file an executed chapter was made from (None for a chapter with its own notebook)."""
    import json

    if not chapter.is_file():
        return None
    meta = json.loads(chapter.read_text(encoding="utf-8")).get("metadata", {})
    return meta.get("cvbook", {}).get("spec")


def job_for(name: str, trust_code: bool = False) -> Job:
    """How chapter NAME is made: from notebooks/NAME.ipynb, or from its spec file (``trust_code``: see spec_job)."""
    source = NOTEBOOKS / f"{name}.ipynb"
    if source.is_file() and source != SPEC_SOURCE:
        return Job(name, source)
    spec = spec_of(CHAPTERS / f"{name}.ipynb")
    if spec is not None:
        path = Path(spec) if Path(spec).is_absolute() else ROOT / spec
        if not path.is_file():
            raise BuildError(
                f"book/chapters/{name}.ipynb was made from the spec file {spec}, which is gone; restore it, "
                f"or remove the page (delete book/chapters/{name}.ipynb and its line in _toc.yml)"
            )
        return Job(name, SPEC_SOURCE, {"spec": spec, **({"trust_code": True} if trust_code else {})}, spec)
    raise BuildError(
        f"_toc.yml lists {CHAPTER_PREFIX}{name}, but there is no notebooks/{name}.ipynb and "
        f"book/chapters/{name}.ipynb was not made from a spec file"
    )


def jobs_for_only(names: Iterable[str], trust_code: bool = False) -> tuple[list[Job], list[str]]:
    """The jobs ``--only`` asks for, and the names among them that are new to the table of contents."""
    listed = toc_chapters()
    jobs, new = [], []
    for raw in names:
        name = Path(raw[:-6] if raw.endswith(".ipynb") else raw).name
        if name in listed:
            jobs.append(job_for(name, trust_code))
        elif (NOTEBOOKS / f"{name}.ipynb").is_file() and NOTEBOOKS / f"{name}.ipynb" != SPEC_SOURCE:
            jobs.append(Job(name, NOTEBOOKS / f"{name}.ipynb"))
            new.append(name)
        else:
            available = ", ".join(listed) or "(none)"
            raise BuildError(
                f"--only {raw!r}: there is no chapter {name!r} in _toc.yml and no notebooks/{name}.ipynb; "
                f"chapters: {available}"
            )
    unique = {job.name: job for job in jobs}
    return list(unique.values()), sorted(set(new))


def resolve_spec_arg(arg: str) -> Path:
    """A ``--spec`` path: absolute, or relative to the repository root (else to where the command was run)."""
    path = Path(arg).expanduser()
    if path.is_absolute():
        return path.resolve()
    candidates = [ROOT / path, Path(os.environ.get("CVBOOK_CALLER_DIR", os.getcwd())) / path]
    for candidate in candidates:
        if candidate.is_file():
            return candidate.resolve()
    return candidates[0].resolve()


def spec_job(arg: str, trust_code: bool = False) -> Job:
    """The job that makes a page from the spec file ``arg``, after checking the file and the page's name.

    ``trust_code`` (``--trust-code``) lets the file's ``policies:`` name ``module:attribute`` executors, which
    imports their code; without it a spec file is data and names registered executors only.
    """
    from cvlib.core.errors import CvlibError
    from cvlib.presentation.spec_page import load_spec_page

    path = resolve_spec_arg(arg)
    if not path.is_file():
        raise BuildError(
            f"--spec {arg}: no such file (a relative path is read from the repository root, {ROOT}, "
            "or from the folder you ran the command in)"
        )
    try:
        page = load_spec_page(path, root=ROOT, trust_code=trust_code)
    except CvlibError as err:
        raise BuildError(f"--spec {arg}: {err}") from None
    name = page.name
    if (NOTEBOOKS / f"{name}.ipynb").is_file():
        raise BuildError(
            f"--spec {arg}: the page would be called {name!r}, the name of the chapter notebooks/{name}.ipynb; "
            "rename the spec file"
        )
    existing = CHAPTERS / f"{name}.ipynb"
    if existing.is_file():
        made_from = spec_of(existing)
        if made_from is None:
            raise BuildError(f"--spec {arg}: book/chapters/{name}.ipynb already exists and is not a spec page; rename the spec file")
        if made_from != page.shown_path:
            raise BuildError(
                f"--spec {arg}: a page called {name!r} already exists, made from {made_from}; rename the spec file, "
                f"or remove that page (delete book/chapters/{name}.ipynb and its line in _toc.yml)"
            )
    return Job(name, SPEC_SOURCE, {"spec": page.shown_path, **({"trust_code": True} if trust_code else {})}, page.shown_path)


# -- labels ---------------------------------------------------------------------------------


def label_for(name: str) -> str:
    """The label of chapter NAME: ``x1_recovery`` is ``x1-recovery``."""
    return name.lower().replace("_", "-")


def spec_title_cell(spec: str, trust_code: bool = False) -> str:
    """A spec page's first cell: its label, the spec file's title and description, and where it came from."""
    from cvlib.presentation.spec_page import load_spec_page

    page = load_spec_page(spec, root=ROOT, trust_code=trust_code)
    parts = [f"({label_for(page.name)})=\n# {page.title}"]
    if page.description:
        parts.append(page.description)
    parts.append(
        f"*This page is made from the spec file `{page.shown_path}` by `bash scripts/book.sh --spec {page.shell_path}{' --trust-code' if trust_code else ''}`; "
        "edit the file and run that command again to update it. "
        "{doc}`/book/spec_format` lists every key a spec file can hold.*"
    )
    return "\n\n".join(parts)


def apply_label_rule(nb: Any, name: str) -> Any:
    """Give the first cell the label of NAME, and rename figures named after the old label (in place)."""
    label = label_for(name)
    first = nb.cells[0]
    if first.cell_type != "markdown":
        raise BuildError(f"{name}: the first cell must be the markdown cell with the label and the title")
    match = _FIRST_LABEL.match(first.source)
    old = match.group(1) if match else None
    rest = first.source[match.end():] if match else first.source
    first.source = f"({label})=\n{rest}"
    if old and old != label:
        for cell in nb.cells:
            figure = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
            figname = figure.get("name")
            if figname == f"fig-{old}" or (figname or "").startswith(f"fig-{old}-"):
                figure["name"] = f"fig-{label}" + figname[len(f"fig-{old}"):]
    return nb


def expected_source(job: Job) -> Any:
    """The source notebook as the chapter must show it: spec title cell and label rule applied."""
    import nbformat

    nb = apply_label_rule(nbformat.read(job.source, as_version=4), job.name)
    if job.spec is not None:
        nb.cells[0].source = spec_title_cell(job.spec, bool(job.parameters.get("trust_code")))
    return nb


def labels_of(nb: Any) -> list[str]:
    """Every label a notebook defines: ``(label)=`` lines in markdown cells and figure names."""
    found = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            found += _LABEL_LINE.findall(cell.source)
        name = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name")
        if name:
            found.append(name)
    return found


def check_labels(jobs: Iterable[Job], extra: Iterable[str] = ()) -> None:
    """Fail, naming both places, if two pages of the book would define the same label."""
    import nbformat

    pending = {job.name: job for job in jobs}
    where: dict[str, str] = {}
    clashes = []

    def record(labels: Iterable[str], place: str) -> None:
        for label in labels:
            key = label.lower()
            if key in where and where[key] != place:
                clashes.append(f"label {label!r} is defined in both {where[key]} and {place}")
            where.setdefault(key, place)

    for entry in [*toc_files(), *(f"{CHAPTER_PREFIX}{n}" for n in extra)]:
        if entry.startswith(CHAPTER_PREFIX):
            name = entry[len(CHAPTER_PREFIX):]
            if name in pending:
                nb = expected_source(pending[name])
            elif (CHAPTERS / f"{name}.ipynb").is_file():
                nb = nbformat.read(CHAPTERS / f"{name}.ipynb", as_version=4)
            else:
                continue
            record(labels_of(nb), f"{entry}.ipynb")
        elif (ROOT / f"{entry}.md").is_file():
            record(_LABEL_LINE.findall((ROOT / f"{entry}.md").read_text(encoding="utf-8")), f"{entry}.md")
    if clashes:
        raise BuildError(
            "; ".join(sorted(set(clashes)))
            + ". A chapter's label is its name (book/chapters/my_page gets (my-page)=); rename the notebook or "
            "spec file, or rename the label or figure in the source"
        )


# -- executing ----------------------------------------------------------------------------


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
            if "injected-parameters" in tags:
                if "remove-input" not in tags:
                    tags.append("remove-input")
                if "id" in cell:
                    cell["id"] = "injected-parameters"  # papermill draws a random id on every run
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


def execute(
    src: Path, dest: Path | None = None, parameters: Mapping[str, Any] | None = None, *, job: Job | None = None
) -> Path:
    """Execute one source notebook with papermill into ``dest`` (default ``book/chapters/NAME.ipynb``)."""
    import nbformat
    import papermill

    job = job or Job(src.stem, src, dict(parameters or {}))
    dest = dest or job.dest
    check_parameters_cell(nbformat.read(src, as_version=4), src)
    try:
        executed = papermill.execute_notebook(
            str(src),
            None,  # nothing written by papermill: we clean first, then write atomically
            parameters=dict(job.parameters),
            kernel_name=KERNEL,
            cwd=str(NOTEBOOKS),
            progress_bar=False,
            kernel_manager_class=quiet_kernel_manager(),
        )
    except papermill.PapermillExecutionError as err:
        what = f"book/chapters/{job.name} ({_rel(src)} on {job.spec})" if job.spec else _rel(src)
        raise BuildError(
            f"{what} failed in cell {err.cell_index} ({err.ename}: {err.evalue}); "
            f"run it alone with: bash scripts/book.sh --only {job.name} --no-build --verbose"
        ) from None
    apply_label_rule(executed, job.name)
    if job.spec is not None:
        executed.cells[0].source = spec_title_cell(job.spec, bool(job.parameters.get("trust_code")))
        executed.metadata["cvbook"] = {"spec": job.spec}
    nbformat.validate(executed)
    write_atomic(dest, nbformat.writes(clean(executed)) + "\n")
    return dest


def quiet_kernel_manager() -> type:
    """The kernel manager papermill starts each chapter's kernel with: one that leaves the execute log quiet.

    Two lines per kernel used to land in ``_build/logs/execute.log`` for no fault of a chapter. ipykernel warns
    that a kernel talking over TCP is unencrypted (jupyter_client's default transport), once per chapter; this
    manager talks over IPC sockets instead, which never leave the machine. And jupyter_client interrupts a kernel
    (SIGINT to its process group) before asking it to shut down, so a kernel still handling a message then logs
    "KeyboardInterrupt caught in kernel"; a kernel papermill is shutting down after its last cell has nothing to
    interrupt, so this manager skips that signal (an interrupt at any other time, such as a timeout, still goes).
    """
    import uuid

    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class QuietKernelManager(AsyncKernelManager):  # type: ignore[misc]
        @default("transport")
        def _transport_default(self) -> str:
            return "ipc"

        @default("ip")
        def _ip_default(self) -> str:
            # IPC sockets are files named IP-1 ... IP-5; jupyter_client's default name ("kernel-ipc") is the same
            # for every kernel, so two chapters run side by side would share sockets. One name per kernel:
            return os.path.join(tempfile.gettempdir(), f"cvbook-kernel-{uuid.uuid4().hex}-ipc")

        async def _async_interrupt_kernel(self) -> None:
            if self.shutting_down:
                return
            await super()._async_interrupt_kernel()

    return QuietKernelManager


def _run_job(job: Job) -> float:
    started = time.perf_counter()
    execute(job.source, job=job)
    return time.perf_counter() - started


def _quiet_worker(log: str) -> None:
    """Send a worker's output, and its kernels' (they inherit it), to the log file."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def execute_all(jobs: list[Job], workers: int, verbose: bool = False) -> float:
    """Execute ``jobs`` into book/chapters/, ``workers`` notebooks at a time; return the seconds taken."""
    total = len(jobs)
    workers = max(1, min(workers, total))
    log = LOGS / "execute.log"
    LOGS.mkdir(parents=True, exist_ok=True)
    log.write_text("", encoding="utf-8")
    where = "" if verbose else f"; kernel output in {_rel(log)}"
    print(f"executing {total} notebook{'s' if total != 1 else ''} with papermill, {workers} at a time{where}", flush=True)
    started = time.perf_counter()
    width = max(len(job.name) for job in jobs)
    # Notebooks are independent (each writes only its own executed copy), so
    # running them side by side changes no byte of any output.
    initializer = None if verbose else _quiet_worker
    with concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, initializer=initializer, initargs=() if verbose else (str(log),)
    ) as pool:
        futures = {pool.submit(_run_job, job): job for job in jobs}
        failures = []
        times: dict[str, float | None] = {}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            job = futures[future]
            try:
                seconds = future.result()
            except BuildError as err:
                failures.append(str(err))
                times[job.name] = None
                print(f"  [{done:>{len(str(total))}}/{total}] {job.name:<{width}}  FAILED", flush=True)
                continue
            times[job.name] = seconds
            print(f"  [{done:>{len(str(total))}}/{total}] {job.name:<{width}}  {seconds:5.1f} s", flush=True)
    record_execution(times, workers)
    if failures:
        raise BuildError("\n".join(failures))
    return time.perf_counter() - started


def record_execution(times: Mapping[str, float | None], workers: int, path: Path | None = None) -> None:
    """Add this run's chapters to the execution record (seconds, or None for a chapter that failed).

    Chapters executed by an earlier run (``--only`` runs some of them) keep
    their entries, each pointing at the run that made it; only the runs still
    pointed at are kept.
    """
    import json
    import platform
    from datetime import UTC, datetime
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    path = path or STATISTICS
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M")
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = {}
    chapters = record.get("chapters", {})
    for name, seconds in times.items():
        chapters[name] = {"seconds": round(seconds or 0.0, 1), "finished": now, "run": now,
                          "status": "ok" if seconds is not None else "failed"}
    runs = {k: v for k, v in record.get("runs", {}).items() if any(c.get("run") == k for c in chapters.values())}
    runs[now] = {"notebooks": len(times), "jobs": workers, "environment": {
        "python": platform.python_version(), "platform": f"{platform.system()} {platform.machine()}",
        "cores": os.cpu_count(), "packages": {name: version(name) for name in _RECORDED_PACKAGES}}}
    write_atomic(path, json.dumps({"chapters": chapters, "runs": runs}, indent=1, sort_keys=True) + "\n")


# -- building --------------------------------------------------------------------------------


def build_html(verbose: bool = False) -> float:
    """``jupyter-book build . -W -n --keep-going``: a warning is a failure. Returns the seconds taken."""
    local = Path(sys.executable).with_name("jupyter-book")
    exe = str(local) if local.exists() else shutil.which("jupyter-book")
    if exe is None:
        raise BuildError("jupyter-book is not installed; install the book extra: pip install -e '.[book]'")
    cmd = [exe, "build", str(ROOT), "-W", "-n", "--keep-going"]
    log = LOGS / "jupyter-book.log"
    LOGS.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if verbose:
        print("$ jupyter-book build . -W -n --keep-going", flush=True)
        result = subprocess.run(cmd, cwd=ROOT)
    else:
        print("building the HTML: jupyter-book build . -W -n --keep-going ...", end=" ", flush=True)
        with log.open("w", encoding="utf-8") as handle:
            result = subprocess.run(cmd, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT)
        print(f"{time.perf_counter() - started:.1f} s" if result.returncode == 0 else "FAILED", flush=True)
    if result.returncode != 0:
        problems = "" if verbose else "\n" + "\n".join(f"  {line}" for line in _problems(log))
        raise BuildError(
            f"jupyter-book build failed (exit {result.returncode}); every warning is an error:{problems}\n"
            + ("" if verbose else f"the whole log: {_rel(log)}; ")
            + "notebook tracebacks: _build/html/reports/"
        )
    return time.perf_counter() - started


def _problems(log: Path, limit: int = 40) -> list[str]:
    """The warning and error lines of a jupyter-book log, each once."""
    seen: list[str] = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        line = re.sub(r"\x1b\[[0-9;]*m", "", line)  # Sphinx colours its warnings
        if re.search(r"WARNING|ERROR|Error|Exception|Traceback", line) and line not in seen:
            seen.append(line.strip())
    return seen[:limit] or ["(no warning lines found)"]


def strays() -> list[str]:
    """Executed notebooks in book/chapters/ that the table of contents does not name (they are never built)."""
    listed = set(toc_chapters())
    return sorted(p.name for p in CHAPTERS.glob("*.ipynb") if p.stem not in listed)


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _since_start(started: float) -> str:
    """The run's whole time: from when scripts/book.sh began (install included) if it set CVBOOK_STARTED."""
    began = os.environ.get("CVBOOK_STARTED", "")
    try:
        return f"{_duration(time.time() - float(began))}, set-up included"
    except ValueError:
        return _duration(time.perf_counter() - started)


def _duration(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {seconds % 60:.0f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="book/build.py", description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="bash scripts/book.sh passes its arguments here, e.g. bash scripts/book.sh --only value_change",
    )
    parser.add_argument(
        "--only", metavar="NAME", action="append",
        help="execute only book/chapters/NAME (repeat for several); a notebooks/NAME.ipynb not yet in _toc.yml "
        f"is added under '{OWN_PART}'",
    )
    parser.add_argument(
        "--spec", metavar="FILE", action="append",
        help="make the page book/chapters/NAME.ipynb from the spec file NAME.yaml (path absolute, or relative to the "
        f"repository root), add it to _toc.yml under '{OWN_PART}' (once), and build",
    )
    parser.add_argument(
        "--trust-code", action="store_true",
        help="let spec files name module:attribute executors, importing their code (a spec file is data: without "
        "this it names registered executors only)",
    )
    parser.add_argument("--no-execute", action="store_true", help="build HTML from the committed executed notebooks")
    parser.add_argument("--no-build", action="store_true", help="execute notebooks but do not build HTML")
    parser.add_argument(
        "--jobs", type=int, default=min(os.cpu_count() or 1, 4), metavar="N",
        help="notebooks executed side by side (default: one per core, at most 4)",
    )
    parser.add_argument("--verbose", action="store_true", help="show the kernels' and jupyter-book's own output")
    parser.add_argument("--list", action="store_true", help="print the executed chapters _toc.yml names, and exit")
    args = parser.parse_args(argv)
    if (args.only or args.spec) and args.no_execute:
        parser.error("--only and --spec execute notebooks; they contradict --no-execute")
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.list:
        for name in toc_chapters():
            print(f"book/chapters/{name}.ipynb")
        return 0
    started = time.perf_counter()
    try:
        jobs: list[Job] = []
        new: list[str] = []
        if not args.no_execute:
            if args.spec or args.only:
                only_jobs, new = jobs_for_only(args.only or [], args.trust_code)
                spec_jobs = [spec_job(arg, args.trust_code) for arg in args.spec or []]
                jobs = only_jobs + spec_jobs
                new += [job.name for job in spec_jobs if f"{CHAPTER_PREFIX}{job.name}" not in toc_files()]
            else:
                jobs = [job_for(name, args.trust_code) for name in toc_chapters()]
            if not jobs:
                raise BuildError("_toc.yml names no chapters under book/chapters/")
            names = [job.name for job in jobs]
            duplicates = sorted({n for n in names if names.count(n) > 1})
            if duplicates:
                raise BuildError(f"two spec files would make the same page: {', '.join(duplicates)}; rename one")
            import nbformat

            for job in jobs:  # checked up front, so a bad notebook fails the run before any kernel starts
                check_parameters_cell(nbformat.read(job.source, as_version=4), job.source)
            check_labels(jobs, extra=new)
            seconds = execute_all(jobs, args.jobs, verbose=args.verbose)
            print(f"executed {len(jobs)} notebook{'s' if len(jobs) != 1 else ''} in {_duration(seconds)}", flush=True)
            for name in new:
                if add_to_toc(name):
                    print(f"added {CHAPTER_PREFIX}{name} to _toc.yml under '{OWN_PART}'", flush=True)
        stray = strays()
        if stray:
            print(f"note: book/chapters/ holds notebooks _toc.yml does not name (not built): {', '.join(stray)}")
        if not args.no_build:
            build_html(verbose=args.verbose)
    except BuildError as err:
        print(f"\nbuild failed: {err}", file=sys.stderr)
        return 1
    done = "done" if args.no_build else "done: open _build/html/index.html"
    print(f"{done} ({_since_start(started)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
