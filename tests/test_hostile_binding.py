"""Hostile calls at the binding boundary (issue 14, defects 1-6): every argument is read once
into a snapshot; the key, the validation, the plan and the run all come from that snapshot; a
compiled operator cannot change once built; a GIL-free run holds what it touches."""
import sys
import threading

import numpy as np
import pytest

import dmlcpu as dml
from dmlcpu import _core, _ops
from hostile import Field, Rebinding

F32 = dml.TensorDataType.FLOAT32


def f32_desc(sizes):
    return dml.TensorDesc(F32, sizes)


# ---------------------------------------------------------------- defect 1: re-init under a call

def _join_op():
    return dml.compile_operator(dml.JoinOperatorDesc([f32_desc([2]), f32_desc([2])],
                                                     f32_desc([4]), 0))


def _tile_desc():
    return dml.TileOperatorDesc(f32_desc([1]), f32_desc([4]), [4])


def test_a_compiled_operator_cannot_be_re_initialized():
    op = _join_op()
    with pytest.raises(AttributeError, match="immutable"):
        op.__init__(_tile_desc(), None)
    with pytest.raises(AttributeError, match="immutable"):
        op.desc = _tile_desc()
    assert op.desc.OPERATOR == "JOIN" and op.input_count == 2
    out = bytearray(16)
    op.execute([np.float32([1, 2]).tobytes(), np.float32([3, 4]).tobytes()], [out])
    assert np.frombuffer(out, np.float32).tolist() == [1, 2, 3, 4]


def test_re_init_from_an_outputs_getitem_writes_no_input():
    op = _join_op()
    second = np.float32([3, 4]).tobytes()
    before = bytes(second)
    with pytest.raises(AttributeError, match="immutable"):
        op.execute([np.float32([1, 2]).tobytes(), second],
                   Rebinding(op, _tile_desc(), bytearray(16)))
    assert second == before


def test_threads_re_initializing_an_operator_never_disturb_a_running_call():
    n = 1 << 16  # over the GIL-release threshold: runs overlap the rebinding threads
    f32 = dml.TensorDataType.FLOAT32
    op = dml.compile_operator(dml.SplitOperatorDesc(
        dml.TensorDesc(f32, [2 * n]), [dml.TensorDesc(f32, [n]), dml.TensorDesc(f32, [n])], 0))
    x = np.arange(2 * n, dtype=np.float32)
    stop = threading.Event()
    refusals = []

    def rebind():
        while not stop.is_set():
            try:
                op.__init__(_tile_desc(), None)
            except AttributeError:
                refusals.append(1)

    threads = [threading.Thread(target=rebind) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        for _ in range(50):
            a, b = np.empty(n, np.float32), np.empty(n, np.float32)
            op.execute([x], [a, b])
            assert np.array_equal(a, x[:n]) and np.array_equal(b, x[n:])
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert refusals and op.desc.OPERATOR == "SPLIT"


def test_an_operator_never_compiled_says_so():
    op = dml.CompiledOperator.__new__(dml.CompiledOperator)
    with pytest.raises(TypeError, match="compile_operator"):
        op.execute([bytes(4)], [bytearray(4)])


# ---------------------------------------------------------------- defect 2: Plan is a checked boundary

def test_a_scan_step_is_bounded_by_the_element_size_of_its_data_type():
    f64 = int(dml.TensorDataType.FLOAT64)
    layout_out, layout_in = (1, 0, [4], [1]), (0, 0, [4], [1])
    with pytest.raises(dml.CoreError, match="element size"):
        _core.Plan(1, 1, [("scan", layout_out, layout_in, 1, f64, 0, 0, 0, 0)])
    unknown = _core.Plan(1, 1, [_core.Scan(layout_out, layout_in, 99, 0, 0, 0, 0)])
    with pytest.raises(dml.CoreError):
        unknown.run([np.zeros(4, np.uint8)], [np.zeros(4, np.uint8)])
    # the consistent step runs, bounded by 8-byte elements
    plan = _core.Plan(1, 1, [("scan", (1, 0, [4], [8]), (0, 0, [4], [8]), 8, f64, 0, 0, 0, 0)])
    out = np.zeros(4)
    plan.run([np.arange(1.0, 5.0)], [out])
    assert out.tolist() == [1, 3, 6, 10]
    with pytest.raises(dml.CoreError, match="outside"):
        plan.run([np.arange(1.0, 4.0)], [out])


# ---------------------------------------------------------------- defects 3 and 4: mutation mid-call

def _profiled(call, on_event):
    """Runs call() with on_event(count) invoked at every profiler event inside it."""
    count = [0]

    def hook(frame, event, arg):
        count[0] += 1
        on_event(count[0])

    sys.setprofile(hook)
    try:
        return call()
    finally:
        sys.setprofile(None)


def test_a_size_list_changed_mid_call_never_poisons_the_plan_cache():
    x = np.arange(6, dtype=np.float32)
    for trigger in range(1, 60):
        _ops._CACHE.clear()
        sizes = [2, 4]

        def mutate(count):
            if count == trigger:
                sizes[:] = [3, 3]

        try:
            got = _profiled(lambda: dml.split(x, axis=0, output_axis_sizes=sizes), mutate)
        except dml.InvalidArgumentError:
            got = None
        if got is not None:  # either size list is a right answer for this racy call
            assert [len(g) for g in got] in ([2, 4], [3, 3])
            assert np.array_equal(np.concatenate(got), x)
        a, b = dml.split(x, axis=0, output_axis_sizes=[2, 4])
        assert a.tolist() == [0, 1] and b.tolist() == [2, 3, 4, 5], trigger


@pytest.mark.parametrize("into", [False, True])
def test_a_field_that_reshapes_the_input_runs_what_was_validated(into):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    outputs = [np.zeros((3, 1), np.float32), np.zeros((3, 3), np.float32)] if into else None

    def reshape():
        x.shape = (4, 3)

    try:
        got = dml.split(x, axis=Field(1, reshape), output_axis_sizes=[1, 3], outputs=outputs)
    except dml.InvalidArgumentError:
        return  # read after the change: (4, 3) does not split into 1 + 3 along axis 1
    y = np.arange(12, dtype=np.float32).reshape(3, 4)  # validated on (3, 4): its rows
    assert np.array_equal(got[0], y[:, :1]) and np.array_equal(got[1], y[:, 1:])


def test_a_field_that_retypes_a_join_input_runs_what_was_validated():
    a = np.arange(4, dtype=np.float64)
    b = np.arange(4, 8, dtype=np.float64)

    def retype():
        a.dtype = np.int32

    try:
        got = dml.join([a, b], axis=Field(0, retype))
    except dml.InvalidArgumentError:
        return  # read after the change: int32 (8,) and float64 (4,) cannot be joined
    assert got.dtype == np.float64 and got.tolist() == list(range(8))


@pytest.mark.parametrize("call", [
    lambda x, f: dml.slice(x, offsets=[0, f], sizes=[2, 2], strides=[1, 1]),
    lambda x, f: dml.tile(x, repeats=[1, f]),
    lambda x, f: dml.cumulative_summation(x, axis=f),
    lambda x, f: dml.slice1(x, input_window_offsets=[f, 0], input_window_sizes=[2, 2]),
])
def test_fields_that_transpose_the_input_run_one_consistent_call(call):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    before, after = x.copy(), x.copy().reshape(4, 3)

    def transpose():
        x.shape = (4, 3)

    try:
        got = call(x, Field(1, transpose))
    except dml.InvalidArgumentError:
        return
    assert any(np.array_equal(got, call(y, 1)) for y in (before, after))


def test_a_large_remembered_run_is_not_disturbed_by_reshapes_meanwhile():
    """A remembered call of 1 MiB binds the arrays' own fields and then releases the GIL: another
    thread reshaping input and output meanwhile changes nothing the run reads. Each call either
    runs the (512, 512) slice it validated, exactly, or is refused (read as (256, 1024))."""
    x = np.arange(1 << 18, dtype=np.float32).reshape(512, 512)
    expected = x[:, 128:384].copy()
    out = np.empty((512, 256), np.float32)
    stop = threading.Event()

    def reshape():
        while not stop.is_set():
            x.shape = (256, 1024)
            out.shape = (256, 512)
            x.shape = (512, 512)
            out.shape = (512, 256)

    ran = 0
    thread = threading.Thread(target=reshape)
    thread.start()
    try:
        for _ in range(100):
            out.fill(-1)  # whatever shape it has now
            try:
                dml.slice(x, offsets=[0, 128], sizes=[512, 256], strides=[1, 1], out=out)
            except dml.InvalidArgumentError:
                continue  # x or out read while reshaped
            assert np.array_equal(out.reshape(512, 256), expected)
            ran += 1
    finally:
        stop.set()
        thread.join()
    assert ran > 0


# ---------------------------------------------------------------- defect 5: generator outputs

def test_split_into_a_generator_of_outputs_returns_them():
    x = np.arange(6, dtype=np.float32)
    outs = [np.zeros(2, np.float32), np.zeros(4, np.float32)]
    got = dml.split(x, axis=0, output_axis_sizes=[2, 4], outputs=(o for o in outs))
    assert len(got) == 2 and got[0] is outs[0] and got[1] is outs[1]
    assert outs[0].tolist() == [0, 1] and outs[1].tolist() == [2, 3, 4, 5]


def test_split_into_the_rows_of_an_array():
    x = np.arange(6, dtype=np.float32)
    rows = np.zeros((2, 3), np.float32)
    got = dml.split(x, axis=0, output_axis_sizes=[3, 3], outputs=rows)
    assert len(got) == 2 and rows.tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(TypeError, match="sequence of arrays"):
        dml.join(rows, axis=0)


def test_join_of_a_generator_of_inputs():
    parts = [np.arange(2.0), np.arange(2.0, 5.0)]
    assert dml.join((p for p in parts), axis=0).tolist() == [0, 1, 2, 3, 4]


def test_outputs_whose_length_lies_are_read_once():
    x = np.arange(6, dtype=np.float32)
    outs = [np.zeros(2, np.float32), np.zeros(4, np.float32)]

    class Lying:
        def __len__(self):
            return 7

        def __iter__(self):
            return iter(outs)

        def __getitem__(self, k):
            return outs[k]

    got = dml.split(x, axis=0, output_axis_sizes=[2, 4], outputs=Lying())
    assert got[0] is outs[0] and outs[1].tolist() == [2, 3, 4, 5]


# ---------------------------------------------------------------- defect 6: DLPack outputs

class CopyingProducer:
    """A DLPack producer that hands out a copy unless asked not to (the protocol allows it)."""

    def __init__(self, array, can_share=True):
        self.array = array
        self.can_share = can_share
        self.copy_requests = []

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.copy_requests.append(copy)
        if copy is False:
            if not self.can_share:
                raise BufferError("this producer cannot share its memory")
            return self.array.__dlpack__(max_version=max_version)
        return self.array.copy().__dlpack__(max_version=max_version)


def test_dlpack_outputs_are_imported_without_a_copy():
    target = np.zeros(4, np.float32)
    producer = CopyingProducer(target)
    assert dml.tile(np.float32([1, 2]), repeats=[2], out=producer) is producer
    assert target.tolist() == [1, 2, 1, 2]
    assert producer.copy_requests and False in producer.copy_requests


def test_a_dlpack_output_that_needs_a_copy_is_refused():
    target = np.zeros(4, np.float32)
    with pytest.raises(dml.InvalidArgumentError, match="copy"):
        dml.tile(np.float32([1, 2]), repeats=[2], out=CopyingProducer(target, can_share=False))
    assert target.tolist() == [0, 0, 0, 0]
