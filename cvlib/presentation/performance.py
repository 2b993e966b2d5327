"""``cv.performance``: the benchmark record and the Performance chapter, under one name.

Two modules hold the code: :mod:`cvlib.presentation.benchmark_record`
reads the record the suite writes (``data/benchmarks/latest.json``), judges
which rows were measured on a busy machine and draws the record's tables
and figures, as the chapter and the README's rules share them;
:mod:`cvlib.presentation.chapters.performance` holds what only the chapter
says of the record (its glued numbers, its targets in one table, its
breakdowns in parts that add up). This module gathers both, so
``cv.performance.speed_table(record)`` and ``cv.performance.glued(record)``
work as they always have.
"""

from __future__ import annotations

from cvlib.presentation.benchmark_record import (
    BUSY_LOAD_PER_CORE,
    BUSY_TEXT,
    CASE_NAMES,
    IDLE_OTHERS_CORES,
    NOT_IDLE_TEXT,
    PHASE_NAMES,
    breakdown_figure,
    breakdown_of,
    case_row,
    is_busy,
    load_record,
    machine_table,
    memory_table,
    model_name,
    model_summary,
    model_table,
    original_seconds,
    parallel_counts,
    row_busy,
    scaling_figure,
    speed_table,
    startup_table,
    sweep_table,
)
from cvlib.presentation.chapters.performance import (
    KINDS,
    TARGET_NAMES,
    BreakdownPart,
    breakdown_parts,
    breakdown_table,
    glue_values,
    glued,
    target_rows,
    target_table,
)

__all__ = [
    "BUSY_LOAD_PER_CORE",
    "BUSY_TEXT",
    "CASE_NAMES",
    "IDLE_OTHERS_CORES",
    "KINDS",
    "NOT_IDLE_TEXT",
    "PHASE_NAMES",
    "TARGET_NAMES",
    "BreakdownPart",
    "breakdown_figure",
    "breakdown_of",
    "breakdown_parts",
    "breakdown_table",
    "case_row",
    "glue_values",
    "glued",
    "is_busy",
    "load_record",
    "machine_table",
    "memory_table",
    "model_name",
    "model_summary",
    "model_table",
    "original_seconds",
    "parallel_counts",
    "row_busy",
    "scaling_figure",
    "speed_table",
    "startup_table",
    "sweep_table",
    "target_rows",
    "target_table",
]
