"""Language models in the loop, offline and replayable (a side package on the core; ``import cvlib`` never loads it).

``from cvlib import models`` gives the one interface (:class:`LanguageModel`:
chat turns and :class:`GenerationSettings` in, text out), a llama.cpp backend
for any GGUF file (:class:`LlamaCppModel`, needs the ``models`` extra), the
models that registry packages ship (:func:`bundled_model`), and recordings:
:class:`Recorder` writes every call as one JSON line, :class:`ReplayModel`
answers from such a file and refuses any call it does not hold.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Public name -> the module that defines it (loaded on first use, so ``cvlib models`` starts fast).
_EXPORTS = {
    "BUNDLED": "bundled",
    "BundledModel": "bundled",
    "bundled_model": "bundled",
    "bundled_names": "bundled",
    "model_path": "bundled",
    "ModelChecksumError": "errors",
    "ModelError": "errors",
    "ModelMissingError": "errors",
    "RecordingError": "errors",
    "RuntimeMissingError": "errors",
    "UnrecordedCallError": "errors",
    "file_sha256": "files",
    "user_cache": "files",
    "LanguageModel": "interface",
    "LlamaCppModel": "llamacpp",
    "runtime_version": "llamacpp",
    "FIELDS": "recording",
    "CallRecord": "recording",
    "Recorder": "recording",
    "ReplayModel": "recording",
    "read_recording": "recording",
    "recorded_tasks": "recording",
    "GenerationSettings": "settings",
    "Message": "settings",
    "ModelIdentity": "settings",
    "ModelPolicy": "agent_loop",
    "AGENT_SETTINGS": "agent_loop",
    "ARMS": "prompts",
    "Decision": "parsing",
    "parse_decision": "parsing",
    "verify_recording": "verify",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Load a public name the first time it is asked for (PEP 562)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'cvlib.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"cvlib.models.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value
