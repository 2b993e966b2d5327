"""Build the release-history tables of Requests, Flask, HTTPie (Python) and jiter, rpds-py (Rust) from PyPI.

Run from the repository root (needs network access to PyPI; the notebooks
never run this, they read the committed tables)::

    python data/code_history/fetch.py                       # all five projects
    python data/code_history/fetch.py --project jiter       # one project (repeatable)
    python data/code_history/fetch.py --check               # rebuild in memory, compare with the committed files
    python data/code_history/fetch.py --archives ~/cvbook-archives   # keep the archives there, reuse them next time

Python projects: for each pinned release it runs ``pip download --no-deps
--only-binary :all:`` into a temporary folder and reads the wheel's ``.py``
files in memory. Rust projects publish their Rust source in every source
distribution; pip cannot download an sdist without building its metadata
(maturin, a Rust toolchain), so the sdist is fetched from the same index pip
uses (``https://pypi.org/simple/``, the JSON form of the simple API, PEP 691),
its SHA-256 checked against the index's, and its ``.rs`` files under the
project's source folders read from the tarball in memory (tests, benches and
build scripts are left out). Nothing is extracted to disk.

With ``--archives DIR`` each archive is kept in ``DIR`` under the file name
``PROVENANCE.json`` records, and a later run reads it from there instead of
the network, after checking its SHA-256 against that record (an archive
that does not match is fetched again); the tables come out the same.

Every symbol is indexed with :func:`cvlib.notes.anchors.analyse`, the same
code the gate uses, so the hashes in the tables are exactly what
:func:`cvlib.notes.anchor` would record (truncated, see below).

Output, beside this script:

* ``<project>.parquet``: one row per (release, path, qualname), sorted by
  release, path, qualname, with columns ``release`` (0-based order),
  ``version``, ``path``, ``qualname``, ``kind``, ``raw_hash``, ``norm_hash``,
  ``dep_hash`` (first 16 hex digits of the SHA-256 digests; the tables are for
  counting, and 64 bits keep accidental collisions below 1e-12 at this size),
  ``lines``, ``nodes`` (normalized tree size), ``deps`` (one string per
  dependency: the first 8 hex digits of its hash, a space, its label; what
  names a changed dependency), ``dep_hash_wide`` and ``deps_wide`` (the same
  under the wide rule, where every class attribute counts for every method and
  every Rust method its type's whole definition) and ``fallback`` (why the precise rule
  gave way to the wide one for a method, empty otherwise). A file that does not parse gets one row of kind
  ``unparsable`` with empty qualname and hashes.
* ``PROVENANCE.json`` and ``PROVENANCE.md``: the versions, each archive's
  (wheel's or sdist's) file name, size and SHA-256, the pip and Python
  versions used, the row counts.

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
import tarfile
import tempfile
import urllib.request
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

#: Rust-backed packages: consecutive releases with a source distribution, and
#: the folders (inside the sdist's top folder) whose ``.rs`` files are the library.
RUST_RELEASES: dict[str, dict[str, object]] = {
    "jiter": {
        "source_dirs": ["crates/jiter/src/", "crates/jiter-python/src/"],
        "versions": [
            "0.4.0", "0.4.1", "0.4.2", "0.5.0", "0.6.0", "0.6.1", "0.7.0", "0.7.1", "0.8.0", "0.8.2", "0.9.0",
            "0.9.1", "0.10.0", "0.11.0", "0.11.1", "0.12.0", "0.13.0", "0.14.0", "0.15.0", "0.16.0", "0.17.0",
            "0.18.0", "0.19.0",
        ],
    },
    "rpds-py": {
        "source_dirs": ["src/"],
        "versions": [
            "0.20.0", "0.20.1", "0.21.0", "0.22.3", "0.23.0", "0.23.1", "0.24.0", "0.25.0", "0.25.1", "0.26.0",
            "0.27.0", "0.27.1", "0.28.0", "0.29.0", "0.30.0", "2026.5.1", "2026.6.3", "2026.9.1",
        ],
    },
}

#: The index pip uses, in the JSON form of the simple API (PEP 691).
SIMPLE_INDEX = "https://pypi.org/simple/"

TABLE_HASH_DIGITS = 16
COLUMNS = ["release", "version", "path", "qualname", "kind", "raw_hash", "norm_hash", "dep_hash", "lines", "nodes", "deps",
           "dep_hash_wide", "deps_wide", "fallback"]
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


def download_sdist(project: str, version: str) -> tuple[str, bytes]:
    """One release's source distribution from the simple index, its SHA-256 checked against the index's."""
    request = urllib.request.Request(SIMPLE_INDEX + project + "/", headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        listing = json.load(response)
    suffixes = (f"-{version}.tar.gz",)
    found = [f for f in listing["files"] if f["filename"].endswith(suffixes) and not f.get("yanked")]
    if len(found) != 1:
        raise RuntimeError(f"expected one sdist for {project}=={version} on {SIMPLE_INDEX}, found {[f['filename'] for f in found]}")
    with urllib.request.urlopen(found[0]["url"], timeout=120) as response:
        data = response.read()
    if hashlib.sha256(data).hexdigest() != found[0]["hashes"]["sha256"]:
        raise RuntimeError(f"{found[0]['filename']}: SHA-256 differs from the index's")
    return found[0]["filename"], data


def _index_sources(sources: list[tuple[str, str]], release: int, version: str) -> list[dict[str, object]]:
    """Rows for every symbol of (path, source text) pairs, both dependency rules."""
    rows: list[dict[str, object]] = []
    for name, source in sources:
        try:
            parsed = analyse(source, name)
            found = parsed.rows()
        except UnparsableSource:
            rows.append(dict(release=release, version=version, path=name, qualname="", kind="unparsable",
                             raw_hash="", norm_hash="", dep_hash="", lines=source.count("\n"), nodes=0, deps=[],
                             dep_hash_wide="", deps_wide=[], fallback=""))
            continue
        for s in found:
            dep_hash, deps = dependency_fingerprint(parsed.dependencies(s.qualname, "precise"))
            wide_hash, wide = dependency_fingerprint(parsed.dependencies(s.qualname, "wide"))
            rows.append(dict(release=release, version=version, path=s.path, qualname=s.qualname, kind=s.kind,
                             raw_hash=s.raw_hash[:TABLE_HASH_DIGITS], norm_hash=s.norm_hash[:TABLE_HASH_DIGITS],
                             dep_hash=dep_hash[:TABLE_HASH_DIGITS], lines=s.lines, nodes=s.nodes,
                             deps=[f"{h[:DEP_DIGITS]} {label}" for label, h in deps],
                             dep_hash_wide=wide_hash[:TABLE_HASH_DIGITS],
                             deps_wide=[f"{h[:DEP_DIGITS]} {label}" for label, h in wide],
                             fallback=parsed.fallback_reason(s.qualname)))
    return rows


def index_wheel(data: bytes, package_dir: str, release: int, version: str) -> list[dict[str, object]]:
    """Rows for every symbol of the package's .py files inside a wheel (read in memory)."""
    with zipfile.ZipFile(io.BytesIO(data)) as wheel:
        sources = [(name, read_source(wheel.read(name))) for name in sorted(wheel.namelist())
                   if name.startswith(package_dir) and name.endswith(".py")]
    return _index_sources(sources, release, version)


def index_sdist(data: bytes, source_dirs: list[str], release: int, version: str) -> list[dict[str, object]]:
    """Rows for every symbol of the ``.rs`` files under ``source_dirs`` of an sdist (read in memory).

    Paths in the table drop the sdist's top folder (``jiter-0.4.0/``), so a
    file keeps its path from release to release.
    """
    sources = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in sorted(archive.getmembers(), key=lambda m: m.name):
            if not member.isfile() or not member.name.endswith(".rs"):
                continue
            inner = member.name.split("/", 1)[1] if "/" in member.name else member.name
            if not any(inner.startswith(d) for d in source_dirs):
                continue
            handle = archive.extractfile(member)
            assert handle is not None
            sources.append((inner, handle.read().decode("utf-8", errors="surrogateescape")))
    return _index_sources(sources, release, version)


def table_bytes(rows: list[dict[str, object]]) -> bytes:
    """Deterministic Parquet bytes for the rows (sorted, fixed schema, no pandas index)."""
    frame = pd.DataFrame(rows, columns=COLUMNS).sort_values(["release", "path", "qualname"], kind="stable")
    schema = pa.schema([
        ("release", pa.int16()), ("version", pa.string()), ("path", pa.string()), ("qualname", pa.string()),
        ("kind", pa.string()), ("raw_hash", pa.string()), ("norm_hash", pa.string()), ("dep_hash", pa.string()),
        ("lines", pa.int32()), ("nodes", pa.int32()), ("deps", pa.list_(pa.string())),
        ("dep_hash_wide", pa.string()), ("deps_wide", pa.list_(pa.string())), ("fallback", pa.string()),
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
        "Written by `data/code_history/fetch.py` (run from the repository root). Each wheel of a Python project was",
        f"fetched with `pip download --no-deps --only-binary :all:` (pip {prov['pip']}, Python {prov['python']}) and read",
        "in memory; only the package's own `.py` files were indexed. Each source distribution of a Rust project was",
        f"fetched from `{SIMPLE_INDEX}` (the JSON simple API pip reads), its SHA-256 checked against the index's, and",
        "the `.rs` files of its library folders read from the tarball in memory. Hashes in the tables are the first",
        f"{prov['table_hash_digits']} hex digits of the SHA-256 digests `cvlib.notes.anchors` computes.",
        "",
    ]
    for project, info in prov["projects"].items():  # type: ignore[union-attr]
        lines += [f"## {project}", "", f"Table `{info['table']}`: {info['rows']} rows, sha256 `{info['table_sha256']}`.", "",
                  "| release | version | archive | bytes | sha256 |", "|---|---|---|---|---|"]
        for r in info["releases"]:
            lines.append(f"| {r['release']} | {r['version']} | `{r['archive']}` | {r['bytes']} | `{r['sha256']}` |")
        lines.append("")
    return "\n".join(lines)


def cached_archive(archives: Path | None, recorded: dict[str, object] | None) -> tuple[str, bytes] | None:
    """The archive of one release from the ``--archives`` folder, if it is there and its SHA-256 is the recorded one."""
    if archives is None or recorded is None:
        return None
    path = archives / str(recorded["archive"])
    if not path.is_file():
        return None
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != recorded["sha256"]:
        print(f"{path}: SHA-256 differs from PROVENANCE.json; fetching it again", file=sys.stderr)
        return None
    return path.name, data


def recorded_releases() -> dict[tuple[str, str], dict[str, object]]:
    """(project, version) -> the release entry of the committed PROVENANCE.json (empty when there is none)."""
    path = HERE / "PROVENANCE.json"
    if not path.exists():
        return {}
    projects = json.loads(path.read_text()).get("projects", {})
    return {(p, str(r["version"])): r for p, info in projects.items() for r in info["releases"]}


def build(projects: list[str], archives: Path | None = None) -> tuple[dict[str, bytes], dict[str, object]]:
    import pip

    recorded = recorded_releases()
    if archives is not None:
        archives.mkdir(parents=True, exist_ok=True)
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
            rust = project in RUST_RELEASES
            spec = RUST_RELEASES[project] if rust else RELEASES[project]
            rows: list[dict[str, object]] = []
            releases = []
            for release, version in enumerate(spec["versions"]):  # type: ignore[arg-type]
                found = cached_archive(archives, recorded.get((project, version)))
                if found is not None:
                    archive, data = found
                elif rust:
                    archive, data = download_sdist(project, version)
                else:
                    wheel = download(project, version, Path(tmp))
                    archive, data = wheel.name, wheel.read_bytes()
                if found is None and archives is not None:
                    atomic_write(archives / archive, data)
                if rust:
                    rows += index_sdist(data, list(spec["source_dirs"]), release, version)  # type: ignore[call-overload]
                else:
                    rows += index_wheel(data, str(spec["package_dir"]), release, version)
                releases.append({"release": release, "version": version, "archive": archive,
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
    parser.add_argument("--project", action="append", choices=sorted(RELEASES | RUST_RELEASES),
                        help="only this project (repeatable)")
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    parser.add_argument("--archives", type=Path, metavar="DIR",
                        help="keep the archives in DIR and read them from there when their SHA-256 is the recorded one")
    args = parser.parse_args(argv)
    projects = args.project or list(RELEASES) + list(RUST_RELEASES)
    outputs, prov = build(projects, args.archives)
    if args.project:  # keep the other projects' provenance
        old = json.loads((HERE / "PROVENANCE.json").read_text()) if (HERE / "PROVENANCE.json").exists() else {}
        merged = dict(old.get("projects", {}))
        merged.update(prov["projects"])  # type: ignore[arg-type]
        prov["projects"] = {p: merged[p] for p in list(RELEASES) + list(RUST_RELEASES) if p in merged}
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
