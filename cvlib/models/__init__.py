"""The model runtime: any language model behind one seam, every call recorded, replayed and verified.

A side package on the core (``import cvlib`` never loads it). It holds the
runtime only: the one interface (:class:`LanguageModel`: chat turns and
:class:`GenerationSettings` in, text out), one way to open a model
(:func:`open_model`: a bundled name, a GGUF path, an OpenAI-compatible
server's URL, or ``replay:PATH``), the backends behind it (announced in the
entry-point group ``cvlib.models``), the models registry packages ship
(:func:`bundled_model`), recordings (:class:`Recorder` writes every call as one
JSON line, plain or gzip; :class:`ReplayModel` answers from one) and
:func:`verify_recording`, which re-generates recorded calls. The studies that
use it (their tasks, prompts and outcome classification) live in
:mod:`cvlib.experiments`.
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
    "DeterminismRow": "determinism",
    "determinism_sentence": "determinism",
    "load_determinism": "determinism",
    "ModelChecksumError": "errors",
    "ModelError": "errors",
    "ModelMissingError": "errors",
    "RecordingDamagedError": "errors",
    "RecordingError": "errors",
    "ServerUnreachableError": "errors",
    "ModelBackend": "registry",
    "backends": "registry",
    "open_model": "registry",
    "register_backend": "registry",
    "unregister_backend": "registry",
    "LlamaCppBackend": "llamacpp",
    "OpenAIServerBackend": "server",
    "OpenAIServerModel": "server",
    "ReplayBackend": "replay",
    "compact": "jsonl",
    "new_recording_path": "naming",
    "recording_stem": "naming",
    "recording_header": "recording",
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
    "ReplayModel": "replay",
    "read_recording": "recording",
    "recorded_tasks": "recording",
    "GenerationSettings": "settings",
    "Message": "settings",
    "ModelIdentity": "settings",
    "verify_recording": "verify",
    "append_lines": "jsonl",
    "read_lines": "jsonl",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Load a public name the first time it is asked for (PEP 562)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module 'cvlib.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"cvlib.models.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value
