"""Presentation: how the book shows what cvlib computes.

The top layer: it may import anything in cvlib, and nothing in cvlib imports it.

* :mod:`~cvlib.presentation.style`: the one figure style (the text column's width, readable text, the executors' colours);
* :mod:`~cvlib.presentation.figures` and :mod:`~cvlib.presentation.extension_figures`: every figure of the book;
* :mod:`~cvlib.presentation.tables`: the one table helper;
* :mod:`~cvlib.presentation.formatting`: how a number is written, in prose, tables and glued values;
* :mod:`~cvlib.presentation.published`: the article's published numbers beside ours;
* :mod:`~cvlib.presentation.cli`: the command line.
"""
