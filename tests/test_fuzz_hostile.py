"""Fuzzing with argument objects that change while dmlcpu reads them (issue 14's attack shapes).

Each example draws an operator call, a change (the input reshaped or retyped, a field list
rewritten) and the moment it happens (the n-th profiler event inside the call, so every point
between reading and running is reached), and sometimes a sequence that lies about its length.
A call must return the result of the call on the arguments as they were or as they became, or
refuse with a documented error; afterwards, the same call with plain arguments must be right
(no remembered plan was stored under the wrong arguments).
"""
import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlcpu as dml
from dmlcpu import _ops
from conftest import examples
from hostile import LyingLength

VALUES = np.arange(1, 25, dtype=np.float32).reshape(4, 6)

# name: (call of an input and a field list, the field list's value, its changed value)
CALLS = {
    "split": (lambda x, f: dml.split(x, axis=1, output_axis_sizes=f), [2, 4], [3, 3]),
    "slice": (lambda x, f: [dml.slice(x, offsets=[1, 0], sizes=[2, 3], strides=f)], [1, 2],
              [2, 1]),
    "slice1": (lambda x, f: [dml.slice1(x, input_window_offsets=[0, 1],
                                        input_window_sizes=[3, 4], input_window_strides=f)],
               [-1, 2], [1, -2]),
    "tile": (lambda x, f: [dml.tile(x, repeats=f)], [2, 1], [1, 2]),
    "join": (lambda x, f: [dml.join(LyingLength([x, x]), axis=f[0])], [1], [0]),
    "cumsum": (lambda x, f: [dml.cumulative_summation(x, axis=f[0])], [1], [0]),
}


def _run_changing(call, x, fields, change, trigger):
    count = [0]

    def hook(frame, event, arg):
        count[0] += 1
        if count[0] == trigger:
            change()

    sys.setprofile(hook)
    try:
        return call(x, fields)
    finally:
        sys.setprofile(None)


@settings(max_examples=examples(300), deadline=None, database=None)
@given(name=st.sampled_from(sorted(CALLS)), kind=st.sampled_from(["reshape", "retype", "field"]),
       trigger=st.integers(1, 80), warm=st.booleans())
def test_arguments_changing_mid_call(name, kind, trigger, warm):
    call, value, changed = CALLS[name]
    if not warm:
        _ops._CACHE.clear()
    x = VALUES.copy()
    fields = list(value)

    def change():
        if kind == "reshape":
            x.shape = (6, 4)
        elif kind == "retype":
            x.dtype = np.int32
        else:
            fields[:] = changed

    candidates = []
    for array in (VALUES, VALUES.reshape(6, 4), VALUES.view(np.int32)):
        for f in (value, changed):
            try:
                candidates.append(call(array.copy(), list(f)))
            except dml.InvalidArgumentError:
                pass
    try:
        got = _run_changing(call, x, fields, change, trigger)
    except (dml.InvalidArgumentError, TypeError):
        got = None
    if got is not None:
        assert any(len(got) == len(c) and all(g.dtype == w.dtype and g.shape == w.shape
                                              and g.tobytes() == w.tobytes()
                                              for g, w in zip(got, c)) for c in candidates)
    clean = call(VALUES.copy(), list(value))
    again = call(VALUES.copy(), list(value))
    assert all(a.tobytes() == b.tobytes() and a.shape == b.shape for a, b in zip(clean, again))
    # NumPy integers make no cache key: this call is validated and planned afresh
    expected = call(VALUES.copy(), [np.int64(v) for v in value])
    assert all(a.tobytes() == b.tobytes() and a.shape == b.shape
               for a, b in zip(clean, expected))
