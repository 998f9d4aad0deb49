"""Benchmarks of the explorer (not tests: they time things and never fail a build).

Run them all with ``python -m benchmarks.run`` (or ``./build.sh bench``); see benchmarks/run.py.
"""
