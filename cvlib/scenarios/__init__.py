"""Scenarios: plan generators, random plan families, the article's named scenarios and spec files.

Built on :mod:`cvlib.core` only; everything here returns setups that the
core's executors run.
"""
