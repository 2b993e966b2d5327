"""cvbook: the distribution's own namespace, for what names itself after it.

The library is :mod:`cvlib`. inspect_ai names an extension's tasks after the
top-level package that defines them, so the studies' tasks are defined here
(:mod:`cvbook.inspect_registry`) and run as ``inspect eval cvbook/agent_study``
and ``inspect eval cvbook/notes_study`` after ``pip install -e ".[inspect]"``.
"""
