"""Presentation: figures, tables, the article's published numbers beside ours, and the command line.

The top layer: it may import anything in cvlib, and nothing in cvlib imports it.
"""
