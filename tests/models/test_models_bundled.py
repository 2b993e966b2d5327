"""The bundled-model locator: one-line errors for a missing package or a wrong file, chunks joined once."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from cvlib.core.errors import ParameterError
from cvlib.models import bundled, files
from cvlib.models.bundled import BundledModel, bundled_model, model_path
from cvlib.models.errors import ModelChecksumError, ModelError, ModelMissingError


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CVBOOK_MODEL_CACHE", str(tmp_path / "cache"))


def _fake_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, files_: dict[str, bytes]) -> None:
    folder = tmp_path / "site" / name
    for inner, data in files_.items():
        (folder / inner).parent.mkdir(parents=True, exist_ok=True)
        (folder / inner).write_bytes(data)
    (folder / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    sys.modules.pop(name, None)


def _register(monkeypatch: pytest.MonkeyPatch, model: BundledModel) -> None:
    monkeypatch.setitem(bundled.BUNDLED, model.name, model)


def test_unknown_name_lists_the_bundled_ones() -> None:
    with pytest.raises(ParameterError, match="expected one of smollm2-135m"):
        bundled_model("gpt-5")
    with pytest.raises(ParameterError, match="neither a bundled model"):
        model_path("gpt-5")


def test_missing_package_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    model = BundledModel("ghost", "ghost.gguf", "0" * 64, (("no_such_pkg_xyz", "m.gguf"),), ("no-such-pkg==1",), "x")
    _register(monkeypatch, model)
    with pytest.raises(ModelMissingError, match="needs the package no-such-pkg-xyz .*install_models.sh") as info:
        bundled_model("ghost")
    assert "\n" not in str(info.value)


def test_chunks_are_joined_once_and_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"GGUF" + bytes(range(256)) * 40
    _fake_package(tmp_path, monkeypatch, "chunk_a_pkg", {"data/p1.bin": data[:5000]})
    _fake_package(tmp_path, monkeypatch, "chunk_b_pkg", {"data/p2.bin": data[5000:]})
    good = BundledModel(
        "joined", "joined.gguf", hashlib.sha256(data).hexdigest(),
        (("chunk_a_pkg", "data/p1.bin"), ("chunk_b_pkg", "data/p2.bin")), ("a==1", "b==1"), "x",
    )
    _register(monkeypatch, good)
    path = bundled_model("joined")
    assert path.read_bytes() == data and path.parent == files.user_cache()
    assert bundled_model("joined") == path  # the second time reuses the joined file
    bad = BundledModel("wrong", "wrong.gguf", "0" * 64, good.parts, good.packages, "x")
    _register(monkeypatch, bad)
    with pytest.raises(ModelChecksumError, match="expected 0000"):
        bundled_model("wrong")
    assert not (files.user_cache() / "wrong.gguf").exists()


def test_a_changed_single_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_package(tmp_path, monkeypatch, "single_pkg", {"m.gguf": b"GGUF-changed"})
    _register(monkeypatch, BundledModel("one", "m.gguf", "1" * 64, (("single_pkg", "m.gguf"),), ("s==1",), "x"))
    with pytest.raises(ModelChecksumError, match="has SHA-256"):
        bundled_model("one")


def test_model_files_are_checked(tmp_path: Path) -> None:
    from cvlib.models.files import check_gguf

    with pytest.raises(ModelMissingError, match="does not exist"):
        check_gguf(tmp_path / "none.gguf")
    text = tmp_path / "notes.gguf"
    text.write_bytes(b"hello")
    with pytest.raises(ModelError, match="not a GGUF file"):
        check_gguf(text)


def test_hash_is_cached_by_size_and_time(tmp_path: Path) -> None:
    target = tmp_path / "f.bin"
    target.write_bytes(b"abc")
    assert files.file_sha256(target) == hashlib.sha256(b"abc").hexdigest()
    target.write_bytes(b"abcd")
    assert files.file_sha256(target) == hashlib.sha256(b"abcd").hexdigest()

