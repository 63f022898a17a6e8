"""Many Python threads calling operators at once on shared inputs give the right results.

The inputs are large enough (over Plan.run's 64 KiB threshold) that the GIL is released while
the C core runs, so the calls truly overlap. Every thread checks its own results against NumPy
references computed before the threads start; shared inputs must come out unchanged.
"""
import threading

import numpy as np
import pytest

import dmlcpu as dml

THREADS = 8
ROUNDS = 6


@pytest.fixture(scope="module")
def shared():
    rng = np.random.default_rng(7)
    x = rng.integers(-1000, 1000, size=(64, 1024), dtype=np.int32)  # 256 KiB
    f = rng.uniform(0.5, 1.5, size=(256, 256)).astype(np.float32)     # 256 KiB
    x.flags.writeable = False
    f.flags.writeable = False
    return x, f


def _calls(x, f):
    """(name, call returning arrays, expected arrays), references computed once up front."""
    parts = np.split(x, [10, 40], axis=0)
    return [
        ("split", lambda: dml.split(x, axis=0, output_axis_sizes=[10, 30, 24]), parts),
        ("join", lambda: [dml.join(parts, axis=0)], [x]),
        ("slice", lambda: [dml.slice(x, offsets=[1, 0], sizes=[31, 512], strides=[2, 2])],
         [x[1:63:2, 0:1024:2]]),
        ("slice1", lambda: [dml.slice1(x, input_window_offsets=[0, 0],
                                       input_window_sizes=[64, 1024],
                                       input_window_strides=[-1, -1])], [x[::-1, ::-1]]),
        ("tile", lambda: [dml.tile(x, repeats=[2, 1])], [np.tile(x, (2, 1))]),
        ("cumsum", lambda: [dml.cumulative_summation(x, axis=1)], [np.cumsum(x, axis=1,
                                                                            dtype=np.int32)]),
        ("cumprod outer", lambda: [dml.cumulative_product(f, axis=0)],
         [_sequential_cumprod(f)]),
    ]


def _sequential_cumprod(f):
    out = np.empty_like(f)
    acc = np.ones(f.shape[1], np.float32)
    for k in range(f.shape[0]):
        acc = acc * f[k]
        out[k] = acc
    return out


def test_threads_share_inputs_and_get_right_results(shared):
    x, f = shared
    before = (x.tobytes(), f.tobytes())
    calls = _calls(x, f)
    errors = []
    barrier = threading.Barrier(THREADS)

    def worker(index):
        try:
            barrier.wait()
            for round_ in range(ROUNDS):
                name, call, expected = calls[(index + round_) % len(calls)]
                got = call()
                assert len(got) == len(expected), name
                for g, e in zip(got, expected):
                    assert g.tobytes() == np.ascontiguousarray(e).tobytes(), name
        except BaseException as error:  # reported by the main thread
            errors.append((index, error))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert not errors, errors
    assert (x.tobytes(), f.tobytes()) == before


def test_threads_share_one_compiled_operator(shared):
    """One CompiledOperator executed from many threads at once, each on its own buffers."""
    x, _ = shared
    whole = dml.TensorDesc("INT32", list(x.shape))
    halves = [dml.TensorDesc("INT32", [32, 1024])] * 2
    op = dml.compile_operator(dml.SplitOperatorDesc(whole, halves, 0))
    data = x.tobytes()
    errors = []

    def worker():
        try:
            for _ in range(ROUNDS):
                outs = [bytearray(op.output_sizes[0]), bytearray(op.output_sizes[1])]
                op.execute([data], outs)
                assert bytes(outs[0]) + bytes(outs[1]) == data
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors


def test_in_place_scans_on_disjoint_rows_from_many_threads():
    """Threads scanning disjoint slices of one array in place do not disturb each other."""
    rng = np.random.default_rng(3)
    values = rng.integers(0, 2**31, size=(THREADS, 32, 1024), dtype=np.uint32)
    work = values.copy()
    errors = []

    def worker(i):
        try:
            dml.cumulative_summation(work[i], axis=0, out=work[i])
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert work.tobytes() == np.cumsum(values, axis=1, dtype=np.uint32).tobytes()
