"""``cvlib run --help`` and ``cvlib spec --help`` help a reader who has not read the code."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

import cvlib as cv
from cvlib.presentation.cli import main
from cvlib.scenarios.spec import _TOP_KEYS

ROOT = Path(__file__).resolve().parents[2]


def _help(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--help"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_run_help_lists_every_scenario_name():
    text = _help("run")
    assert f"NAME is one of {', '.join(cv.SCENARIOS)};" in text
    assert "cvlib list" in text


def test_spec_help_summarises_every_key_and_names_files_that_exist():
    text = _help("spec")
    for key in _TOP_KEYS:
        assert re.search(rf"\b{key}\b", text), f"cvlib spec --help does not mention {key!r}"
    for path in re.findall(r"\b(?:data|book)/[\w/]+\.(?:yaml|md)\b", text):
        assert (ROOT / path).is_file(), f"cvlib spec --help names {path}, which does not exist"
    assert "data/scenarios/two_suppliers.yaml" in text and "book/spec_format.md" in text
    assert "bash scripts/book.sh --spec PATH" in text
