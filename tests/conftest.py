"""Shared test setup: the test helpers are importable as top-level modules, and hypothesis runs
without per-example deadlines (timings on a shared 2-core machine are noise, not failures).

Set DMLCPU_TEST_EXAMPLES_SCALE (e.g. 10) to multiply every property test's example count.
"""
import os
import sys

from hypothesis import settings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

settings.register_profile("dmlcpu", deadline=None, print_blob=True)
settings.load_profile("dmlcpu")
