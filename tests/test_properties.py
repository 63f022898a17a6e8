"""Property tests: every data-movement operator against the NumPy references in reference.py.

Random ranks 1-8, small sizes (many 1s), all eleven types, every axis; inputs laid out as views
with steps, negative steps, zero strides and permuted memory order; outputs either new arrays or
strided views inside sentinel-filled bases (nothing outside the view may change). Data are random
bit patterns with NaN payloads, -0.0, infinities and denormals mixed in for floats; comparisons
are on the bits.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlcpu as dml
import reference
from arrays import (Layout, SentinelOutput, contiguous_layout, extent, random_input,
                    sentinel_array)
from conftest import as_bits, assert_same_bits
from conftest import examples as scaled
from reference import DTYPES

# Elements a base array may hold: keeps rank-8 views with steps cheap.
MAX_BASE = 1 << 14


def examples(n):
    return settings(max_examples=scaled(n), deadline=None)


dtypes = st.sampled_from(DTYPES)
seeds = st.integers(0, 2**32 - 1)


@st.composite
def shapes(draw, min_rank=1, max_rank=8, max_elements=256, max_size=5, empty_ok=False):
    """Small shapes: dims drawn in turn within an element budget, then shuffled.

    ``empty_ok``: one case in eight has a dimension of 0 (extended mode allows it).
    """
    rank = draw(st.integers(min_rank, max_rank))
    sizes, total = [], 1
    for _ in range(rank):
        high = max(1, min(max_size, max_elements // total))
        size = draw(st.integers(1, high))
        sizes.append(size)
        total *= size
    if empty_ok and draw(st.integers(0, 7)) == 0:
        sizes[draw(st.integers(0, rank - 1))] = 0
    return tuple(draw(st.permutations(sizes)))


def maybe_zero(draw, value):
    """``value``, or 0 in one case in eight."""
    return 0 if draw(st.integers(0, 7)) == 0 else value


@st.composite
def layouts(draw, shape, allow_zero_strides):
    """None (a plain C-contiguous array) or a Layout whose base stays within MAX_BASE."""
    if draw(st.booleans()):
        return None
    ndim = len(shape)
    perm = tuple(draw(st.permutations(range(ndim))))
    step_choices = [1, 2, 3, -1, -2] + ([0] if allow_zero_strides else [])
    steps, offsets = [], []
    # the plainest layout of the dims still to come (step 1, no offset) stays affordable
    reserved = int(np.prod([extent(n, 1, 0) for n in shape], dtype=np.int64))
    used = 1
    for n in shape:
        reserved //= extent(n, 1, 0)
        budget = max(extent(n, 1, 0), MAX_BASE // (used * reserved))
        options = [(s, o) for s in step_choices for o in (0, 1)
                   if extent(n, s, o) <= budget]
        step, offset = draw(st.sampled_from(options))
        steps.append(step)
        offsets.append(offset)
        used *= extent(n, step, offset)
    return Layout(perm, tuple(steps), tuple(offsets))


@st.composite
def inputs(draw, shape, dtype):
    layout = draw(layouts(shape, allow_zero_strides=True))
    rng = np.random.default_rng(draw(seeds))
    return random_input(rng, dtype, shape, layout)


@st.composite
def sentinel_outputs(draw, shape, dtype):
    """A strided view inside a sentinel-filled base, for ``out=`` / ``outputs=``."""
    layout = draw(layouts(shape, allow_zero_strides=False))
    return SentinelOutput(dtype, shape, layout or contiguous_layout(len(shape)))


def output_views(shape, dtype):
    """None (let dmlcpu allocate) or a SentinelOutput."""
    return st.one_of(st.none(), sentinel_outputs(shape, dtype))


def check_single(result, output, expected):
    """A new C-contiguous result, or the caller's own object filled in place."""
    if output is None:
        assert isinstance(result, np.ndarray) and result.flags.c_contiguous
        assert_same_bits(result, expected)
    else:
        assert result is output.view
        output.check(expected)


# ---------------------------------------------------------------- SPLIT

@st.composite
def split_cases(draw):
    dtype = draw(dtypes)
    shape = draw(shapes(empty_ok=True))
    axis = draw(st.integers(0, len(shape) - 1))
    n = shape[axis]
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=4))) if n > 1 else []
    if draw(st.integers(0, 7)) == 0:  # empty parts too (extended mode)
        cuts = sorted(cuts + draw(st.lists(st.integers(0, n), min_size=1, max_size=2)))
    bounds = [0] + cuts + [n]
    axis_sizes = [b - a for a, b in zip(bounds, bounds[1:])]
    x = draw(inputs(shape, dtype))
    outputs = None
    if draw(st.booleans()):
        outputs = [draw(sentinel_outputs(shape[:axis] + (m,) + shape[axis + 1:], dtype))
                   for m in axis_sizes]
    return x, axis, axis_sizes, outputs


@examples(1000)
@given(split_cases())
def test_split_matches_reference(case):
    x, axis, axis_sizes, outputs = case
    expected = reference.split(x, axis, axis_sizes)
    result = dml.split(x, axis=axis, output_axis_sizes=axis_sizes,
                       outputs=None if outputs is None else [o.view for o in outputs])
    assert len(result) == len(expected)
    for k, (actual, wanted) in enumerate(zip(result, expected)):
        check_single(actual, None if outputs is None else outputs[k], wanted)


# ---------------------------------------------------------------- JOIN

@st.composite
def join_cases(draw):
    dtype = draw(dtypes)
    shape = draw(shapes(max_elements=128, empty_ok=True))
    axis = draw(st.integers(0, len(shape) - 1))
    axis_sizes = [maybe_zero(draw, m)
                  for m in draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))]
    xs = [draw(inputs(shape[:axis] + (m,) + shape[axis + 1:], dtype)) for m in axis_sizes]
    out_shape = shape[:axis] + (sum(axis_sizes),) + shape[axis + 1:]
    return xs, axis, draw(output_views(out_shape, dtype))


@examples(1000)
@given(join_cases())
def test_join_matches_reference(case):
    xs, axis, output = case
    expected = reference.join(xs, axis)
    result = dml.join(xs, axis=axis, out=None if output is None else output.view)
    check_single(result, output, expected)


# ---------------------------------------------------------------- SLICE

@st.composite
def slice_cases(draw):
    dtype = draw(dtypes)
    in_shape = draw(shapes(empty_ok=True))
    empties = draw(st.integers(0, 7)) == 0
    offsets, sizes, strides, total = [], [], [], 1
    for n in in_shape:
        stride = draw(st.integers(0, 3))
        if n == 0 or (empties and draw(st.booleans())):
            # an empty slice reads nothing; its offset may sit at the end
            offsets.append(draw(st.integers(0, n)))
            sizes.append(0)
            strides.append(stride)
            continue
        most = 4 if stride == 0 else 1 + (n - 1) // stride
        size = draw(st.integers(1, max(1, min(most, 256 // max(total, 1)))))
        total *= size
        last = 0 if stride == 0 else stride * (size - 1)
        offsets.append(draw(st.integers(0, n - 1 - last)))
        sizes.append(size)
        strides.append(stride)
    x = draw(inputs(in_shape, dtype))
    return x, offsets, sizes, strides, draw(output_views(tuple(sizes), dtype))


@examples(1000)
@given(slice_cases())
def test_slice_matches_reference(case):
    x, offsets, sizes, strides, output = case
    expected = reference.slice(x, offsets, sizes, strides)
    result = dml.slice(x, offsets=offsets, sizes=sizes, strides=strides,
                       out=None if output is None else output.view)
    check_single(result, output, expected)


@examples(30)
@given(dtypes, shapes(), seeds)
def test_slice_strides_default_to_one(dtype, shape, seed):
    x = random_input(np.random.default_rng(seed), dtype, shape)
    offsets = [n // 2 for n in shape]
    sizes = [n - n // 2 for n in shape]
    result = dml.slice(x, offsets=offsets, sizes=sizes)
    assert_same_bits(result, reference.slice(x, offsets, sizes, [1] * len(shape)))


# ---------------------------------------------------------------- SLICE1

@st.composite
def slice1_cases(draw):
    dtype = draw(dtypes)
    in_shape = draw(shapes(empty_ok=True))
    empties = draw(st.integers(0, 7)) == 0
    offsets, windows, strides, out_sizes = [], [], [], []
    for n in in_shape:
        stride = draw(st.sampled_from([1, 2, 3, -1, -2, -3]))
        strides.append(stride)
        if n == 0 or (empties and draw(st.booleans())):
            # an empty window (extended mode) yields nothing
            offsets.append(draw(st.integers(0, n)))
            windows.append(0)
            out_sizes.append(0)
            continue
        offset = draw(st.integers(0, n - 1))
        window = draw(st.integers(1, n - offset))
        most = 1 + (window - 1) // abs(stride)
        offsets.append(offset)
        windows.append(window)
        out_sizes.append(draw(st.integers(1, most)))
    # None: the most elements each window yields
    maximal = draw(st.booleans())
    if maximal:
        out_sizes = [1 + (w - 1) // abs(s) for w, s in zip(windows, strides)]
    x = draw(inputs(in_shape, dtype))
    return (x, offsets, windows, strides, None if maximal else out_sizes,
            draw(output_views(tuple(out_sizes), dtype)))


@examples(1000)
@given(slice1_cases())
def test_slice1_matches_reference(case):
    x, offsets, windows, strides, out_sizes, output = case
    expected = reference.slice1(x, offsets, windows, strides, out_sizes)
    result = dml.slice1(x, input_window_offsets=offsets, input_window_sizes=windows,
                        input_window_strides=strides, output_sizes=out_sizes,
                        out=None if output is None else output.view)
    check_single(result, output, expected)


# ---------------------------------------------------------------- TILE

@st.composite
def tile_cases(draw):
    dtype = draw(dtypes)
    shape = draw(shapes(max_elements=64, max_size=4, empty_ok=True))
    repeats, total = [], max(1, int(np.prod(shape)))
    for _ in shape:
        repeat = draw(st.integers(1, max(1, min(3, 1024 // total))))
        total *= repeat
        repeats.append(repeat)
    x = draw(inputs(shape, dtype))
    out_shape = tuple(n * r for n, r in zip(shape, repeats))
    return x, repeats, draw(output_views(out_shape, dtype))


@examples(1000)
@given(tile_cases())
def test_tile_matches_reference(case):
    x, repeats, output = case
    expected = reference.tile(x, repeats)
    result = dml.tile(x, repeats=repeats, out=None if output is None else output.view)
    check_single(result, output, expected)


# ---------------------------------------------------------------- layouts that must be accepted

def test_split_into_interleaved_outputs_of_one_base():
    # two outputs whose byte ranges interleave but never share an element: not an overlap
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    base = np.full((4, 6), -1, dtype=np.int32)
    first, second = base[:, 0::2], base[:, 1::2]
    result = dml.split(x, axis=1, output_axis_sizes=[3, 3], outputs=[first, second])
    assert result[0] is first and result[1] is second
    assert_same_bits(base[:, 0::2], x[:, :3])
    assert_same_bits(base[:, 1::2], x[:, 3:])


def test_join_inputs_may_overlap_each_other():
    # inputs are only read: the same array twice, and two overlapping views, are fine
    x = np.arange(10, dtype=np.float64)
    out = dml.join([x, x, x[2:5]], axis=0)
    assert_same_bits(out, np.concatenate([x, x, x[2:5]]))


# ---------------------------------------------------------------- steps that are never taken

@pytest.mark.parametrize("step", [2**31, 2**61, 2**64 - 1])  # wider: test_field_limits.py
def test_slice_step_along_a_one_element_dimension_is_never_taken(step):
    # Output[c] = Input[offsets + strides * c] with c = 0 only: any stride reads offsets
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    out = dml.slice(x, offsets=[1, 2], sizes=[1, 2], strides=[step, 1])
    assert_same_bits(out, reference.slice(x, [1, 2], [1, 2], [1, 1]))


@pytest.mark.parametrize("step", [2**31, -2**31 - 1, 2**61, -2**63, 2**63 - 1])
def test_slice1_step_along_a_one_element_dimension_is_never_taken(step):
    x = np.arange(12, dtype=np.uint16).reshape(3, 4)
    out = dml.slice1(x, input_window_offsets=[1, 0], input_window_sizes=[2, 4],
                     input_window_strides=[step, -1])
    start = 2 if step < 0 else 1
    assert_same_bits(out, x[start:start + 1, ::-1])


# ---------------------------------------------------------------- tangled strides

def tangled(base, shape, element_strides, itemsize):
    """A view of ``base`` with any element strides (repeats and interleaving allowed), placed so
    that every element lies inside ``base[1:-1]``; returns the view and each element's index."""
    low = sum(min(0, (n - 1) * s) for n, s in zip(shape, element_strides))
    start = 1 - low
    index = np.full(shape, start, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(shape, element_strides)):
        step = np.arange(n, dtype=np.int64) * s
        index += step.reshape((1,) * axis + (n,) + (1,) * (len(shape) - axis - 1))
    view = np.lib.stride_tricks.as_strided(
        base[start:], shape, [s * itemsize for s in element_strides])
    return view, index


def span(shape, element_strides):
    return sum(abs(s) * (n - 1) for n, s in zip(shape, element_strides)) + 3


@examples(300)
@given(dtypes, st.lists(st.integers(1, 4), min_size=1, max_size=3), st.data(), seeds)
def test_tangled_strides(dtype, shape, data, seed):
    """Inputs may repeat or interleave elements; an output that repeats one is refused before
    anything is written, and one that only interleaves is written exactly."""
    rng = np.random.default_rng(seed)
    ndim = len(shape)
    in_strides = data.draw(st.lists(st.integers(-5, 5), min_size=ndim, max_size=ndim))
    out_strides = data.draw(st.lists(st.integers(-5, 5), min_size=ndim, max_size=ndim))
    in_base = random_input(rng, dtype, (span(shape, in_strides),))
    x, _ = tangled(in_base, shape, in_strides, in_base.itemsize)
    expected = np.ascontiguousarray(x)

    out_base = sentinel_array(dtype, (span(shape, out_strides),))
    before = as_bits(out_base).copy()
    out, index = tangled(out_base, shape, out_strides, out_base.itemsize)
    repeats_an_element = len(np.unique(index)) < index.size
    if repeats_an_element:
        with pytest.raises(dml.InvalidArgumentError, match="overlap themselves"):
            dml.tile(x, repeats=[1] * ndim, out=out)
        assert_same_bits(out_base, before.view(dtype), "a refused output's base")
        return
    assert dml.tile(x, repeats=[1] * ndim, out=out) is out
    after = as_bits(out_base)
    assert_same_bits(after[index], as_bits(expected), "output elements")
    untouched = np.ones(out_base.size, dtype=bool)
    untouched[index.ravel()] = False
    assert np.array_equal(after[untouched], before[untouched]), "written outside the output"
