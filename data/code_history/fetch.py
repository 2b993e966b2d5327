"""Build the release-history tables of Requests, Flask and HTTPie from PyPI wheels.

Run from the repository root (needs network access to PyPI through pip; the
notebooks never run this, they read the committed tables)::

    python data/code_history/fetch.py            # all three projects
    python data/code_history/fetch.py --check    # rebuild in memory, compare with the committed files

For each pinned release it runs ``pip download --no-deps --only-binary :all:``
into a temporary folder, reads the wheel's ``.py`` files in memory (never
extracting them), and indexes every symbol with :func:`cvlib.notes.anchors.analyse` — the same code
the gate uses — so the hashes in the tables are exactly what
:func:`cvlib.notes.anchor` would record (truncated, see below).

Output, beside this script:

* ``<project>.parquet``: one row per (release, path, qualname), sorted by
  release, path, qualname, with columns ``release`` (0-based order),
  ``version``, ``path``, ``qualname``, ``kind``, ``raw_hash``, ``norm_hash``,
  ``dep_hash`` (first 16 hex digits of the SHA-256 digests; the tables are for
  counting, and 64 bits keep accidental collisions below 1e-12 at this size),
  ``lines``, ``nodes`` (normalized tree size) and ``deps`` (one string per
  dependency: the first 8 hex digits of its hash, a space, its label; what
  names a changed dependency). A file that does not parse gets one row of kind
  ``unparsable`` with empty qualname and hashes.
* ``PROVENANCE.json`` and ``PROVENANCE.md``: the versions, each wheel's file
  name, size and SHA-256, the pip and Python versions used, the row counts.

Same versions in, same bytes out: no timestamps, sorted rows, pinned writer
options. Writes are atomic (temporary file, then ``os.replace``).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from cvlib.notes.anchors import analyse, dependency_fingerprint, read_source
from cvlib.notes.errors import UnparsableSource

HERE = Path(__file__).resolve().parent

#: Consecutive releases as PyPI lists them (yanked releases are not listed and
#: not used: requests 2.32.0 and 2.32.1). Pinned so the tables never drift.
RELEASES: dict[str, dict[str, object]] = {
    "requests": {
        "package_dir": "requests/",
        "versions": [
            "2.28.0", "2.28.1", "2.28.2", "2.29.0", "2.30.0", "2.31.0", "2.32.2", "2.32.3",
            "2.32.4", "2.32.5", "2.33.0", "2.33.1", "2.34.0", "2.34.1", "2.34.2",
        ],
    },
    "flask": {
        "package_dir": "flask/",
        "versions": [
            "2.2.0", "2.2.1", "2.2.2", "2.2.3", "2.2.4", "2.2.5", "2.3.0", "2.3.1", "2.3.2",
            "2.3.3", "3.0.0", "3.0.1", "3.0.2", "3.0.3", "3.1.0", "3.1.1", "3.1.2", "3.1.3",
        ],
    },
    "httpie": {
        "package_dir": "httpie/",
        "versions": [
            "2.1.0", "2.2.0", "2.3.0", "2.4.0", "2.5.0", "2.6.0", "3.0.0", "3.0.1", "3.0.2",
            "3.1.0", "3.2.0", "3.2.1", "3.2.2", "3.2.3", "3.2.4",
        ],
    },
}

TABLE_HASH_DIGITS = 16
COLUMNS = ["release", "version", "path", "qualname", "kind", "raw_hash", "norm_hash", "dep_hash", "lines", "nodes", "deps"]
DEP_DIGITS = 8


def download(project: str, version: str, folder: Path) -> Path:
    """One release's wheel, through pip's ordinary client."""
    target = folder / f"{project}-{version}"
    target.mkdir()
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
         "--dest", str(target), f"{project}=={version}"],
        check=True,
    )
    wheels = sorted(target.glob("*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(f"expected one wheel for {project}=={version}, pip gave {[w.name for w in wheels]}")
    return wheels[0]


def index_wheel(data: bytes, package_dir: str, release: int, version: str) -> list[dict[str, object]]:
    """Rows for every symbol of the package's .py files inside a wheel (read in memory)."""
    rows: list[dict[str, object]] = []
    with zipfile.ZipFile(io.BytesIO(data)) as wheel:
        for name in sorted(wheel.namelist()):
            if not (name.startswith(package_dir) and name.endswith(".py")):
                continue
            source = read_source(wheel.read(name))
            try:
                parsed = analyse(source, name)
                found = parsed.rows()
            except UnparsableSource:
                rows.append(dict(release=release, version=version, path=name, qualname="", kind="unparsable",
                                 raw_hash="", norm_hash="", dep_hash="", lines=source.count("\n"), nodes=0, deps=[]))
                continue
            for s in found:
                dep_hash, deps = dependency_fingerprint(parsed.dependencies(s.qualname))
                rows.append(dict(release=release, version=version, path=s.path, qualname=s.qualname, kind=s.kind,
                                 raw_hash=s.raw_hash[:TABLE_HASH_DIGITS], norm_hash=s.norm_hash[:TABLE_HASH_DIGITS],
                                 dep_hash=dep_hash[:TABLE_HASH_DIGITS], lines=s.lines, nodes=s.nodes,
                                 deps=[f"{h[:DEP_DIGITS]} {label}" for label, h in deps]))
    return rows


def table_bytes(rows: list[dict[str, object]]) -> bytes:
    """Deterministic Parquet bytes for the rows (sorted, fixed schema, no pandas index)."""
    frame = pd.DataFrame(rows, columns=COLUMNS).sort_values(["release", "path", "qualname"], kind="stable")
    schema = pa.schema([
        ("release", pa.int16()), ("version", pa.string()), ("path", pa.string()), ("qualname", pa.string()),
        ("kind", pa.string()), ("raw_hash", pa.string()), ("norm_hash", pa.string()), ("dep_hash", pa.string()),
        ("lines", pa.int32()), ("nodes", pa.int32()), ("deps", pa.list_(pa.string())),
    ])
    table = pa.Table.from_pandas(frame, schema=schema, preserve_index=False).replace_schema_metadata(None)
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", compression_level=19, use_dictionary=True,
                   write_statistics=False, row_group_size=1_000_000)
    return sink.getvalue()


def atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def provenance_markdown(prov: dict[str, object]) -> str:
    lines = [
        "# Provenance of the release-history tables",
        "",
        "Written by `data/code_history/fetch.py` (run from the repository root). Each wheel was fetched with",
        f"`pip download --no-deps --only-binary :all:` (pip {prov['pip']}, Python {prov['python']}) and read in memory;",
        "only the package's own `.py` files were indexed. Hashes in the tables are the first",
        f"{prov['table_hash_digits']} hex digits of the SHA-256 digests `cvlib.notes.anchors` computes.",
        "",
    ]
    for project, info in prov["projects"].items():  # type: ignore[union-attr]
        lines += [f"## {project}", "", f"Table `{info['table']}`: {info['rows']} rows, sha256 `{info['table_sha256']}`.", "",
                  "| release | version | wheel | bytes | sha256 |", "|---|---|---|---|---|"]
        for r in info["releases"]:
            lines.append(f"| {r['release']} | {r['version']} | `{r['wheel']}` | {r['bytes']} | `{r['sha256']}` |")
        lines.append("")
    return "\n".join(lines)


def build(projects: list[str]) -> tuple[dict[str, bytes], dict[str, object]]:
    import pip

    outputs: dict[str, bytes] = {}
    prov: dict[str, object] = {
        "script": "data/code_history/fetch.py",
        "pip": pip.__version__,
        "python": ".".join(map(str, sys.version_info[:3])),
        "table_hash_digits": TABLE_HASH_DIGITS,
        "projects": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        for project in projects:
            spec = RELEASES[project]
            rows: list[dict[str, object]] = []
            releases = []
            for release, version in enumerate(spec["versions"]):  # type: ignore[arg-type]
                wheel = download(project, version, Path(tmp))
                data = wheel.read_bytes()
                rows += index_wheel(data, str(spec["package_dir"]), release, version)
                releases.append({"release": release, "version": version, "wheel": wheel.name,
                                 "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})
                print(f"{project} {version}: {sum(1 for r in rows if r['release'] == release)} symbols", file=sys.stderr)
            outputs[f"{project}.parquet"] = table_bytes(rows)
            prov["projects"][project] = {  # type: ignore[index]
                "table": f"{project}.parquet",
                "rows": len(rows),
                "table_sha256": hashlib.sha256(outputs[f"{project}.parquet"]).hexdigest(),
                "releases": releases,
            }
    return outputs, prov


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", action="append", choices=sorted(RELEASES), help="only this project (repeatable)")
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    args = parser.parse_args(argv)
    projects = args.project or list(RELEASES)
    outputs, prov = build(projects)
    if args.project:  # keep the other projects' provenance
        old = json.loads((HERE / "PROVENANCE.json").read_text()) if (HERE / "PROVENANCE.json").exists() else {}
        merged = dict(old.get("projects", {}))
        merged.update(prov["projects"])  # type: ignore[arg-type]
        prov["projects"] = {p: merged[p] for p in RELEASES if p in merged}
    outputs["PROVENANCE.json"] = (json.dumps(prov, indent=2, sort_keys=False) + "\n").encode()
    outputs["PROVENANCE.md"] = provenance_markdown(prov).encode()
    if args.check:
        differ = [name for name, data in outputs.items()
                  if not (HERE / name).exists() or (HERE / name).read_bytes() != data]
        print("identical" if not differ else f"differ: {', '.join(differ)}")
        return 1 if differ else 0
    for name, data in outputs.items():
        atomic_write(HERE / name, data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
