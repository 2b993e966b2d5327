"""Language models in the loop, offline and replayable (a side package on the core; ``import cvlib`` never loads it).

``from cvlib import models`` gives the one interface (:class:`LanguageModel`:
chat turns and :class:`GenerationSettings` in, text out), a llama.cpp backend
for any GGUF file (:class:`LlamaCppModel`, needs the ``models`` extra), the
models that registry packages ship (:func:`bundled_model`), and recordings:
:class:`Recorder` writes every call as one JSON line, :class:`ReplayModel`
answers from such a file and refuses any call it does not hold.
"""

from __future__ import annotations

from .bundled import BUNDLED, BundledModel, bundled_model, bundled_names, model_path
from .errors import (
    ModelChecksumError,
    ModelError,
    ModelMissingError,
    RecordingError,
    RuntimeMissingError,
    UnrecordedCallError,
)
from .files import file_sha256, user_cache
from .interface import LanguageModel
from .llamacpp import LlamaCppModel, runtime_version
from .recording import FIELDS, CallRecord, Recorder, ReplayModel, read_recording, recorded_tasks
from .settings import GenerationSettings, Message, ModelIdentity

__all__ = [
    "BUNDLED",
    "FIELDS",
    "BundledModel",
    "CallRecord",
    "GenerationSettings",
    "LanguageModel",
    "LlamaCppModel",
    "Message",
    "ModelChecksumError",
    "ModelError",
    "ModelIdentity",
    "ModelMissingError",
    "RecordingError",
    "Recorder",
    "ReplayModel",
    "RuntimeMissingError",
    "UnrecordedCallError",
    "bundled_model",
    "bundled_names",
    "file_sha256",
    "model_path",
    "read_recording",
    "recorded_tasks",
    "runtime_version",
    "user_cache",
]
