"""Results that never depend on the streaming threshold or on any way the policy picks: every
path forced through the tuning (policy.c) holds the same bits. The policy's decisions
themselves are tables in test_policy_decisions.py."""
import numpy as np
import pytest

import dmlcpu
from dmlcpu import _core

import reference
from conftest import assert_same_bits

MiB = 1 << 20


class tuned:
    """Tuning values set for a block (between calls), and the thread count; restored after."""

    def __init__(self, threads=None, **values):
        self.values, self.threads = values, threads

    def __enter__(self):
        self.before_threads = dmlcpu.get_num_threads()
        self.before = {name: _core._set_tune(name, v) for name, v in self.values.items()}
        if self.threads is not None:
            dmlcpu.set_num_threads(self.threads)
        return self

    def __exit__(self, *exc):
        for name, v in self.before.items():
            _core._set_tune(name, v)
        dmlcpu.set_num_threads(self.before_threads)


def streaming(threshold):
    return {"stream_threshold": threshold, "stream_thread_bytes": threshold}


@pytest.mark.parametrize("threshold", [0, 1 << 62])
@pytest.mark.parametrize("threads", [1, 2])
def test_results_do_not_depend_on_the_threshold(threshold, threads, isa):
    """Every operator that streams (copy, group, scan, TILE), forced to stream or never to."""
    with tuned(threads, **streaming(threshold)):
        rng = np.random.default_rng(3)
        x = rng.integers(-100, 100, size=(33, 70, 130)).astype(np.float32)
        x1 = x[:, 1:, :]  # not line-aligned
        parts = dmlcpu.split(x1, axis=1, output_axis_sizes=[7, 0, 62])
        for got, want in zip(parts, reference.split(x1, 1, [7, 0, 62])):
            assert_same_bits(got, want, "split")
        assert_same_bits(dmlcpu.join([x, x1], axis=1), reference.join([x, x1], 1), "join")
        assert_same_bits(dmlcpu.slice(x, offsets=[0, 3, 1], sizes=[33, 60, 120],
                                      strides=[1, 1, 1]), x[:, 3:63, 1:121], "slice")
        assert_same_bits(dmlcpu.tile(x[:3, :5], repeats=[40, 3, 2]),
                         reference.tile(x[:3, :5], [40, 3, 2]), "tile")
        for axis in (0, 2):
            assert_same_bits(dmlcpu.cumulative_summation(x, axis=axis),
                             reference.cumulative_summation(x, axis), "cumsum")
        # runs of 2 MiB, longer than L2: by vectors where they do not stream (copy_nd.c)
        big = rng.integers(-100, 100, size=(3, 600, 1024)).astype(np.float32)
        assert_same_bits(dmlcpu.slice(big, offsets=[0, 50, 0], sizes=[3, 500, 1024],
                                      strides=[1, 1, 1]), big[:, 50:550], "long runs")


def _rewritten_outputs(seed):
    """Each op is called on one input, then at once on another differing in every element, into
    the same outputs: the second call must replace every byte, whatever way the tuning picks."""
    rng = np.random.default_rng(seed)
    first = rng.integers(-100, 100, size=(33, 70, 130)).astype(np.float32)
    ops = [
        (lambda x, out: dmlcpu.split(x[:, 1:], axis=1, output_axis_sizes=[7, 0, 62],
                                     outputs=out),
         lambda x: reference.split(x[:, 1:], 1, [7, 0, 62])),  # not line-aligned
        (lambda x, out: dmlcpu.join([x, x[:, 1:]], axis=1, out=out[0]),
         lambda x: [reference.join([x, x[:, 1:]], 1)]),
        (lambda x, out: dmlcpu.slice(x, offsets=[0, 3, 1], sizes=[33, 60, 120],
                                     strides=[1, 1, 1], out=out[0]),
         lambda x: [x[:, 3:63, 1:121]]),
        (lambda x, out: dmlcpu.tile(x[:3, :5], repeats=[40, 3, 2], out=out[0]),
         lambda x: [reference.tile(x[:3, :5], [40, 3, 2])]),
        (lambda x, out: dmlcpu.tile(x[:2], repeats=[3, 2, 1], out=out[0]),  # one packed run
         lambda x: [reference.tile(x[:2], [3, 2, 1])]),
    ]
    for call, expected_of in ops:
        outs = [np.empty_like(e) for e in expected_of(first)]
        for x in (first, first + 1, first + 2):
            call(first, outs)
            call(x, outs)  # right after: a rewrite
            for got, want in zip(outs, expected_of(x)):
                assert_same_bits(got, want, "rewritten output")




@pytest.mark.parametrize("threshold", [0, 1 << 62])
@pytest.mark.parametrize("threads", [1, 2])
def test_outputs_rewritten_at_once_hold_the_same_bits(threshold, threads, isa):
    with tuned(threads, **streaming(threshold)):
        _rewritten_outputs(threads)


def test_outputs_rewritten_from_many_threads_at_once():
    """Calls from several Python threads at once, streamed: never a wrong result."""
    import threading
    errors = []

    def work():
        try:
            for seed in range(5):
                _rewritten_outputs(seed)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    with tuned(None, **streaming(0)):
        workers = [threading.Thread(target=work) for _ in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    assert not errors, errors[0]


def _tile_into(x, repeats, out):
    """TILE x into out three times (the second and third rewrite it), each checked."""
    for step in range(3):
        dmlcpu.tile(x + step, repeats=repeats, out=out)
        assert_same_bits(out, reference.tile(x + step, repeats), "tile")


def _unaligned(shape, dtype):
    """An output 16 bytes into its buffer (NumPy's large arrays start 16 bytes into a page)."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    return np.empty(nbytes + 64, np.uint8)[16:16 + nbytes].view(dtype).reshape(shape)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("limit", [0, 1 << 62])
def test_tile_rows_streamed_or_by_the_string_copy_hold_the_same_bits(threads, limit, isa):
    """Every copy would stream; with the string copy unbounded, TILE straight from rows of 2 KiB
    and more takes it where a kernel has it (rows_string), else rows stream (rows_stream). Rows
    not whole lines, outputs not line-aligned."""
    rng = np.random.default_rng(threads)
    with tuned(threads, string_copy_bytes=limit, **streaming(0)):
        for dtype, row in ((np.float16, 1024), (np.float32, 1024), (np.float32, 517),
                           (np.float64, 1100), (np.int8, 1024)):
            x = rng.integers(-100, 100, size=(6, 1, row)).astype(dtype)
            _tile_into(x, [1, 9, 1], _unaligned((6, 9, row), dtype))


@pytest.mark.parametrize("threads", [1, 2])
def test_tile_rows_beyond_l2_unstreamed_hold_the_same_bits(threads, isa):
    """Streaming off, the string copy unbounded, L2 small: rows of 2 KiB and more by the string
    copy, shorter ones by the aligned walk (rows_string, rows_aligned)."""
    rng = np.random.default_rng(30 + threads)
    with tuned(threads, string_copy_bytes=1 << 62, l2_bytes=64 << 10, **streaming(1 << 62)):
        for dtype, rows, row, repeats in ((np.float32, 8, 1024, 40), (np.float64, 3, 1100, 50),
                                          (np.float16, 6, 1030, 9), (np.int8, 16, 1024, 80)):
            x = rng.integers(-100, 100, size=(rows, 1, row)).astype(dtype)
            _tile_into(x, [1, repeats, 1], _unaligned((rows, repeats, row), dtype))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("limit", [0, 1 << 62])
def test_tile_in_slabs_or_blocks_holds_the_same_bits(threads, limit, isa):
    """Every copy would stream: a TILE in blocks (input runs under 1 KiB) goes in slabs on one
    thread where the string copy is unbounded and its kernels are there (x86), else in streamed
    blocks. The outermost repeated dim first or inner, several blocks in the first tile, outputs
    16 bytes into their buffers."""
    rng = np.random.default_rng(20 + threads)
    with tuned(threads, string_copy_bytes=limit, **streaming(0)):
        for dtype, shape, repeats in ((np.float32, (1, 8, 16, 16), (8, 1, 4, 4)),
                                      (np.int8, (1, 64, 32, 32), (3, 1, 4, 4)),
                                      (np.float16, (2, 3, 40, 24), (1, 5, 3, 8)),
                                      (np.float64, (3, 2, 8, 50), (1, 1, 7, 9))):
            x = rng.integers(-100, 100, size=shape).astype(dtype)
            out_shape = tuple(s * r for s, r in zip(shape, repeats))
            _tile_into(x, list(repeats), _unaligned(out_shape, dtype))
