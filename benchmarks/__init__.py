"""cvlib's benchmark suite: ``python -m benchmarks`` (see ``benchmarks/README.md``)."""
