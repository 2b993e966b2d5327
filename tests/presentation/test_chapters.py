"""The calls every chapter makes (cvlib.presentation.chapters)."""

from __future__ import annotations

import platform
from importlib import metadata

import pytest

from cvlib.presentation import chapters


def test_version_line_names_python_cvlib_and_the_default_packages() -> None:
    line = chapters.version_line()
    assert line == (
        f"Computed with Python {platform.python_version()}, cvlib {metadata.version('cvbook')}, "
        f"pandas {metadata.version('pandas')}, matplotlib {metadata.version('matplotlib')}"
    )


def test_version_line_takes_the_packages_given_in_order() -> None:
    line = chapters.version_line("numpy", "pandas")
    assert line.endswith(f"numpy {metadata.version('numpy')}, pandas {metadata.version('pandas')}")
    assert "matplotlib" not in line


def test_version_line_refuses_a_package_that_is_not_installed() -> None:
    with pytest.raises(metadata.PackageNotFoundError):
        chapters.version_line("no-such-distribution-xyz")


def test_version_footer_prints_the_line(capsys: pytest.CaptureFixture[str]) -> None:
    chapters.version_footer("numpy")
    assert capsys.readouterr().out == chapters.version_line("numpy") + "\n"
