"""Experiments: the article's sweeps, the law checked against runs, X1-X5, and sweeps at scale.

Built on :mod:`cvlib.scenarios` and :mod:`cvlib.core`; results come back as
tidy DataFrames (pandas is loaded here, never below).
"""
