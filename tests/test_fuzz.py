"""No input crashes dmlcpu, reads outside an input, writes outside an output, or leaves a partial
result (docs/semantics.md section 7).

- Random eager calls and descriptors (tests/fuzz/cases.py draws them, hostile values included,
  and judges each: a right result with nothing written outside the outputs, or a documented
  refusal with nothing written at all). DMLCPU_FUZZ_EXAMPLES raises the example count.
- Every field of every operator set, one at a time, to each extreme value and wrong type.
- The documented errors are exactly InvalidArgumentError and TypeError, plus MemoryError when a
  valid result cannot be allocated; never CoreError (the core refusing what validation let
  through) or OverflowError.
- 10,000 inputs to JOIN and 10,000 outputs to SPLIT, eager and as descriptors.
- Random DxDispatch models and .npy files (tests/fuzz/model_cases.py), hostile parts included:
  a run or a ModelError, within the run's max_bytes, writing only under the output folder.
"""
import os
import sys
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dmlcpu as dml
from dmlcpu import InvalidArgumentError, TensorDesc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz"))
import cases  # noqa: E402
import model_cases  # noqa: E402
from conftest import examples  # noqa: E402

EXAMPLES = examples(int(os.environ.get("DMLCPU_FUZZ_EXAMPLES", "400")))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class HypothesisChooser:
    """cases.Chooser over hypothesis' data.draw, so failing cases shrink."""

    def __init__(self, data):
        self.data = data

    def integer(self, lo, hi):
        return self.data.draw(st.integers(lo, hi))

    def choice(self, values):
        return values[self.data.draw(st.integers(0, len(values) - 1))]

    def boolean(self):
        return self.data.draw(st.booleans())


OUTCOMES = {}


def _count(kind, outcome):
    OUTCOMES.setdefault(kind, {}).setdefault(outcome, 0)
    OUTCOMES[kind][outcome] += 1


@FUZZ
@given(st.data())
def test_random_eager_calls(data):
    _count("eager", cases.check_eager(HypothesisChooser(data)))


@FUZZ
@given(st.data())
def test_random_descriptors(data):
    _count("descriptor", cases.check_descriptor(HypothesisChooser(data)))


@settings(FUZZ, max_examples=max(EXAMPLES // 4, examples(50)))
@given(st.data())
def test_random_models_and_npy_files(data):
    _count("model", model_cases.check_model(HypothesisChooser(data)))


def test_fuzzing_reaches_both_outcomes():
    """The random tests above must exercise successes and refusals alike (run after them)."""
    if not OUTCOMES:
        pytest.skip("run together with the random tests")
    print(f"fuzz outcomes: {OUTCOMES}")
    for kind in ("eager", "descriptor", "model"):
        counts = OUTCOMES.get(kind, {})
        total = sum(counts.values())
        assert counts.get("ok", 0) > total // 10, (kind, counts)
        assert counts.get("refused", 0) > total // 10, (kind, counts)


# ---------------------------------------------------------------- one field at a time

def f32(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


X = f32(2, 3, 4)
VALID_CALLS = {
    "split": (X, {"axis": 1, "output_axis_sizes": [1, 2]}),
    "join": ([X, X], {"axis": 2}),
    "slice": (X, {"offsets": [0, 1, 0], "sizes": [2, 2, 2], "strides": [1, 1, 2]}),
    "slice1": (X, {"input_window_offsets": [0, 0, 1], "input_window_sizes": [2, 3, 3],
                   "input_window_strides": [1, -1, 2]}),
    "tile": (X, {"repeats": [1, 2, 1]}),
    "cumulative_summation": (X, {"axis": 2, "axis_direction": 1, "has_exclusive_sum": True}),
    "cumulative_product": (X, {"axis": 0, "axis_direction": 0, "has_exclusive_product": False}),
}
FIELD_CASES = [(op, field, position)
               for op, (_, fields) in VALID_CALLS.items()
               for field, value in fields.items()
               for position in (range(len(value)) if isinstance(value, list) else [None])]


def _sentinel_outputs(op, x, fields):
    """Sentinel-filled outputs shaped for the valid call, and the valid call's results."""
    expected = cases.reference(op, x, fields)
    return [_filled(e.shape) for e in expected], expected


def _filled(shape):
    out = np.empty(shape, np.float32)
    out.view(np.uint8)[...] = cases.SENTINEL
    return out


def _with_field(fields, field, position, value):
    changed = dict(fields)
    if position is None:
        changed[field] = value
    else:
        changed[field] = list(fields[field])
        changed[field][position] = value
    return changed


def _run_with_outputs(op, x, fields, outs):
    kwargs = dict(fields, **({"outputs": outs} if op == "split" else {"out": outs[0]}))
    return getattr(dml, op)(x, **kwargs)


@pytest.mark.parametrize("op,field,position", FIELD_CASES)
def test_each_field_at_each_extreme(op, field, position):
    """Each int field (or list entry) set to each extreme: the right result or
    InvalidArgumentError (MemoryError for a valid result too big to allocate), and the caller's
    outputs untouched on refusal."""
    x, fields = VALID_CALLS[op]
    for value in cases.HOSTILE_INTS:
        changed = _with_field(fields, field, position, value)
        nbytes = cases.result_bytes(op, x, changed)
        if cases.SMALL_RESULT < nbytes < cases.HUGE_RESULT:
            continue
        outs, _ = _sentinel_outputs(op, x, fields)
        try:  # the caller's outputs, shaped for the valid call
            _run_with_outputs(op, x, changed, outs)
        except InvalidArgumentError:
            assert all(_untouched(o) for o in outs), (op, field, position, value)
        else:  # the caller's SLICE1 output may take fewer elements than the window yields
            shaped = dict(changed, output_sizes=outs[0].shape) if op == "slice1" else changed
            for got, want in zip(outs, cases.reference(op, x, shaped)):
                assert cases.same_result(got, want, op), value
        try:  # outputs allocated by dmlcpu
            result = getattr(dml, op)(x, **changed)
        except InvalidArgumentError:
            continue
        except MemoryError:
            assert nbytes >= cases.HUGE_RESULT, (op, field, position, value)
            continue
        results = result if op == "split" else [result]
        for got, want in zip(results, cases.reference(op, x, changed)):
            assert cases.same_result(got, want, op)


def _untouched(out):
    return bool((out.view(np.uint8) == cases.SENTINEL).all())


@pytest.mark.parametrize("op,field,position", FIELD_CASES)
def test_each_field_with_a_wrong_type(op, field, position):
    """A float, string, None or nested list where an integer belongs: TypeError, nothing written."""
    x, fields = VALID_CALLS[op]
    outs, _ = _sentinel_outputs(op, x, fields)
    for value in [1.0, 2.5, "1", None, [[1]], b"\x01", 1j]:
        changed = _with_field(fields, field, position, value)
        with pytest.raises(TypeError):
            _run_with_outputs(op, x, changed, outs)
        assert all(_untouched(o) for o in outs)


@pytest.mark.parametrize("op", list(VALID_CALLS))
def test_whole_field_of_a_wrong_type(op):
    x, fields = VALID_CALLS[op]
    outs, _ = _sentinel_outputs(op, x, fields)
    for field, value in fields.items():
        if not isinstance(value, list):
            continue
        optional = field in ("strides", "input_window_strides")  # None: the default
        for wrong in [3, 1.5, "012", [[0, 1, 2]], {0: 1}, {0, 1, 2}] + ([] if optional
                                                                       else [None]):
            with pytest.raises(TypeError):
                _run_with_outputs(op, x, dict(fields, **{field: wrong}), outs)
            assert all(_untouched(o) for o in outs)


BAD_OUTPUTS = {
    "readonly": lambda e: _readonly(e.shape),
    "wrong shape": lambda e: _filled(e.shape[:-1] + (e.shape[-1] + 1,)),
    "wrong rank": lambda e: _filled(e.shape + (1,)),
    "wrong dtype": lambda e: np.full(e.shape, 0x5A5A5A5A, np.int32),
    "bytes": lambda e: bytes(e.nbytes),
    "list": lambda e: [0.0] * e.size,
    "broadcast": lambda e: np.broadcast_to(_filled(e.shape[1:]), e.shape),
}


def _readonly(shape):
    out = _filled(shape)
    out.flags.writeable = False
    return out


@pytest.mark.parametrize("kind", list(BAD_OUTPUTS))
@pytest.mark.parametrize("op", list(VALID_CALLS))
def test_bad_outputs_are_refused(op, kind):
    x, fields = VALID_CALLS[op]
    expected = cases.reference(op, x, fields)
    outs = [BAD_OUTPUTS[kind](e) for e in expected]
    before = [bytes(np.ascontiguousarray(o)) if isinstance(o, np.ndarray) else None
              for o in outs]
    error = TypeError if kind == "list" else InvalidArgumentError
    with pytest.raises(error):
        _run_with_outputs(op, x, fields, outs)
    assert [bytes(np.ascontiguousarray(o)) if isinstance(o, np.ndarray) else None
            for o in outs] == before


@pytest.mark.parametrize("op", list(VALID_CALLS))
def test_non_contiguous_outputs_work(op):
    x, fields = VALID_CALLS[op]
    expected = cases.reference(op, x, fields)
    bases = [np.full((2,) + e.shape, np.float32(-7.5)) for e in expected]
    outs = [b[1, ..., ::-1] for b in bases]
    _run_with_outputs(op, x, fields, outs)
    for base, out, want in zip(bases, outs, expected):
        assert np.array_equal(out, want)
        assert (base[0] == -7.5).all()


def _block(base, start, shape):
    return base[(0,) + tuple(slice(start, start + n) for n in shape)]


# Views of the memory holding x = base[0, :2, :3, :4], shaped like the output.
OVERLAPPING_VIEWS = {
    "same start": lambda base, shape: _block(base, 0, shape),
    "reversed": lambda base, shape: _block(base, 0, shape)[::-1, ::-1, ::-1],
    "shifted": lambda base, shape: _block(base, 1, shape),
}


@pytest.mark.parametrize("view", list(OVERLAPPING_VIEWS))
@pytest.mark.parametrize("op", list(VALID_CALLS))
def test_outputs_overlapping_inputs_through_views(op, view):
    """An output that is a view into an input's memory is refused, nothing written (the
    identical view of a scan's input is in place: tested below)."""
    base = np.arange(2 * 4 * 8 * 10, dtype=np.float32).reshape(2, 4, 8, 10)
    x = base[0, :2, :3, :4]
    fields = VALID_CALLS[op][1]
    expected = cases.reference(op, [x, x] if op == "join" else x, fields)
    target = OVERLAPPING_VIEWS[view](base, expected[0].shape)
    if op.startswith("cumulative") and view == "same start":
        target = target[:, :, ::2][:, :, :2]  # same first element, not the identical view
        fields = dict(fields, axis=0)
        outs = None
        with pytest.raises(InvalidArgumentError):  # shape differs too: refused either way
            _run_with_outputs(op, x, fields, [target])
        return
    assert np.shares_memory(target, x) and target.shape == expected[0].shape
    before = base.copy()
    outs = [target] + [_filled(e.shape) for e in expected[1:]]
    with pytest.raises(InvalidArgumentError, match="overlaps"):
        _run_with_outputs(op, [x, x] if op == "join" else x, fields, outs)
    assert np.array_equal(base, before)


def test_split_outputs_overlapping_each_other():
    a = _filled((2, 3, 4))
    with pytest.raises(InvalidArgumentError, match="outputs must not overlap each other"):
        dml.split(X, axis=0, output_axis_sizes=[1, 1], outputs=[a[:1], a[:1, :, ::-1]])
    assert _untouched(a)


@pytest.mark.parametrize("op", ["cumulative_summation", "cumulative_product"])
def test_scans_run_in_place(op):
    x = X.copy()
    expected = cases.reference(op, x, VALID_CALLS[op][1])[0]
    assert getattr(dml, op)(x, out=x, **VALID_CALLS[op][1]) is x
    assert x.tobytes() == expected.tobytes()


def test_nine_dims_and_zero_dims_are_refused():
    for shape in [(1,) * 9, (2,) * 9, ()]:
        x = np.zeros(shape, np.float32)
        for op, call in [("split", lambda: dml.split(x, axis=0, output_axis_sizes=[1])),
                         ("tile", lambda: dml.tile(x, repeats=[1] * len(shape))),
                         ("cumsum", lambda: dml.cumulative_summation(x, axis=0))]:
            with pytest.raises(InvalidArgumentError, match="DimensionCount"):
                call()
        with pytest.raises(InvalidArgumentError, match="DimensionCount"):
            dml.compile_operator(dml.TileOperatorDesc(TensorDesc("FLOAT32", [1] * 9),
                                                      TensorDesc("FLOAT32", [1] * 9), [1] * 9))


def test_repeats_whose_product_overflows_64_bits():
    x = np.zeros((2, 2, 2), np.float32)
    with pytest.raises(InvalidArgumentError, match="element count .* but must fit a 64-bit"):
        dml.tile(x, repeats=[2**32, 2**32, 2**32])
    with pytest.raises(InvalidArgumentError, match="product of the non-zero sizes"):
        dml.tile(np.zeros((0, 2), np.float32), repeats=[2**62, 2**62])
    with pytest.raises(InvalidArgumentError):
        dml.compile_operator(dml.TileOperatorDesc(TensorDesc("FLOAT32", [2, 2]),
                                                  TensorDesc("FLOAT32", [2, 2]),
                                                  [2**64 - 1, 2**64 - 1]))


def test_crafted_arrays_beyond_64_bit_offsets_are_refused():
    """as_strided can describe elements 2^62 bytes apart; no call may compute with them."""
    base = np.zeros(4, np.float32)
    x = np.lib.stride_tricks.as_strided(base, shape=(4, 4), strides=(2**62, 2**62))
    for call in [lambda: dml.cumulative_summation(x, axis=0),
                 lambda: dml.slice(x, offsets=[0, 0], sizes=[1, 1]),
                 lambda: dml.tile(x, repeats=[1, 1])]:
        with pytest.raises(InvalidArgumentError, match="beyond 64 bits"):
            call()


def test_descriptors_no_buffer_can_hold_are_refused():
    u = 2**32 - 1
    big = TensorDesc("UINT64", [u, 1], strides=[u, 1])
    desc = dml.SplitOperatorDesc(big, [TensorDesc("UINT64", [u - 1, 1], strides=[u, 1]),
                                       TensorDesc("UINT64", [1, 1], strides=[u, 1])], 0)
    with pytest.raises(InvalidArgumentError, match="at most 9223372036854775807"):
        dml.compile_operator(desc)


def test_steps_of_unread_dims_may_be_any_size():
    """A one-element dim never applies its step, and an empty output reads nothing: any step
    that fits its 64-bit field (wider ones are refused: tests/test_field_limits.py)."""
    x = f32(3, 4)
    for step in [2**31, 2**32, 2**63]:
        assert dml.slice(x, offsets=[1, 0], sizes=[1, 4], strides=[step, 1]).tolist() == [
            x[1].tolist()]
        assert dml.slice(x, offsets=[3, 0], sizes=[0, 4], strides=[step, 1]).shape == (0, 4)
        got = dml.slice1(x, input_window_offsets=[0, 0], input_window_sizes=[3, 4],
                         input_window_strides=[-step, 1])
        assert got.tolist() == [x[2].tolist()]
        op = dml.compile_operator(dml.SliceOperatorDesc(
            TensorDesc("FLOAT32", [3, 4]), TensorDesc("FLOAT32", [1, 4]), [2, 0], [1, 4],
            [step, 1]))
        out = bytearray(16)
        op.execute([x.tobytes()], [out])
        assert np.frombuffer(out, np.float32).tolist() == x[2].tolist()


def test_a_result_too_large_to_allocate_raises_memory_error():
    """Valid in extended mode (2^53 elements fit in 64 bits), but no machine holds 64 PiB."""
    x = np.broadcast_to(np.float64(1.0), (4, 4))
    with pytest.raises(MemoryError):
        dml.tile(x, repeats=[2**25, 2**25])
    with pytest.raises(MemoryError):
        dml.slice(f32(2, 2), offsets=[0, 0], sizes=[2**26, 2**26], strides=[0, 0])


# ---------------------------------------------------------------- many inputs and outputs

MANY = 10_000


def test_join_of_ten_thousand_inputs():
    rng = np.random.default_rng(1)
    parts = [rng.integers(0, 2**15, size=(2, int(n)), dtype=np.int16)
             for n in rng.integers(0, 3, size=MANY)]
    start = time.perf_counter()
    got = dml.join(parts, axis=1)
    elapsed = time.perf_counter() - start
    assert got.tobytes() == np.concatenate(parts, axis=1).tobytes()
    out = np.full((3, 2, got.shape[1]), -1, np.int16)
    middle = out[1]
    assert dml.join(parts, axis=1, out=middle) is middle
    assert middle.tobytes() == got.tobytes() and (out[0] == -1).all() and (out[2] == -1).all()
    assert elapsed < 5, f"JOIN of {MANY} inputs took {elapsed:.2f} s"


def test_split_into_ten_thousand_outputs():
    x = np.arange(2 * MANY, dtype=np.uint8).reshape(2, MANY)
    parts = dml.split(x, axis=1, output_axis_sizes=[1] * MANY)
    assert len(parts) == MANY
    assert all(p.tobytes() == x[:, k:k + 1].tobytes() for k, p in enumerate(parts))
    outs = [np.full((2, 1), 0xA5, np.uint8) for _ in range(MANY)]
    assert dml.split(x, axis=1, output_axis_sizes=[1] * MANY, outputs=outs) == outs
    assert all(o.tobytes() == x[:, k:k + 1].tobytes() for k, o in enumerate(outs))


def test_ten_thousand_outputs_one_overlapping_is_refused_whole():
    x = np.arange(2 * MANY, dtype=np.uint8).reshape(2, MANY)
    base = np.full((MANY + 1, 2, 1), 0xA5, np.uint8)
    outs = [base[k] for k in range(MANY)]
    outs[MANY - 1] = base[3]
    with pytest.raises(InvalidArgumentError, match="overlaps"):
        dml.split(x, axis=1, output_axis_sizes=[1] * MANY, outputs=outs)
    assert (base == 0xA5).all()


def test_descriptors_with_ten_thousand_tensors():
    t = TensorDesc("UINT32", [1, 2])
    whole = TensorDesc("UINT32", [MANY, 2])
    join = dml.compile_operator(dml.JoinOperatorDesc([t] * MANY, whole, 0))
    split = dml.compile_operator(dml.SplitOperatorDesc(whole, [t] * MANY, 0))
    data = np.arange(2 * MANY, dtype=np.uint32)
    inputs = [data[2 * k:2 * k + 2].tobytes() for k in range(MANY)]
    out = bytearray(8 * MANY)
    join.execute(inputs, [out])
    assert bytes(out) == data.tobytes()
    outs = [bytearray(8) for _ in range(MANY)]
    split.execute([bytes(out)], outs)
    assert [bytes(o) for o in outs] == inputs
    # one output bound over another: refused before anything is written
    shared = bytearray(b"\xa5" * 8 * MANY)
    views = [memoryview(shared)[8 * k:8 * k + 8] for k in range(MANY)]
    views[-1] = memoryview(shared)[4:12]
    with pytest.raises(InvalidArgumentError, match="outputs must not overlap each other"):
        split.execute([bytes(out)], views)
    assert shared == b"\xa5" * 8 * MANY


@pytest.mark.parametrize("view", [
    (0, (4,), (2**62,)),                 # 3 * 2^62 bytes of reach
    (2**63, (1,), (4,)),                 # an offset beyond int64
    (2**63 - 4, (2,), (4,)),             # the last element's end beyond int64
    (-2**63 + 4, (2,), (-8,)),           # the lowest byte below int64
    (0, (2**63,), (1,)),                 # a size beyond int64
    (0, (2,), (-2**63,)),                # |stride| beyond int64
    (0, (3, 3), (2**62, 2**62)),         # the sum of extents beyond int64
])
def test_plans_refuse_views_beyond_64_bit_offsets(view):
    """The Cython boundary checks every byte offset a view reaches before C sees it: refused with
    InvalidArgumentError (a crafted array can get there; validation keeps tensors out)."""
    from dmlcpu._core import Plan
    offset, sizes, strides = view
    good = (0, 0, sizes, tuple(4 for _ in sizes))
    for dst, src in [((1, offset, sizes, strides), good), ((1, 0, sizes, (4,) * len(sizes)),
                                                         (0, offset, sizes, strides))]:
        with pytest.raises(InvalidArgumentError, match="beyond 64 bits"):
            Plan(1, 1, [("copy", dst, src, 4)])
