"""Build the notes-trial tasks from the hand-written spec and the projects' release wheels.

Run from the repository root (needs PyPI through pip; the book never runs this,
it reads the committed ``notes_tasks.yaml``)::

    python data/model_trials/build_notes_tasks.py                 # write notes_tasks.yaml
    python data/model_trials/build_notes_tasks.py --check         # rebuild in memory, compare with the committed file
    python data/model_trials/build_notes_tasks.py --wheels DIR    # keep the downloaded wheels in DIR (reused next time)
    python data/model_trials/build_notes_tasks.py --edition 2     # the second edition's added tasks: notes_tasks_2.yaml

For every task of ``notes_tasks_spec.yaml`` it fetches the wheels of both
releases with ``pip download --no-deps --only-binary :all:`` (the versions the
release-history tables pinned, see ``data/code_history/PROVENANCE.md``), reads
the file in memory, and checks with the notes gate itself
(:func:`cvlib.notes.anchor` on the earlier release, :func:`cvlib.notes.gate.classify`
on the later one) that the function's own code is unchanged (the symbol-only
gate says FRESH) while a dependency in its file changed (the dependency-aware
gate says DEPENDENCY_CHANGED); a task where that does not hold is refused.
It then writes the function as it is in the later release (dedented) as the
task's excerpt, the changed dependencies, each wheel's SHA-256, and both edits
in their checkable form, and loads the result with
:func:`cvlib.experiments.notes_study.load_tasks`, which checks every edit.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import textwrap
import zipfile
from pathlib import Path

import yaml

from cvlib.experiments.notes_study import Edit, load_tasks
from cvlib.notes import Status, anchor
from cvlib.notes.anchors import read_source
from cvlib.notes.gate import SymbolIndex, classify
from cvlib.notes.python import PythonFile

HERE = Path(__file__).resolve().parent
SPEC = HERE / "notes_tasks_spec.yaml"
OUT = HERE / "notes_tasks.yaml"
#: Each edition's hand-written spec and the file built from it (the second edition reads both outputs).
EDITIONS: dict[int, tuple[Path, Path]] = {1: (SPEC, OUT), 2: (HERE / "notes_tasks_spec_2.yaml", HERE / "notes_tasks_2.yaml")}
#: What each edition's output says of its notes.
_NOTES_ARE = {1: "the notes and edits are ours.",
              2: "the notes and edits were written for\n# this study from the releases (their \"Since X.Y\" claims are invented); see notes_tasks_spec_2.yaml."}


def wheel(project: str, version: str, folder: Path) -> Path:
    """The release's wheel in ``folder``, fetched with pip's ordinary client when it is not there yet."""
    def found() -> list[Path]:
        return sorted(w for w in folder.glob("*.whl") if w.name.lower().startswith(f"{project}-{version}-"))

    if not found():
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
                        "--dest", str(folder), f"{project}=={version}"], check=True)
    wheels = found()
    if len(wheels) != 1:
        raise SystemExit(f"expected one wheel for {project}=={version} in {folder}, found {[w.name for w in wheels]}")
    return wheels[0]


class _Dumper(yaml.SafeDumper):
    """Multi-line strings as literal blocks, so the excerpts read as code."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not any(line != line.rstrip() for line in value.splitlines()) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def build(folder: Path, edition: int = 1) -> str:
    """The text of ``notes_tasks.yaml`` (edition 1) or ``notes_tasks_2.yaml`` (edition 2)."""
    spec = yaml.safe_load(EDITIONS[edition][0].read_text(encoding="utf-8"))
    out = []
    for item in spec["tasks"]:
        project, path, qualname = item["project"], item["path"], item["qualname"]
        wheels = {v: wheel(project, v, folder) for v in (item["from_version"], item["to_version"])}
        sources = {v: read_source(zipfile.ZipFile(w).read(path)) for v, w in wheels.items()}
        before, after = sources[item["from_version"]], sources[item["to_version"]]
        note = anchor({path: before}, path, qualname)
        index = SymbolIndex.from_snapshot({path: after})
        aware, symbol_only = classify(note, index), classify(note, index, dependencies=False)
        if aware.status is not Status.DEPENDENCY_CHANGED or symbol_only.status is not Status.FRESH:
            raise SystemExit(f"task {item['id']}: the gates say {aware.status.name} (dependency-aware) and "
                             f"{symbol_only.status.name} (symbol-only); expected DEPENDENCY_CHANGED and FRESH")
        symbol = PythonFile(after, path).symbol(qualname)
        assert symbol is not None
        lines = after.splitlines(keepends=True)[symbol.first_line - 1 : symbol.last_line]
        excerpt = textwrap.dedent("".join(lines)).rstrip("\n") + "\n"
        task = {k: item[k] for k in ("id", "project", "from_version", "to_version", "path", "qualname", "rule_kind")}
        task["changed"] = list(aware.changed)
        task["wheels"] = {v: {"file": w.name, "sha256": hashlib.sha256(w.read_bytes()).hexdigest()} for v, w in wheels.items()}
        task["excerpt"] = excerpt
        for key in ("true_note", "stale_note", "why_stale"):
            task[key] = item[key]
        for key in ("true_edit", "stale_edit"):
            task[key] = Edit.from_mapping(item[key], excerpt, f"task {item['id']!r} {key}").to_dict()
        out.append(task)
    header = (f"# Written by data/model_trials/build_notes_tasks.py from {EDITIONS[edition][0].name} and the release wheels;\n"
              "# do not edit by hand. Excerpts are quoted from Requests (Apache-2.0), Flask (BSD-3-Clause)\n"
              f"# and HTTPie (BSD-3-Clause) under their licences; {_NOTES_ARE[edition]}\n")
    return header + yaml.dump({"tasks": out}, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file instead of writing")
    parser.add_argument("--wheels", type=Path, help="folder to keep the downloaded wheels in (default: a temporary one)")
    parser.add_argument("--edition", type=int, choices=sorted(EDITIONS), default=1,
                        help="1: notes_tasks.yaml (the first edition's tasks); 2: notes_tasks_2.yaml (the tasks the second adds)")
    args = parser.parse_args(argv)
    out = EDITIONS[args.edition][1]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.wheels or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        text = build(folder, args.edition)
    if args.check:
        same = out.is_file() and out.read_text(encoding="utf-8") == text
        print("identical" if same else f"differs: {out.name}")
        return 0 if same else 1
    out.write_text(text, encoding="utf-8")
    tasks = load_tasks(out)
    print(f"{len(tasks)} tasks written to {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
