"""CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT through the eager API, bit for bit.

Expected values come from the seed page and docs/semantics.md (literals), from hand-worked boundary
cases, or from the independent Python walk in scan_reference.py; never from dmlcpu itself.
The C core picks one of two strategies from the output's strides: "outer" when some other dim
steps less than the axis in the output (a C-contiguous output scanned along a non-last axis),
"line" when the axis is innermost (along the last axis). Tests below name which one a layout hits.
"""
import itertools
import zlib

import numpy as np
import pytest

import dmlcpu as dml
from dmlcpu import AxisDirection
from dmlcpu._core import Plan
from dmlcpu._errors import CoreError
from conftest import as_bits
from scan_reference import PROD, SUM, reference_scan

DTYPES = [np.float32, np.float16, np.uint32, np.uint16, np.uint8, np.int32, np.int16, np.int8,
          np.float64, np.uint64, np.int64]
INT_DTYPES = [d for d in DTYPES if np.dtype(d).kind in "iu"]
FLOAT_DTYPES = [np.float16, np.float32, np.float64]
SENTINEL_BYTE = 0x5A


def scan(op, x, axis, reverse=False, exclusive=False, out=None):
    direction = AxisDirection.DECREASING if reverse else AxisDirection.INCREASING
    if op == SUM:
        return dml.cumulative_summation(x, axis=axis, axis_direction=direction,
                                        has_exclusive_sum=exclusive, out=out)
    return dml.cumulative_product(x, axis=axis, axis_direction=direction,
                                  has_exclusive_product=exclusive, out=out)


def assert_bits_equal(actual, expected):
    """Bit-exact, except that a NaN matches any NaN: IEEE 754 leaves open which operand's payload
    (and sign) a NaN result carries, and compilers may commute a + b, so NaN bits differ between
    correct implementations (x86 returns the first operand's NaN; NumPy's scalar add and C's
    acc + x disagree on which is first). Where NaNs are is still compared exactly."""
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    a, e = as_bits(actual), as_bits(expected)
    if actual.dtype.kind == "f":
        nan_a, nan_e = np.isnan(actual), np.isnan(expected)
        assert np.array_equal(nan_a, nan_e), f"NaNs at {np.argwhere(nan_a != nan_e)[:5]}"
        a, e = a[~nan_a], e[~nan_e]
        actual, expected = np.ascontiguousarray(actual)[~nan_a], np.ascontiguousarray(
            expected)[~nan_e]
    if not np.array_equal(a, e):
        where = np.argwhere(a != e)[:5]
        details = [(tuple(int(i) for i in w), actual[tuple(w)], expected[tuple(w)])
                   for w in where]
        raise AssertionError(f"{np.count_nonzero(a != e)} elements differ, first: {details}")


# --- golden examples -------------------------------------------------------------------------

# The seed page's input, {1,1,3,4} FLOAT32.
SEED_INPUT = [[[[2, 1, 3, 5],
                [3, 8, 7, 3],
                [9, 6, 2, 4]]]]

# (axis, direction, exclusive) -> expected, from seeds/004 (CUMULATIVE_PRODUCT examples 1-4)
SEED_PRODUCT = [
    (3, 0, False, [[[[2, 2, 6, 30],
                     [3, 24, 168, 504],
                     [9, 54, 108, 432]]]]),
    (3, 0, True, [[[[1, 2, 2, 6],
                    [1, 3, 24, 168],
                    [1, 9, 54, 108]]]]),
    (3, 1, False, [[[[30, 15, 15, 5],
                     [504, 168, 21, 3],
                     [432, 48, 8, 4]]]]),
    (2, 0, False, [[[[2, 1, 3, 5],
                     [6, 8, 21, 15],
                     [54, 48, 42, 60]]]]),
]

# docs/semantics.md section 3, SUM column.
SPEC_SUMMATION = [
    (3, 0, False, [[[[2, 3, 6, 11], [3, 11, 18, 21], [9, 15, 17, 21]]]]),
    (3, 0, True, [[[[0, 2, 3, 6], [0, 3, 11, 18], [0, 9, 15, 17]]]]),
    (3, 1, False, [[[[11, 9, 8, 5], [21, 18, 10, 3], [21, 12, 6, 4]]]]),
    (2, 0, False, [[[[2, 1, 3, 5], [5, 9, 10, 8], [14, 15, 12, 12]]]]),
]

# Types that hold every golden value (up to 504) exactly.
GOLDEN_DTYPES = [np.float32, np.float16, np.float64, np.int16, np.uint16, np.int32, np.uint32,
                 np.int64, np.uint64]


GOLDEN = [(PROD,) + case for case in SEED_PRODUCT] + [(SUM,) + case for case in SPEC_SUMMATION]


@pytest.mark.parametrize("dtype", GOLDEN_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op, axis, direction, exclusive, expected", GOLDEN,
                         ids=[f"{c[0]}-axis{c[1]}-dir{c[2]}-excl{int(c[3])}" for c in GOLDEN])
def test_seed_page_and_spec_examples(dtype, op, axis, direction, exclusive, expected):
    x = np.array(SEED_INPUT, dtype=dtype)
    got = scan(op, x, axis, reverse=direction == 1, exclusive=exclusive)
    assert_bits_equal(got, np.array(expected, dtype=dtype))
    assert_bits_equal(x, np.array(SEED_INPUT, dtype=dtype))  # the input is only read


def test_golden_examples_in_place():
    for axis, direction, exclusive, expected in SPEC_SUMMATION:
        x = np.array(SEED_INPUT, dtype=np.float32)
        result = dml.cumulative_summation(x, axis=axis, axis_direction=direction,
                                          has_exclusive_sum=exclusive, out=x)
        assert result is x
        assert_bits_equal(x, np.array(expected, dtype=np.float32))
    for axis, direction, exclusive, expected in SEED_PRODUCT:
        x = np.array(SEED_INPUT, dtype=np.int32)
        dml.cumulative_product(x, axis=axis, axis_direction=direction,
                               has_exclusive_product=exclusive, out=x)
        assert_bits_equal(x, np.array(expected, dtype=np.int32))


# --- random layouts against the reference ----------------------------------------------------

def random_shape(rng, limit=240):
    rank = int(rng.integers(1, 9))
    shape = [int(rng.choice([1, 1, 2, 3, 4, 5, 6])) for _ in range(rank)]
    axis = int(rng.integers(rank))
    if rng.random() < 0.4:
        shape[axis] = int(rng.integers(1, 13))  # longer walks
    while np.prod(shape) > limit:
        candidates = [d for d in range(rank) if shape[d] > 1 and (d != axis or len(
            [s for s in shape if s > 1]) == 1)]
        shape[int(rng.choice(candidates))] -= 1
    return tuple(shape), axis


def random_values(rng, dtype, shape, op):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if op == PROD and rng.random() < 0.7:
            # small factors keep products from collapsing to 0 after a few even steps
            low, high = (-3, 3) if dtype.kind == "i" else (0, 3)
            return rng.integers(low, high, size=shape, endpoint=True).astype(dtype)
        return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
    if op == SUM:
        values = rng.standard_normal(shape) * 10.0 ** rng.integers(-2, 3)
    else:
        values = rng.uniform(0.5, 1.7, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    values = values.astype(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], dtype=dtype)
    where = rng.random(shape) < 0.03
    values[where] = rng.choice(specials, size=int(where.sum()))
    return values


def strided_view(rng, base_fill, shape):
    """A view of ``shape`` into a larger array (returned too): random memory order, steps
    (negative included) and offsets. ``base_fill(base_shape)`` makes the base array."""
    ndim = len(shape)
    order = rng.permutation(ndim)  # memory dim i holds logical dim order[i]
    steps = [int(rng.choice([1, 1, 2, 3, -1, -2])) for _ in range(ndim)]
    offsets = [int(rng.integers(0, 2)) for _ in range(ndim)]
    base_shape = tuple(shape[d] * abs(steps[d]) + offsets[d] for d in order)
    base = base_fill(base_shape)
    view = base
    for i, d in enumerate(order):
        index = [slice(None)] * ndim
        index[i] = slice(offsets[d], offsets[d] + shape[d] * abs(steps[d]), abs(steps[d]))
        view = view[tuple(index)]
        if steps[d] < 0:
            index[i] = slice(None, None, -1)
            view = view[tuple(index)]
    view = view.transpose(np.argsort(order))
    assert view.shape == shape
    return view, base


def random_input(rng, dtype, shape, op, writable=False):
    kind = rng.choice(["contiguous", "strided", "broadcast"] if not writable else
                      ["contiguous", "strided"])
    if kind == "contiguous":
        return random_values(rng, dtype, shape, op)
    if kind == "strided":
        view, _ = strided_view(rng, lambda s: random_values(rng, dtype, s, op), shape)
        return view
    # zero strides on some dims, through broadcast_to of a smaller (strided) view
    small = tuple(1 if rng.random() < 0.5 else n for n in shape)
    view, _ = strided_view(rng, lambda s: random_values(rng, dtype, s, op), small)
    return np.broadcast_to(view, shape)


def _sentinel_array(shape, dtype):
    raw = np.full(int(np.prod(shape)) * np.dtype(dtype).itemsize, SENTINEL_BYTE, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def sentinel_scalar(dtype):
    return np.frombuffer(bytes([SENTINEL_BYTE]) * np.dtype(dtype).itemsize, dtype=dtype)[0]


def check_one_case(rng, dtype, op, reverse, exclusive, shape, axis):
    mode = rng.choice(["new", "out", "in_place"])
    if mode == "in_place":
        x = random_input(rng, dtype, shape, op, writable=True)
        original = x.copy()
        expected = reference_scan(original, axis, op, reverse, exclusive)
        result = scan(op, x, axis, reverse, exclusive, out=x)
        assert result is x
        assert_bits_equal(x, expected)
        return
    x = random_input(rng, dtype, shape, op)
    original = x.copy()
    expected = reference_scan(original, axis, op, reverse, exclusive)
    if mode == "new":
        got = scan(op, x, axis, reverse, exclusive)
        assert got.flags.c_contiguous
        assert_bits_equal(got, expected)
    else:
        out, base = strided_view(rng, lambda s: _sentinel_array(s, dtype), shape)
        result = scan(op, x, axis, reverse, exclusive, out=out)
        assert result is out
        assert_bits_equal(out, expected)
        out[...] = sentinel_scalar(dtype)  # then every byte of the base must be the sentinel
        assert np.all(base.reshape(-1).view(np.uint8) == SENTINEL_BYTE), "wrote outside out"
    assert_bits_equal(x, original)


@pytest.mark.parametrize("op", [SUM, PROD])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_random_layouts_match_reference(dtype, op):
    seed = zlib.crc32(f"{np.dtype(dtype).name}-{op}".encode())
    rng = np.random.default_rng(seed)
    for reverse, exclusive in itertools.product([False, True], repeat=2):
        for _ in range(20):
            shape, axis = random_shape(rng)
            check_one_case(rng, dtype, op, reverse, exclusive, shape, axis)


# --- both strategies, in place, block edges --------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32, np.uint8,
                                   np.int64])
@pytest.mark.parametrize("op", [SUM, PROD])
def test_both_strategies_in_place(dtype, op):
    rng = np.random.default_rng(zlib.crc32(f"inplace-{np.dtype(dtype).name}-{op}".encode()))
    layouts = {
        # C order (6,5,4): axis 2 is innermost -> line; axes 0 and 1 -> outer
        "c": lambda a: a,
        # Fortran order: axis 0 is innermost -> line; axes 1 and 2 -> outer
        "f": lambda a: np.asfortranarray(a),
        # negative and doubled steps over a bigger block
        "strided": lambda a: _embed(a, (slice(None, None, -1), slice(None, None, 2),
                                        slice(None, None, -3))),
    }
    for (name, layout), axis, reverse, exclusive in itertools.product(
            layouts.items(), range(3), [False, True], [False, True]):
        x = layout(random_values(rng, dtype, (6, 5, 4), op))
        original = x.copy()
        scan(op, x, axis, reverse, exclusive, out=x)
        assert_bits_equal(x, reference_scan(original, axis, op, reverse, exclusive))


def _embed(values, index):
    """``values`` placed in a larger array so that ``big[index]`` is that view."""
    big_shape = tuple(n * abs(s.step) for n, s in zip(values.shape, index))
    big = np.zeros(big_shape, dtype=values.dtype)
    view = big[index]
    view[...] = values
    return view


@pytest.mark.parametrize("width", [255, 256, 257, 600])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int16])
def test_outer_rows_wider_than_one_block(width, dtype):
    rng = np.random.default_rng(width)
    x = random_values(rng, dtype, (7, width), SUM)
    for reverse, exclusive in itertools.product([False, True], repeat=2):
        expected = reference_scan(x, 0, SUM, reverse, exclusive)
        assert_bits_equal(scan(SUM, x, 0, reverse, exclusive), expected)
        # strided columns (the fallback row loop) and in place
        big = np.zeros((7, 2 * width), dtype=dtype)
        view = big[:, ::-2]
        view[...] = x
        scan(SUM, view, 0, reverse, exclusive, out=view)
        assert_bits_equal(view, expected)
        assert np.all(as_bits(big[:, -2::-2]) == 0)


# --- arithmetic edges --------------------------------------------------------------------------

# (dtype, op, input, expected inclusive increasing), worked by hand modulo 2^bits.
WRAP_CASES = [
    (np.int8, SUM, [127, 1, -1], [127, -128, 127]),
    (np.int8, SUM, [-128, -1], [-128, 127]),
    (np.uint8, SUM, [255, 1, 255], [255, 0, 255]),
    (np.int16, SUM, [32767, 1], [32767, -32768]),
    (np.uint16, SUM, [65535, 2], [65535, 1]),
    (np.int32, SUM, [2**31 - 1, 1], [2**31 - 1, -2**31]),
    (np.uint32, SUM, [2**32 - 1, 3], [2**32 - 1, 2]),
    (np.int64, SUM, [2**63 - 1, 1], [2**63 - 1, -2**63]),
    (np.int64, SUM, [-2**63, -1], [-2**63, 2**63 - 1]),
    (np.uint64, SUM, [2**64 - 1, 1], [2**64 - 1, 0]),
    (np.int8, PROD, [16, 8, 2], [16, -128, 0]),
    (np.int8, PROD, [-128, -1], [-128, -128]),
    (np.int8, PROD, [127, 127], [127, 1]),  # 16129 = 63 * 256 + 1
    (np.uint8, PROD, [16, 16], [16, 0]),
    (np.uint8, PROD, [255, 255], [255, 1]),  # 65025 = 254 * 256 + 1
    (np.int16, PROD, [-32768, -1], [-32768, -32768]),
    (np.int16, PROD, [181, 182], [181, 32942 - 65536]),  # 32942 does not fit
    (np.uint16, PROD, [65535, 65535], [65535, 1]),  # overflows int in C if not widened
    (np.uint16, PROD, [256, 256, 7], [256, 0, 0]),
    (np.int32, PROD, [65536, 65536], [65536, 0]),
    (np.int32, PROD, [-2**31, -1], [-2**31, -2**31]),
    (np.int32, PROD, [46341, 46341], [46341, 2147488281 - 2**32]),
    (np.uint32, PROD, [2**32 - 1, 2**32 - 1], [2**32 - 1, 1]),
    (np.int64, PROD, [2**32, 2**32], [2**32, 0]),
    (np.int64, PROD, [-2**63, -1], [-2**63, -2**63]),
    (np.int64, PROD, [3037000500, 3037000500], [3037000500, 9223372037000250000 - 2**64]),
    (np.uint64, PROD, [2**64 - 1, 2**64 - 1], [2**64 - 1, 1]),
    (np.uint64, PROD, [2**63, 2], [2**63, 0]),
]


@pytest.mark.parametrize("dtype, op, values, expected", WRAP_CASES,
                         ids=[f"{np.dtype(c[0]).name}-{c[1]}-{i}"
                              for i, c in enumerate(WRAP_CASES)])
def test_integer_wrap_at_type_boundaries(dtype, op, values, expected):
    x = np.array(values, dtype=dtype)
    assert_bits_equal(scan(op, x, 0), np.array(expected, dtype=dtype))
    # the same walk backwards, and down a column (outer strategy)
    assert_bits_equal(scan(op, x[::-1].copy(), 0, reverse=True),
                      np.array(expected[::-1], dtype=dtype))
    column = np.repeat(x[:, None], 3, axis=1)
    assert_bits_equal(scan(op, column, 0),
                      np.repeat(np.array(expected, dtype=dtype)[:, None], 3, axis=1))


def test_every_integer_type_wraps_in_both_ops():
    covered = {(np.dtype(d), op) for d, op, _, _ in WRAP_CASES}
    assert covered == {(np.dtype(d), op) for d in INT_DTYPES for op in (SUM, PROD)}


def _naive_float16_cumsum(values):
    """Running sums with a FLOAT16 accumulator: what dmlcpu must not do."""
    return np.array(list(itertools.accumulate(list(values))), dtype=np.float16)


@pytest.mark.parametrize("values", [
    np.ones(3000, dtype=np.float16),                 # FLOAT16 alone sticks at 2048
    np.full(1000, 0.1, dtype=np.float16),            # FLOAT16 alone drifts from 0.1 * k
])
def test_float16_accumulates_in_float32(values):
    expected = np.cumsum(values.astype(np.float32)).astype(np.float16)  # add.accumulate: in order
    naive = _naive_float16_cumsum(values)
    assert not np.array_equal(as_bits(expected), as_bits(naive)), "the case must tell them apart"
    assert_bits_equal(dml.cumulative_summation(values, axis=0), expected)  # line strategy
    column = np.repeat(values[:, None], 2, axis=1)                         # outer strategy
    assert_bits_equal(dml.cumulative_summation(column, axis=0),
                      np.repeat(expected[:, None], 2, axis=1))
    in_place = column[::-1].copy()
    dml.cumulative_summation(in_place, axis=0, axis_direction=AxisDirection.DECREASING,
                             out=in_place)
    assert_bits_equal(in_place, np.repeat(expected[::-1, None], 2, axis=1))


def test_float16_ones_round_to_even_past_2048():
    got = dml.cumulative_summation(np.ones(2054, dtype=np.float16), axis=0)
    # 2049 and 2051 are ties: to the even neighbours 2048 and 2052
    assert got[2046:].tolist() == [2047, 2048, 2048, 2050, 2052, 2052, 2052, 2054]
    excl = dml.cumulative_summation(np.ones(2054, dtype=np.float16), axis=0,
                                    has_exclusive_sum=True)
    assert excl[:2].tolist() == [0, 1]
    assert excl[2047:].tolist() == [2047, 2048, 2048, 2050, 2052, 2052, 2052]


def test_float16_written_infinity_does_not_poison_the_float32_total():
    x = np.array([60000, 60000, -60000], dtype=np.float16)
    # FLOAT32 totals 60000, 120000, 60000: the middle one rounds to inf, the last is finite
    got = dml.cumulative_summation(x, axis=0)
    assert got.tolist() == [60000.0, np.inf, 60000.0]


def test_float16_every_bit_pattern_round_trips_and_rounds():
    every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    # a product over an axis of length 1 writes f16(1.0f * f32(x)): x itself, denormals included
    got = dml.cumulative_product(every.reshape(1, -1), axis=0)
    assert_bits_equal(got, every.reshape(1, -1))
    # a second row rounds a FLOAT32 total: products of two halves are exact in FLOAT32, so this
    # checks round-to-nearest-even into denormals, normals and overflow to infinity
    partner = np.random.default_rng(16).permutation(every)
    pair = np.stack([every, partner])
    with np.errstate(all="ignore"):
        wide = pair.astype(np.float32)
        expected_product = (wide[0] * wide[1]).astype(np.float16)
        expected_sum = (wide[0] + wide[1]).astype(np.float16)
    assert_bits_equal(dml.cumulative_product(pair, axis=0)[1], expected_product)
    assert_bits_equal(dml.cumulative_summation(pair, axis=0)[1], expected_sum)
    assert_bits_equal(dml.cumulative_summation(pair.T.copy(), axis=1)[:, 1], expected_sum)


NAN = float("nan")
INF = float("inf")

# (op, input, reverse, exclusive, expected)
SPECIAL_CASES = [
    (SUM, [1, NAN, 2], False, False, [1, NAN, NAN]),
    (SUM, [1, NAN, 2], True, False, [NAN, NAN, 2]),
    (SUM, [NAN, 1, 2], False, True, [0, NAN, NAN]),
    (SUM, [1, 2, NAN], False, True, [0, 1, 3]),       # the last input is never used
    (SUM, [INF, 1, -INF], False, False, [INF, INF, NAN]),
    (SUM, [-INF, 5], False, False, [-INF, -INF]),
    (PROD, [2, INF, 0], False, False, [2, INF, NAN]),
    (PROD, [0, INF], True, False, [NAN, INF]),
    (PROD, [NAN, 3], True, True, [3, 1]),
    (PROD, [-1, INF, -2], False, False, [-1, -INF, INF]),
]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op, values, reverse, exclusive, expected", SPECIAL_CASES)
def test_nan_and_infinity_propagate(dtype, op, values, reverse, exclusive, expected):
    x = np.array(values, dtype=dtype)
    got = scan(op, x, 0, reverse, exclusive)
    np.testing.assert_array_equal(got, np.array(expected, dtype=dtype))  # NaN == NaN here
    assert_bits_equal(got, reference_scan(x, 0, op, reverse, exclusive))
    column = np.repeat(x[:, None], 3, axis=1)
    got = scan(op, column, 0, reverse, exclusive)
    np.testing.assert_array_equal(got, np.repeat(np.array(expected, dtype=dtype)[:, None], 3, 1))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: np.dtype(d).name)
def test_signed_zeros(dtype):
    x = np.array([-0.0, -0.0, 0.0, -0.0], dtype=dtype)
    # a running total of -0.0 alone is -0.0; -0.0 + +0.0 is +0.0
    assert_bits_equal(dml.cumulative_summation(x, axis=0),
                      np.array([-0.0, -0.0, 0.0, 0.0], dtype=dtype))
    # exclusive writes +0.0 first, then the totals so far
    assert_bits_equal(dml.cumulative_summation(x, axis=0, has_exclusive_sum=True),
                      np.array([0.0, -0.0, -0.0, 0.0], dtype=dtype))
    assert_bits_equal(dml.cumulative_product(np.array([-0.0, 5.0], dtype=dtype), axis=0),
                      np.array([-0.0, -0.0], dtype=dtype))
    column = np.repeat(x[:, None], 2, axis=1)
    assert_bits_equal(dml.cumulative_summation(column, axis=0),
                      np.repeat(np.array([-0.0, -0.0, 0.0, 0.0], dtype=dtype)[:, None], 2, 1))


# --- sizes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_one_dimensional_axis_of_a_million(dtype):
    rng = np.random.default_rng(1_000_000)
    x = random_values(rng, dtype, (1_000_000,), SUM)
    assert_bits_equal(dml.cumulative_summation(x, axis=0), reference_scan(x, 0, SUM))
    expected = reference_scan(x, 0, SUM, reverse=True, exclusive=True)
    dml.cumulative_summation(x, axis=0, axis_direction=AxisDirection.DECREASING,
                             has_exclusive_sum=True, out=x)
    assert_bits_equal(x, expected)


@pytest.mark.parametrize("width", [1, 2, 3])
def test_long_axis_narrow_rows(width):
    rng = np.random.default_rng(width)
    x = random_values(rng, np.float32, (100_000, width), SUM)
    assert_bits_equal(dml.cumulative_summation(x, axis=0), reference_scan(x, 0, SUM))
    y = random_values(rng, np.int32, (100_000, width), PROD)
    expected = reference_scan(y, 0, PROD, reverse=True, exclusive=True)
    dml.cumulative_product(y, axis=0, axis_direction=AxisDirection.DECREASING,
                           has_exclusive_product=True, out=y)
    assert_bits_equal(y, expected)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4), (2, 0, 3)])
def test_zero_size_gives_empty_results(dtype, shape):
    x = np.zeros(shape, dtype=dtype)
    for axis, op in itertools.product(range(len(shape)), (SUM, PROD)):
        got = scan(op, x, axis, reverse=True, exclusive=True)
        assert got.shape == shape and got.dtype == np.dtype(dtype)
        out = np.empty(shape, dtype=dtype)
        assert scan(op, x, axis, out=out) is out


def test_axis_of_length_one_copies_or_writes_the_identity():
    x = np.arange(-6, 6, dtype=np.int16).reshape(3, 1, 4)
    assert_bits_equal(dml.cumulative_product(x, axis=1), x)
    assert_bits_equal(dml.cumulative_product(x, axis=1, has_exclusive_product=True),
                      np.ones_like(x))
    assert_bits_equal(dml.cumulative_summation(x, axis=1, has_exclusive_sum=True),
                      np.zeros_like(x))


# --- the C entry point refuses what it cannot run ---------------------------------------------

@pytest.mark.parametrize("dtype_value, axis, op", [(0, 0, 0), (12, 0, 0), (1, 2, 0), (1, -1, 0),
                                                   (1, 0, 2)])
def test_core_rejects_bad_scan_arguments(dtype_value, axis, op):
    layout_in = (0, 0, (2, 3), (12, 4))
    layout_out = (1, 0, (2, 3), (12, 4))
    plan = Plan(1, 1, [("scan", layout_out, layout_in, 4, dtype_value, axis, op, 0, 0)])
    out = np.full((2, 3), 7, dtype=np.float32)
    with pytest.raises(CoreError):
        plan.run([np.ones((2, 3), dtype=np.float32)], [out])
    assert np.all(out == 7)
