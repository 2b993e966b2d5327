"""Where the built book, its table of contents and the browser live, shared by the browser tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
HTML = ROOT / "_build" / "html"
TOC = ROOT / "_toc.yml"
CHROMIUM = Path(os.environ.get("CVBOOK_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = ROOT / "test-artifacts"
SOURCE_SUFFIXES = (".md", ".ipynb", ".rst")

# Root needs --no-sandbox; the rest keeps a headless run quiet and offline:
# no first-run UI, no background fetches, no component or sync traffic.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def missing(what: str) -> None:
    """Skip on a developer machine; fail under CI, where the set-up provides everything."""
    if os.environ.get("CI"):
        pytest.fail(f"{what} (CI is set, so this is a failure, not a skip)")
    pytest.skip(what)


def toc_files() -> list[str]:
    """Every file in ``_toc.yml``, in reading order, as written (no suffix)."""
    if not TOC.is_file():
        return []
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    files: list[str] = []

    def walk(entries: list[dict]) -> None:
        for entry in entries or []:
            if "file" in entry:
                files.append(_page(entry["file"]))
            if "glob" in entry:
                for match in sorted(ROOT.glob(entry["glob"])):
                    if match.suffix in SOURCE_SUFFIXES:
                        files.append(_page(str(match.relative_to(ROOT))))
            walk(entry.get("sections", []))
            walk(entry.get("chapters", []))
            for part in entry.get("parts", []) or []:
                walk(part.get("chapters", []))

    files.append(_page(toc["root"]))
    walk(toc.get("chapters", []))
    for part in toc.get("parts", []) or []:
        walk(part.get("chapters", []))
    return files


def toc_parts() -> dict[str, list[str]]:
    """Each part's caption and its pages (chapters and their sections), in reading order."""
    if not TOC.is_file():
        return {}
    toc = yaml.safe_load(TOC.read_text(encoding="utf-8"))
    parts: dict[str, list[str]] = {}

    def walk(entries: list[dict], into: list[str]) -> None:
        for entry in entries or []:
            if "file" in entry:
                into.append(_page(entry["file"]))
            walk(entry.get("sections", []), into)

    for part in toc.get("parts", []) or []:
        walk(part.get("chapters", []), parts.setdefault(part.get("caption", ""), []))
    return parts


def _page(entry: str) -> str:
    """A TOC entry without its source suffix, which it may or may not carry."""
    for suffix in SOURCE_SUFFIXES:
        if entry.endswith(suffix):
            return entry[: -len(suffix)]
    return entry


def source_of(page: str) -> Path | None:
    """The source file a TOC entry was built from (``.md``, ``.ipynb`` or ``.rst``)."""
    for suffix in SOURCE_SUFFIXES:
        if (ROOT / f"{page}{suffix}").is_file():
            return ROOT / f"{page}{suffix}"
    return None
