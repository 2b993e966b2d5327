"""Build the refuting contexts of the notes trials: each task's changed dependency and a test that fixes the behaviour.

Run from the repository root (needs PyPI through pip; the book never runs this,
it reads the committed ``notes_refutations.yaml``)::

    python data/model_trials/build_notes_refutations.py --wheels W --venvs V          # write notes_refutations.yaml
    python data/model_trials/build_notes_refutations.py --wheels W --venvs V --check  # rebuild in memory, compare
    python data/model_trials/build_notes_refutations.py --wheels W --venvs V --only ID # run one task, print it
    python data/model_trials/build_notes_refutations.py --wheels W --venvs V --edition 2  # notes_refutations_2.yaml

For every task of ``notes_tasks.yaml`` it reads the hand-written entry of
``notes_refutations_spec.yaml`` (the test, written by us, and which dependency
qualnames to show: ``qualname`` in the task's file, ``path:qualname`` in another
file of the release, ``project==version:path:qualname`` in another release). It fetches the task's ``to_version`` wheel (and any other release named) with
:func:`build_notes_tasks.wheel` (``pip download --no-deps --only-binary :all:``),
quotes each named dependency verbatim from it (located with
:class:`cvlib.notes.python.PythonFile`, dedented like the task's excerpt), and
runs the test three times in a scratch virtualenv per project and version
(``python -m venv``, then ``pip install <project>==<to_version>`` with the
spec's extra pins and pytest, all from PyPI):

* ``original``: against the installed package as it is;
* ``stale``: with the task's function replaced by the excerpt with the stale
  edit applied (:meth:`cvlib.experiments.notes_study.Edit.apply`);
* ``true``: the same with the true edit applied.

The replacement is executed in the function's own module namespace and set on
the module (and on every other loaded module that held the same function) or
on its class; a method is compiled inside a closure that binds ``__class__``,
so zero-argument ``super()`` works as in the class body. Each run's pytest exit
status gives ``pass`` (0), ``fail`` (1) or ``error`` (anything else). A task
whose stale edit cannot be observed by running code has a ``note`` in the spec
instead of a test. The output is sorted by task id and holds no timestamps and
no paths of this machine; it is loaded back with
:func:`cvlib.experiments.notes_study.refutations.load_refutations`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_notes_tasks import _Dumper, wheel  # noqa: E402

from cvlib.experiments.notes_study import NotesTask, load_tasks  # noqa: E402
from cvlib.experiments.notes_study.refutations import load_refutations  # noqa: E402
from cvlib.notes.anchors import read_source  # noqa: E402
from cvlib.notes.python import PythonFile  # noqa: E402

HERE = Path(__file__).resolve().parent
TASKS = HERE / "notes_tasks.yaml"
SPEC = HERE / "notes_refutations_spec.yaml"
OUT = HERE / "notes_refutations.yaml"
#: Each edition's tasks, hand-written spec and output (the second edition's added tasks have their own three files).
EDITIONS: dict[int, tuple[Path, Path, Path]] = {
    1: (TASKS, SPEC, OUT),
    2: (HERE / "notes_tasks_2.yaml", HERE / "notes_refutations_spec_2.yaml", HERE / "notes_refutations_2.yaml"),
}

#: The pytest plugin that swaps the task's function for an edited excerpt before the test runs.
PATCH_PLUGIN = '''
import __future__, importlib, json, os, sys, textwrap

def pytest_configure(config):
    spec = os.environ.get("REFUTATION_PATCH")
    if not spec:
        return
    with open(spec, encoding="utf-8") as f:
        d = json.load(f)
    module = importlib.import_module(d["module"])
    parts = d["qualname"].split(".")
    owner = module
    for part in parts[:-1]:
        owner = getattr(owner, part)
    name = parts[-1]
    namespace = {}
    # compiled as the module was: with postponed annotations where the module has them
    flags = __future__.annotations.compiler_flag if vars(module).get("annotations") is __future__.annotations else 0
    if isinstance(owner, type):
        original = owner.__dict__[name]
        maker = "def _refutation_make(__class__):\\n" + textwrap.indent(d["code"], "    ") + f"    return {name}\\n"
        exec(compile(maker, f"<{d['variant']} {d['qualname']}>", "exec", flags, True), vars(module), namespace)
        setattr(owner, name, namespace["_refutation_make"](owner))
        return
    original = getattr(module, name)
    exec(compile(d["code"], f"<{d['variant']} {d['qualname']}>", "exec", flags, True), vars(module), namespace)
    replacement = namespace[name]
    for other in list(sys.modules.values()):
        for key, value in list(getattr(other, "__dict__", {}).items()):
            if value is original:
                setattr(other, key, replacement)
'''

VARIANTS = ("original", "stale", "true")


def _dedented(source: str, path: str, qualname: str) -> str:
    symbol = PythonFile(source, path).symbol(qualname)
    if symbol is None:
        raise SystemExit(f"{path} has no symbol {qualname!r}")
    lines = source.splitlines(keepends=True)[symbol.first_line - 1 : symbol.last_line]
    return textwrap.dedent("".join(lines)).rstrip("\n") + "\n"


def venv(project: str, version: str, extra: list[str], folder: Path) -> Path:
    """The scratch virtualenv's python for ``project==version``, made (and filled from PyPI) when it is not there yet."""
    target = folder / f"{project}-{version}"
    python = target / "bin" / "python"
    requirements = [f"{project}=={version}", *extra, "pytest"]
    stamp = target / "refutation-requirements.json"
    if python.is_file() and stamp.is_file() and json.loads(stamp.read_text()) == requirements:
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(target)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *requirements],
                   check=True)
    stamp.write_text(json.dumps(requirements))
    return python


def run_test(python: Path, test: str, task: NotesTask, variant: str, scratch: Path) -> str:
    """``pass``, ``fail`` or ``error``: the test run once against the installed package, patched for ``variant``."""
    folder = scratch / f"{task.id}-{variant}"
    folder.mkdir(parents=True)
    (folder / "refutation_patch.py").write_text(PATCH_PLUGIN, encoding="utf-8")
    (folder / "test_refutation.py").write_text(test, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(folder), "HOME": str(folder), "PYTHONHASHSEED": "0",
           "LC_ALL": "C.UTF-8", "NO_COLOR": "1"}
    if variant != "original":
        edit = task.stale_edit if variant == "stale" else task.true_edit
        module = task.path.removesuffix(".py").replace("/", ".")
        patch = {"module": module, "qualname": task.qualname, "variant": variant, "code": edit.apply(task.excerpt)}
        (folder / "patch.json").write_text(json.dumps(patch), encoding="utf-8")
        env["REFUTATION_PATCH"] = str(folder / "patch.json")
    done = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:logging", "-p", "refutation_patch",
                           f"--basetemp={folder / 'tmp'}", "test_refutation.py"], cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    (folder / "output.txt").write_text(done.stdout + done.stderr, encoding="utf-8")
    return {0: "pass", 1: "fail"}.get(done.returncode, "error")


def build(wheels: Path, venvs: Path, scratch: Path, only: str | None = None, edition: int = 1) -> str:
    """The text of ``notes_refutations.yaml`` (or ``notes_refutations_2.yaml``, or of one task's entry with ``only``)."""
    tasks_file, spec_file, _ = EDITIONS[edition]
    tasks = {t.id: t for t in load_tasks(tasks_file)}
    spec = yaml.safe_load(spec_file.read_text(encoding="utf-8"))
    entries, environments = spec["tasks"], spec.get("environments", {})
    unknown = sorted(set(entries) - set(tasks))
    if unknown:
        raise SystemExit(f"{spec_file.name} names tasks that {tasks_file.name} lacks: {', '.join(unknown)}")
    out = {}
    for task_id in sorted(tasks):
        if only and task_id != only:
            continue
        task, item = tasks[task_id], entries.get(task_id)
        if item is None:
            raise SystemExit(f"{spec_file.name} has no entry for task {task_id!r}")
        dependency = []
        for shown in item["show"]:
            where, _, qualname = shown.rpartition(":")
            release, _, path = where.rpartition(":") if "==" in where else ("", "", where)
            project, _, version = (release or f"{task.project}=={task.to_version}").partition("==")
            path = path or task.path
            source = read_source(zipfile.ZipFile(wheel(project, version, wheels)).read(path))
            quoted = {"file": path, "qualname": qualname, "source": _dedented(source, path, qualname)}
            dependency.append({"release": release, **quoted} if release else quoted)
        entry: dict[str, object] = {"project": task.project, "version": task.to_version, "dependency": dependency}
        extra = list(environments.get(f"{task.project}-{task.to_version}", []))
        if item.get("test"):
            test = str(item["test"]).rstrip("\n") + "\n"
            python = venv(task.project, task.to_version, extra, venvs)
            entry["requirements"] = [f"{task.project}=={task.to_version}", *extra, "pytest"]
            entry["test"] = test
            entry["checks"] = {v: run_test(python, test, task, v, scratch) for v in VARIANTS}
            print(f"{task_id}: {entry['checks']}", file=sys.stderr)
        if item.get("note"):
            entry["note"] = str(item["note"]).strip()
        out[task_id] = entry
    header = (f"# Written by data/model_trials/build_notes_refutations.py from {spec_file.name}, {tasks_file.name}\n"
              "# and the release wheels; do not edit by hand. Dependency excerpts are quoted from Requests (Apache-2.0),\n"
              "# Flask (BSD-3-Clause) and HTTPie (BSD-3-Clause) under their licences; the tests and notes are ours.\n")
    return header + yaml.dump({"refutations": out}, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    parser.add_argument("--wheels", type=Path, help="folder to keep the downloaded wheels in (default: a temporary one)")
    parser.add_argument("--venvs", type=Path, help="folder to keep the scratch virtualenvs in (default: a temporary one)")
    parser.add_argument("--only", help="run one task and print its entry and runs instead of writing")
    parser.add_argument("--runs", type=Path, help="keep each run's folder (test, patch, pytest output) in this new folder")
    parser.add_argument("--edition", type=int, choices=sorted(EDITIONS), default=1,
                        help="1: notes_refutations.yaml; 2: notes_refutations_2.yaml (the second edition's added tasks)")
    args = parser.parse_args(argv)
    out = EDITIONS[args.edition][2]
    with tempfile.TemporaryDirectory() as tmp:
        wheels = args.wheels or Path(tmp) / "wheels"
        venvs = args.venvs or Path(tmp) / "venvs"
        for folder in (wheels, venvs):
            folder.mkdir(parents=True, exist_ok=True)
        scratch = (args.runs or Path(tmp) / "runs").resolve()
        text = build(wheels.resolve(), venvs.resolve(), scratch, args.only, args.edition)
        if args.only:
            print(text)
            for variant in VARIANTS:
                output = scratch / f"{args.only}-{variant}" / "output.txt"
                if output.is_file():
                    print(f"--- {variant}\n{output.read_text(encoding='utf-8')[-2500:]}")
            return 0
    if args.check:
        same = out.is_file() and out.read_text(encoding="utf-8") == text
        print("identical" if same else f"differs: {out.name}")
        return 0 if same else 1
    out.write_text(text, encoding="utf-8")
    refutations = load_refutations(out)
    verified = sum(r.verified for r in refutations.values())
    print(f"{len(refutations)} refutations written to {out.name}, {verified} verified")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
