"""A pytest plugin for tools/run-numpy-tests: NumPy's own tests with dmlcpu.numpy.patch()
applied for the whole session, the small-array and short-run cut-offs at 0 (so NumPy's
small test arrays take the fast paths too), and the stats() counts printed at the end.

    python -m pytest -p pytest_dmlcpu_numpy ...   (with tools/ on PYTHONPATH)
"""
import dmlcpu.numpy as dnp
from dmlcpu.numpy import _layout, _tile


def pytest_configure(config):
    _layout.SMALL_BYTES = _layout.SMALL_JOIN_BYTES = 0
    _tile.REPEAT_MIN_RUN_BYTES = 0
    dnp.patch()


def pytest_unconfigure(config):
    dnp.unpatch()


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_sep("-", "dmlcpu.numpy.stats(): fast-path calls / NumPy calls")
    for name, counts in sorted(dnp.stats().items()):
        terminalreporter.write_line(f"{name}: {counts['fast']} fast, {counts['numpy']} NumPy "
                                    f"{counts['reasons']}")
