"""One version everywhere, a CITATION.cff that follows the Citation File Format, and the book saying how to cite it."""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from pathlib import Path

import yaml

import cvlib as cv
from cvlib.experiments.checkpoints import cvlib_version

ROOT = Path(__file__).resolve().parents[2]
CFF = ROOT / "CITATION.cff"

#: The keys CFF 1.2.0 requires at the top level, and the ones it allows.
REQUIRED = {"cff-version", "message", "title", "authors"}
ALLOWED = REQUIRED | {
    "abstract", "commit", "contact", "date-released", "doi", "identifiers", "keywords", "license", "license-url",
    "preferred-citation", "references", "repository", "repository-artifact", "repository-code", "type", "url", "version",
}
#: A person has family-names (and may have given-names); an entity has a name.
PERSON_OR_ENTITY = ({"family-names"}, {"name"})
REFERENCE_TYPES = {"article", "book", "software", "report", "website", "generic", "data", "conference-paper"}


def _pyproject_version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def _check_authors(authors: object, where: str) -> list[str]:
    if not isinstance(authors, list) or not authors:
        return [f"{where}: authors must be a non-empty list"]
    return [f"{where}: author {a!r} has neither family-names nor name"
            for a in authors if not isinstance(a, dict) or not any(keys <= set(a) for keys in PERSON_OR_ENTITY)]


def cff_problems(data: object) -> list[str]:
    """What makes a parsed CITATION.cff invalid under CFF 1.2.0's rules for the keys this repository uses."""
    if not isinstance(data, dict):
        return ["the file is not a mapping"]
    problems = [f"missing key {k!r}" for k in sorted(REQUIRED - set(data))]
    problems += [f"unknown key {k!r}" for k in sorted(set(data) - ALLOWED)]
    if data.get("cff-version") != "1.2.0":
        problems.append(f"cff-version is {data.get('cff-version')!r}, expected '1.2.0'")
    if data.get("type", "software") not in {"software", "dataset"}:
        problems.append(f"type {data.get('type')!r} is neither software nor dataset")
    for key in ("message", "title"):
        if not isinstance(data.get(key), str) or not data.get(key, "").strip():
            problems.append(f"{key} must be a non-empty string")
    problems += _check_authors(data.get("authors"), "top level")
    if "date-released" in data:
        try:
            dt.date.fromisoformat(str(data["date-released"]))
        except ValueError:
            problems.append(f"date-released {data['date-released']!r} is not a YYYY-MM-DD date")
    for i, ref in enumerate(data.get("references", [])):
        if not isinstance(ref, dict) or not {"type", "title", "authors"} <= set(ref):
            problems.append(f"reference {i} needs type, title and authors")
            continue
        if ref["type"] not in REFERENCE_TYPES:
            problems.append(f"reference {i} has unknown type {ref['type']!r}")
        problems += _check_authors(ref["authors"], f"reference {i}")
    return problems


def test_one_version_everywhere() -> None:
    version = _pyproject_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    assert cv.__version__ == version
    assert cvlib_version() == version  # a sweep's checkpoint identity moves with the release


def test_citation_file_is_valid_and_names_this_release() -> None:
    data = yaml.safe_load(CFF.read_text(encoding="utf-8"))
    assert cff_problems(data) == []
    assert str(data["version"]) == _pyproject_version()
    assert data["license"] == tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]


def test_the_validator_catches_what_it_checks() -> None:
    good = yaml.safe_load(CFF.read_text(encoding="utf-8"))
    assert any("missing key 'authors'" in p for p in cff_problems({k: v for k, v in good.items() if k != "authors"}))
    assert any("cff-version" in p for p in cff_problems({**good, "cff-version": "1.1.0"}))
    assert any("neither family-names nor name" in p for p in cff_problems({**good, "authors": [{"email": "x@y"}]}))
    assert any("date-released" in p for p in cff_problems({**good, "date-released": "1 December"}))
    assert any("unknown key" in p for p in cff_problems({**good, "year": 2026}))


def test_the_changelog_has_this_release_and_the_introduction_says_how_to_cite() -> None:
    version = _pyproject_version()
    changelog = (ROOT / "book" / "changelog.md").read_text(encoding="utf-8")
    assert re.search(rf"^## {re.escape(version)}\b", changelog, re.M), f"book/changelog.md has no section for {version}"
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    assert "How to cite" in intro and "CITATION.cff" in intro


#: The DOI the citation file carries until a release is archived.
DOI_PLACEHOLDER = "10.5281/zenodo.0000000"


def test_the_citation_file_carries_a_doi_the_release_fills() -> None:
    """A DOI-shaped value: the placeholder before a release is archived, the archive's DOI after."""
    data = yaml.safe_load(CFF.read_text(encoding="utf-8"))
    doi = str(data.get("doi", ""))
    assert re.fullmatch(r"10\.\d{4,9}/\S+", doi), f"CITATION.cff doi {doi!r} is not a DOI"
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    if doi == DOI_PLACEHOLDER:
        assert "placeholder" in intro, "the introduction must say the DOI is a placeholder while it is one"
    assert DOI_PLACEHOLDER not in intro, "the introduction types no DOI: the release changes only CITATION.cff"
