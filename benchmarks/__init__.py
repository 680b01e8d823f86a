"""Benchmark harnesses: each prints a markdown report (see benchmarks/README.md)."""
