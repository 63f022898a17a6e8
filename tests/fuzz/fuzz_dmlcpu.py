"""Atheris (libFuzzer) harness: each input's bytes drive one eager call, one descriptor, or one
DxDispatch model with a .npy file, through the same generators and oracles as tests/test_fuzz.py
(tests/fuzz/cases.py, tests/fuzz/model_cases.py).

Not a test dependency: `pip install atheris`, then tools/run-fuzz (a bounded run), or by hand:
    PYTHONPATH=src python3 tests/fuzz/fuzz_dmlcpu.py -max_total_time=60 [corpus_dir]
A crash (the process dies), an AssertionError from the oracle (wrong result, stray write,
undocumented exception) or any other uncaught exception stops libFuzzer with the input saved.
"""
import os
import sys

import atheris

with atheris.instrument_imports(include=["dmlcpu", "cases", "model_cases"]):
    import dmlcpu  # noqa: F401  (instrumented: coverage of the Python layers guides the fuzzer)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import cases
    import model_cases


class AtherisChooser:
    """cases.Chooser over libFuzzer's bytes: running out of bytes yields the smallest choice."""

    def __init__(self, data):
        self.fdp = atheris.FuzzedDataProvider(data)

    def integer(self, lo, hi):
        if self.fdp.remaining_bytes() == 0:
            return lo
        return self.fdp.ConsumeIntInRange(lo, hi)

    def choice(self, values):
        return values[self.integer(0, len(values) - 1)]

    def boolean(self):
        return bool(self.integer(0, 1))


def test_one_input(data):
    chooser = AtherisChooser(data)
    check = chooser.choice([cases.check_eager, cases.check_descriptor, model_cases.check_model])
    check(chooser)


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
