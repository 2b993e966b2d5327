"""Every cvlib error hangs from CvlibError and is also the built-in it means; the API page's table says which."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

import cvlib as cv
from cvlib.core import errors
from cvlib.notes import errors as notes_errors

CORE_PAGE = Path(__file__).resolve().parents[2] / "book" / "api" / "core.md"

#: What each error is besides a CvlibError.
MEANS: dict[type[Exception], type[Exception]] = {
    errors.CycleError: ValueError,
    errors.UnknownFactError: ValueError,
    errors.UnknownStepError: ValueError,
    errors.ParameterError: ValueError,
    errors.SizeLimitError: ValueError,
    errors.SpecError: ValueError,
    errors.SweepError: RuntimeError,
    errors.NotesError: ValueError,
    notes_errors.LanguageUnavailable: ImportError,
}


def test_the_api_page_tables_every_error_with_its_builtin() -> None:
    rows = dict(re.findall(r"^\| `(?:cvlib\.notes\.errors\.)?(\w+)` \| `(\w+)` \|", CORE_PAGE.read_text(encoding="utf-8"), re.M))
    core = [c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__]
    for error in core:
        assert error.__name__ in rows, f"{error.__name__} is missing from the errors table in {CORE_PAGE.name}"
    for error, builtin in MEANS.items():
        assert rows[error.__name__] == builtin.__name__, error.__name__
    assert rows["CvlibError"] == "Exception"
@pytest.mark.parametrize("error", sorted(MEANS, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_each_error_is_a_cvliberror_and_the_builtin_it_means(error: type[Exception]) -> None:
    assert issubclass(error, errors.CvlibError)
    assert issubclass(error, MEANS[error])
    with pytest.raises(MEANS[error], match="the bad value"):
        raise error("the bad value")


def test_the_root_is_no_builtin_category() -> None:
    assert not issubclass(errors.CvlibError, (ValueError, RuntimeError, ImportError))


def test_a_failed_run_is_not_a_bad_value() -> None:
    assert not issubclass(errors.SweepError, ValueError)
    assert not issubclass(errors.ParameterError, RuntimeError)


def test_a_bad_sweep_backend_is_a_bad_parameter() -> None:
    with pytest.raises(ValueError, match="unknown sweep backend 'spark'"):
        cv.sweep(cv.Grid("D2", depth=[2]), backend="spark")


