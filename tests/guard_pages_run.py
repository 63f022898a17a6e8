"""Runs every operator on buffers flush against PROT_NONE pages, in a process of its own.

A read or write outside any input or output faults and kills this process; test_guard_pages.py
runs it as a subprocess and reports such a death as a failure. Results are also checked against
NumPy so a guarded run is a correct run. Prints the number of guarded calls made.
"""
import itertools
import sys

import numpy as np

import dmlcpu as dml
from guarded import guarded_array

WIDTHS = [np.uint8, np.float16, np.float32, np.float64]  # 1, 2, 4 and 8-byte kernels
SCAN_TYPES = [np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float32, np.float64]
LENGTHS = [1, 7, 33, 130]  # odd lengths reach every vector tail
calls = 0


def guarded_copy(values, side, step=1):
    """values in a guarded buffer, every stride the packed one times step (gaps, or reversed)."""
    values = np.asarray(values)
    strides = tuple(s * step for s in np.empty(values.shape, values.dtype).strides)
    out = guarded_array(values.shape, values.dtype, strides, side)
    out[...] = values
    return out


def guarded_empty(shape, dtype, side, step=1):
    return guarded_copy(np.zeros(shape, dtype), side, step)


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def check(result, expected, what):
    global calls
    calls += 1
    if not same_bits(result, expected):
        print(f"WRONG RESULT: {what}", flush=True)
        sys.exit(3)


def random_values(shape, dtype, rng):
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize,
                       dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def copy_cases(rng):
    for dtype, n, side, in_step, out_step in itertools.product(
            WIDTHS, LENGTHS, ("front", "back"), (1, 2, -1), (1, 3)):
        values = random_values((3, n), dtype, rng)
        x = guarded_copy(values, side, in_step)
        what = f"{np.dtype(dtype).name} n={n} side={side} in_step={in_step} out_step={out_step}"
        # SPLIT along both axes
        outs = [guarded_empty((3, k), dtype, side, out_step) for k in (n // 2, n - n // 2)]
        dml.split(x, axis=1, output_axis_sizes=[n // 2, n - n // 2], outputs=outs)
        check(outs[0], values[:, :n // 2], "split " + what)
        check(outs[1], values[:, n // 2:], "split " + what)
        # JOIN along the inner axis
        out = guarded_empty((3, 2 * n), dtype, side, out_step)
        dml.join([x, x], axis=1, out=out)
        check(out, np.concatenate([values, values], axis=1), "join " + what)
        # SLICE: gather (stride 2), broadcast (stride 0)
        half = (n + 1) // 2
        out = guarded_empty((3, half), dtype, side, out_step)
        dml.slice(x, offsets=[0, 0], sizes=[3, half], strides=[1, 2], out=out)
        check(out, values[:, ::2], "slice stride 2 " + what)
        out = guarded_empty((3, n), dtype, side, out_step)
        dml.slice(x, offsets=[0, n - 1], sizes=[3, n], strides=[1, 0], out=out)
        check(out, np.repeat(values[:, n - 1:], n, axis=1), "slice stride 0 " + what)
        # SLICE1 walking backwards through the whole input
        out = guarded_empty((3, n), dtype, side, out_step)
        dml.slice1(x, input_window_offsets=[0, 0], input_window_sizes=[3, n],
                   input_window_strides=[-1, -1], out=out)
        check(out, values[::-1, ::-1], "slice1 reversed " + what)
        # TILE
        out = guarded_empty((6, 3 * n), dtype, side, out_step)
        dml.tile(x, repeats=[2, 3], out=out)
        check(out, np.tile(values, (2, 3)), "tile " + what)


def scan_reference(values, axis, product, reverse, exclusive):
    """A plain loop in walk order, in the type's own arithmetic (float16 through float32)."""
    v = np.moveaxis(values, axis, 0)
    if reverse:
        v = v[::-1]
    acc_type = np.float32 if v.dtype == np.float16 else v.dtype
    acc = np.full(v.shape[1:], 1 if product else 0, dtype=acc_type)
    out = np.empty_like(v)
    with np.errstate(all="ignore"):
        for k in range(v.shape[0]):
            if exclusive:
                out[k] = acc.astype(v.dtype)
            acc = (acc * v[k].astype(acc_type)) if product else (acc + v[k].astype(acc_type))
            acc = acc.astype(acc_type)
            if not exclusive:
                out[k] = acc.astype(v.dtype)
    if reverse:
        out = out[::-1]
    return np.moveaxis(out, 0, axis)


def scan_cases(rng):
    for dtype, n, side, axis, product, reverse, exclusive, in_place in itertools.product(
            SCAN_TYPES, (1, 7, 33), ("front", "back"), (0, 1), (False, True), (False, True),
            (False, True), (False, True)):
        if np.issubdtype(dtype, np.floating):
            values = rng.uniform(0.5, 1.5, size=(5, n)).astype(dtype)
        else:
            values = random_values((5, n), dtype, rng)
        x = guarded_copy(values, side)
        expected = scan_reference(values, axis, product, reverse, exclusive)
        out = x if in_place else guarded_empty((5, n), dtype, side)
        op = dml.cumulative_product if product else dml.cumulative_summation
        flag = "has_exclusive_product" if product else "has_exclusive_sum"
        op(x, axis=axis, axis_direction=int(reverse), out=out, **{flag: exclusive})
        check(out, expected, f"{op.__name__} {np.dtype(dtype).name} n={n} side={side} "
                             f"axis={axis} reverse={reverse} exclusive={exclusive} "
                             f"in_place={in_place}")


def main():
    rng = np.random.default_rng(20261121)
    copy_cases(rng)
    scan_cases(rng)
    print(f"guarded calls: {calls}")


if __name__ == "__main__":
    main()
