"""Benchmarks of the harness's own components (``arena bench ...``)."""
