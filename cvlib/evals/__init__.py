"""The two studies as inspect_ai evaluations, and inspect's logs back as the project's recordings.

Needs the optional extra ``inspect`` (``pip install -e .[inspect]``). The
pieces, each a module: :mod:`~cvlib.evals.grammar` (a study's grammar as a
language a provider can be held to), :mod:`~cvlib.evals.bridge` (an inspect
model as a cvlib :class:`~cvlib.models.interface.LanguageModel`),
:mod:`~cvlib.evals.provider` (cvlib's models as the inspect provider
``cvlib``), :mod:`~cvlib.evals.runners` (the seam to each study's runner),
:mod:`~cvlib.evals.scores` and :mod:`~cvlib.evals.tasks` (the tasks and their
scorers), :mod:`~cvlib.evals.logs` (``cvlib models import-inspect``) and
:mod:`~cvlib.evals.costs` (calls and tokens of a run, from the design).
Nothing here is imported by ``import cvlib``.
"""
