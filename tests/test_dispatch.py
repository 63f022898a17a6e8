"""Runtime ISA dispatch: every copy kernel under every ISA this machine has, bit-exact against a
NumPy reference (so also against the scalar kernels), plus the environment switches and
show_config(). Kernels are reached through one-step plans whose layouts pick each slot."""
import io
import json
import os
import platform
import subprocess
import sys

import numpy as np
import pytest

import dmlcpu
from dmlcpu import _core
from dmlcpu._core import Plan

from conftest import usable_isas

USABLE = usable_isas()
WIDTHS = (1, 2, 4, 8)
LENGTHS = (1, 2, 7, 15, 16, 17, 31, 33, 64, 65, 127, 300, 1031)
# subprocesses import the dmlcpu this test imported (installed, or src/ in a checkout)
SRC = os.path.dirname(os.path.dirname(dmlcpu.__file__))


def strided(buf, offset, n, stride, e):
    """(n, e) bytes view of buf: element i at buf[offset + i * stride]."""
    base = buf[offset:]
    return np.lib.stride_tricks.as_strided(base, shape=(n, e), strides=(stride, 1))


def buffer_for(n, stride, e, pad, rng):
    """Random bytes big enough for n elements at stride, pad bytes of slack each side; returns
    the buffer and the offset of element 0."""
    span = abs(stride) * (n - 1) + e
    buf = rng.integers(0, 256, size=span + 2 * pad, dtype=np.uint8)
    offset = pad + (abs(stride) * (n - 1) if stride < 0 else 0)
    return buf, offset


def check_copy(n, e, ds, ss, dst_mis, src_mis, rng):
    src, so = buffer_for(n, ss, e, 16 + src_mis, rng)
    dst, do = buffer_for(n, ds, e, 16 + dst_mis, rng)
    expected = dst.copy()
    strided(expected, do, n, ds, e)[...] = strided(src, so, n, ss, e)
    plan = Plan(1, 1, [("copy", (1, do, [n], [ds]), (0, so, [n], [ss]), e)])
    plan.run([src], [dst])
    assert np.array_equal(dst, expected), (n, e, ds, ss, dst_mis, src_mis)


@pytest.mark.parametrize("e", WIDTHS)
def test_gather_every_small_stride(isa, e):
    rng = np.random.default_rng(e)
    for n in LENGTHS:
        for k in range(2, 10):
            for src_mis in (0, 1, 3):
                check_copy(n, e, e, k * e, src_mis, src_mis, rng)
        check_copy(n, e, e, -3 * e, 1, 0, rng)    # negative source stride
        check_copy(n, e, e, 3 * e + 1, 0, 0, rng)  # byte stride not a multiple of the width
        check_copy(n, e, e, 1000 * e, 0, 5, rng)   # large stride


@pytest.mark.parametrize("threads", [1, 3])
def test_gathers_with_long_source_stretches(isa, threads):
    # each run reads 512 bytes of source or more, so the driver prefetches the next run's
    # stretch while it copies one (copy_nd.c), except in the float64 case, whose elements are 32
    # bytes apart; on 3 threads the first three cases are cut into chunks of rows, the last into
    # pieces of its two rows
    cases = [(np.int8, (3, 40, 1024), [(0, 3, 1), (1, 40, 2), (3, 900, 3)]),
             (np.float32, (32, 64, 1024), [(0, 32, 1), (0, 64, 2), (1, 1001, 2)]),
             (np.float64, (5, 7, 300), [(4, -1, -1), (0, 7, 3), (0, 300, 4)]),
             (np.float32, (2, 1 << 19), [(0, 2, 1), (2, 1 << 19, 3)])]
    rng = np.random.default_rng(threads)
    old = dmlcpu.get_num_threads()
    dmlcpu.set_num_threads(threads)
    try:
        for dtype, shape, ranges in cases:
            x = rng.integers(-100, 100, size=shape).astype(dtype)
            want = x[tuple(slice(a, None if b < 0 else b, k) for a, b, k in ranges)]
            if all(k > 0 for _, _, k in ranges):
                got = dmlcpu.slice(x, offsets=[a for a, _, _ in ranges], sizes=list(want.shape),
                                   strides=[k for _, _, k in ranges])
            else:
                got = dmlcpu.slice1(x, input_window_offsets=[min(a, b + 1) for a, b, _ in ranges],
                                    input_window_sizes=[abs(b - a) for a, b, _ in ranges],
                                    input_window_strides=[k for _, _, k in ranges])
            assert got.shape == want.shape and got.tobytes() == want.tobytes(), (dtype, shape)
    finally:
        dmlcpu.set_num_threads(old)


@pytest.mark.parametrize("e", WIDTHS)
def test_contiguous_scatter_strided_broadcast(isa, e):
    rng = np.random.default_rng(10 + e)
    for n in LENGTHS:
        for mis in (0, 1, 7):
            check_copy(n, e, e, e, mis, 0, rng)          # contiguous
            check_copy(n, e, 3 * e, e, mis, mis, rng)    # scatter
            check_copy(n, e, 2 * e, 5 * e, mis, 1, rng)  # both strided
            check_copy(n, e, e, 0, mis, mis, rng)        # broadcast into packed
            check_copy(n, e, 4 * e, 0, mis, 0, rng)      # broadcast into strided


@pytest.mark.parametrize("threads", [1, 3])
def test_long_packed_runs(isa, threads):
    """Packed runs of 8 KiB to 1 MiB, misaligned either side by different amounts, in cache (the
    vector loop's unaligned body and overlapping last vector); on 3 threads the longest is cut
    into pieces."""
    rng = np.random.default_rng(threads)
    old = dmlcpu.get_num_threads()
    dmlcpu.set_num_threads(threads)
    try:
        for n in (8191, 8192, 8193, 20011, (1 << 20) + 3):
            for dst_mis, src_mis in ((0, 0), (1, 0), (17, 5), (63, 62)):
                check_copy(n, 1, 1, 1, dst_mis, src_mis, rng)
            check_copy(n // 4, 4, 4, 4, 3, 1, rng)
    finally:
        dmlcpu.set_num_threads(old)


@pytest.mark.parametrize("shape,mis", [((3, (2 << 20) + 13), 1), ((1, (6 << 20) + 5), 3)])
def test_streaming_copy(isa, shape, mis):
    """Packed copies streamed (the threshold forced to 0: whatever this machine's cache), at
    misaligned addresses."""
    rng = np.random.default_rng(1)
    rows, cols = shape
    src = rng.integers(0, 256, size=rows * (cols + 64) + mis, dtype=np.uint8)
    dst = np.zeros(rows * (cols + 32) + 2 * mis + 64, dtype=np.uint8)
    expected = dst.copy()
    ev = np.lib.stride_tricks.as_strided(expected[mis:], (rows, cols), (cols + 32, 1))
    sv = np.lib.stride_tricks.as_strided(src[mis:], (rows, cols), (cols + 64, 1))
    ev[...] = sv
    plan = Plan(1, 1, [("copy", (1, mis, [rows, cols], [cols + 32, 1]),
                        (0, mis, [rows, cols], [cols + 64, 1]), 1)])
    before = _core._set_stream_threshold(0)
    try:
        plan.run([src], [dst])
    finally:
        _core._set_stream_threshold(before)
    assert np.array_equal(dst, expected)


@pytest.mark.parametrize("row,src_row,mis", [(64, 100, 0), (65, 4096, 1), (100, 130, 16),
                                             (1000, 1024, 3), (2496, 4096, 16), (16383, 16500, 5)])
def test_streaming_rows_into_packed_destination(isa, row, src_row, mis):
    """Rows shorter than a streamed run, packed in the destination, > 4 MiB in all, streamed (the
    threshold forced to 0): vectors straddle rows; forwards and backwards source rows."""
    rng = np.random.default_rng(row)
    rows = (5 << 20) // row + 3
    src = rng.integers(0, 256, size=rows * src_row + 64, dtype=np.uint8)
    for forwards in (True, False):
        dst = np.zeros(rows * row + 2 * mis + 64, dtype=np.uint8)
        start, step = (mis, src_row) if forwards else (mis + (rows - 1) * src_row, -src_row)
        expected = dst.copy()
        expected[mis:mis + rows * row] = np.lib.stride_tricks.as_strided(
            src[start:], (rows, row), (step, 1)).reshape(-1)
        plan = Plan(1, 1, [("copy", (1, mis, [rows, row], [row, 1]),
                            (0, start, [rows, row], [step, 1]), 1)])
        before = _core._set_stream_threshold(0)
        try:
            plan.run([src], [dst])
        finally:
            _core._set_stream_threshold(before)
        assert np.array_equal(dst, expected), forwards


@pytest.mark.parametrize("row", [2, 3, 63, 64, 65, 100, 1000, 1024, 2047, 2048, 4099])
@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("size", ["cached", "far"])
def test_rows_into_packed_destination(isa, row, threads, size):
    """Rows packed one after the other in the destination, with ordinary stores (the rows kernel):
    source rows forwards, backwards and all one row (a TILE's repeats), at misaligned
    addresses, none streamed (the threshold raised; test_streaming_rows_into_packed_destination
    streams them). A small copy is taken to be in cache (aligned vectors spanning rows); so are
    rows under 2 KiB at any size. Rows of 2 KiB and more in over 1 MiB per thread (3 MiB) are not
    (row by row: on x86 a line in vectors, then the string copy); on 3 threads they are shared
    by rows."""
    rng = np.random.default_rng(row)
    rows = 37 if size == "cached" else max(5, (3 << 20) // row + 1)
    src_row = row + 40
    src = rng.integers(0, 256, size=rows * src_row + 64, dtype=np.uint8)
    before = _core._set_stream_threshold(1 << 62)
    old = dmlcpu.get_num_threads()
    dmlcpu.set_num_threads(threads)
    try:
        for mis in (0, 5):
            for start, step in ((mis, src_row), (mis + (rows - 1) * src_row, -src_row), (mis, 0)):
                dst = rng.integers(0, 256, size=rows * row + 2 * mis + 64, dtype=np.uint8)
                expected = dst.copy()
                expected[mis:mis + rows * row] = np.lib.stride_tricks.as_strided(
                    src[start:], (rows, row), (step, 1)).reshape(-1)
                plan = Plan(1, 1, [("copy", (1, mis, [rows, row], [row, 1]),
                                    (0, start, [rows, row], [step, 1]), 1)])
                plan.run([src], [dst])
                assert np.array_equal(dst, expected), (mis, step)
    finally:
        _core._set_stream_threshold(before)
        dmlcpu.set_num_threads(old)


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("widths", [(300, 257, 1100), (1030, 1500), (256, 256, 256, 256),
                                    (64, 100, 33)])
@pytest.mark.parametrize("threads", [1, 3])
def test_join_and_split_blocks_in_l2(isa, dtype, widths, threads):
    """JOIN and SPLIT along the last axis in a call that stays in L2, a few rows and about 600 KB
    (on 3 threads shared by rows), at misaligned addresses. A JOIN whose blocks are all 256 bytes
    or more: one aligned walk across the blocks (the blocks kernel; where every block is 1 KiB or
    more, with the destination prefetch), vectors straddling blocks of different inputs. A SPLIT
    whose blocks are all 64 bytes or more: part by part in panels of rows, each part's panel one
    aligned walk across its rows (the rows kernel)."""
    rng = np.random.default_rng(sum(widths))
    e = np.dtype(dtype).itemsize
    total = sum(widths)

    def misaligned(raw, mis, rows, width):
        return raw[mis:mis + rows * width * e].view(dtype).reshape(rows, width)

    old = dmlcpu.get_num_threads()
    dmlcpu.set_num_threads(threads)
    try:
        for rows in (3, 37, 600000 // (total * e)):
            parts = [rng.integers(-100, 100, size=(rows, w)).astype(dtype) for w in widths]
            expected = np.concatenate(parts, axis=1)
            for mis in (0, 1, 5):
                raw = np.zeros(rows * total * e + mis + 8, np.uint8)
                out = misaligned(raw, mis, rows, total)
                dmlcpu.join(parts, axis=1, out=out)
                assert np.array_equal(out, expected), (rows, mis)
                assert not raw[:mis].any() and not raw[mis + out.nbytes:].any(), (rows, mis)
                raws = [np.zeros(rows * w * e + mis + 8, np.uint8) for w in widths]
                outs = [misaligned(r, mis, rows, w) for r, w in zip(raws, widths)]
                dmlcpu.split(expected, axis=1, output_axis_sizes=list(widths), outputs=outs)
                for r, o, p in zip(raws, outs, parts):
                    assert np.array_equal(o, p), (rows, mis)
                    assert not r[:mis].any() and not r[mis + o.nbytes:].any(), (rows, mis)
    finally:
        dmlcpu.set_num_threads(old)


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.int64])
@pytest.mark.parametrize("shape", [(5, 3), (300, 257), (1031, 129), (2100, 300), (2053, 517)])
def test_transpose_blocked(isa, dtype, shape):
    """Packed destination, source walking a large stride: the plain row loop, and the blocked
    transpose path for destination rows of 2048 elements or more."""
    rng = np.random.default_rng(2)
    x = rng.integers(0, 100, size=shape).astype(dtype)
    out = np.empty(shape[::-1], dtype)
    e = x.itemsize
    r, c = out.shape
    plan = Plan(1, 1, [("copy", (1, 0, [r, c], [c * e, e]), (0, 0, [r, c], [e, r * e]), e)])
    plan.run([x], [out])
    assert np.array_equal(out, x.T)


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float32, np.float64])
def test_operators_under_each_isa(isa, dtype):
    rng = np.random.default_rng(3)
    x = rng.integers(-50, 50, size=(6, 40, 123)).astype(dtype)
    out = np.empty((6, 20, 41), dtype)
    dmlcpu.slice(x, offsets=[0, 1, 0], sizes=[6, 20, 41], strides=[1, 2, 3], out=out)
    assert np.array_equal(out, x[:, 1::2, 0:123:3])
    parts = dmlcpu.split(x, axis=2, output_axis_sizes=[1, 100, 22])
    assert all(np.array_equal(p, q) for p, q in zip(parts, np.split(x, [1, 101], axis=2)))
    assert np.array_equal(dmlcpu.tile(x, repeats=[2, 1, 3]), np.tile(x, (2, 1, 3)))


def test_force_isa_rejects_unknown_and_unusable():
    with pytest.raises(ValueError):
        _core._force_isa("sse9")
    for name in ("scalar", "avx2", "avx512", "neon"):
        if name not in USABLE:
            with pytest.raises(ValueError):
                _core._force_isa(name)
    assert _core._config()["active_isa"] == USABLE[-1]


def test_forced_isa_fills_kernel_slots():
    for name in USABLE:
        _core._force_isa(name)
        try:
            config = _core._config()
            assert config["active_isa"] == name
            kernels = config["kernels"]
            assert set(v for v in kernels.values() if v) <= set(USABLE[:USABLE.index(name) + 1])
            if name == "scalar":
                assert kernels["copy_stream"] is None
                assert set(kernels.values()) == {"scalar", None}
            else:
                assert kernels["x32_copy_gc"] == name
        finally:
            _core._force_isa(None)


def config_with_env(**env):
    full = dict(os.environ, PYTHONPATH=SRC, **env)
    for key in ("DMLCPU_FORCE_ISA", "DMLCPU_DISABLE_ISA"):
        if key not in env:
            full.pop(key, None)
    out = subprocess.run(
        [sys.executable, "-c", "import json, dmlcpu._core as c; print(json.dumps(c._config()))"],
        env=full, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("name", USABLE)
def test_env_force_isa(name):
    config = config_with_env(DMLCPU_FORCE_ISA=name)
    assert config["active_isa"] == name
    assert config["note"] == ""


def test_env_force_isa_unknown_is_noted_and_ignored():
    config = config_with_env(DMLCPU_FORCE_ISA="avx9000")
    assert config["active_isa"] == USABLE[-1]
    assert "DMLCPU_FORCE_ISA" in config["note"] and "avx9000" in config["note"]


@pytest.mark.skipif("avx2" not in USABLE, reason="the machine has no AVX2 to disable")
def test_env_disable_isa():
    config = config_with_env(DMLCPU_DISABLE_ISA="avx512,avx2")
    assert config["usable_isas"] == ["scalar"]
    assert config["active_isa"] == "scalar"
    config = config_with_env(DMLCPU_DISABLE_ISA="avx512")
    assert "avx512" not in config["usable_isas"] and config["active_isa"] == "avx2"
    # a disabled ISA cannot be forced either
    config = config_with_env(DMLCPU_DISABLE_ISA="avx512", DMLCPU_FORCE_ISA="avx512")
    assert config["active_isa"] == "avx2" and "DMLCPU_FORCE_ISA" in config["note"]


def cpuinfo_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def test_cpu_features_match_proc_cpuinfo():
    flags = cpuinfo_flags()
    if flags is None or platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("needs /proc/cpuinfo on x86-64")
    features = set(_core._config()["cpu_features"])
    for name in ("avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512dq",
                 "avx512vbmi"):
        assert (name in features) == (name in flags), name
    assert ("avx512" in USABLE) == ({"avx512f", "avx512bw", "avx512vl", "avx2"} <= flags)
    assert ("avx2" in USABLE) == ({"avx2", "fma", "f16c"} <= flags)


def slot_under(isa, slot):
    """The ISA whose kernel fills a slot of the table while it is forced to isa."""
    _core._force_isa(isa)
    try:
        return _core._config()["kernels"][slot]
    finally:
        _core._force_isa(None)


@pytest.mark.skipif("avx2" not in USABLE, reason="no AVX2 here")
def test_byte_gather_uses_vbmi_only_where_the_cpu_has_it():
    """The 1-byte gather's VBMI kernel is a checked sub-feature of avx512: it fills the avx512
    table's slot only on a CPU with VBMI; below it the avx2 pshufb gather serves (avx2 and
    avx512 without VBMI), and the scalar table keeps the portable loop."""
    has_vbmi = "avx512vbmi" in _core._config()["cpu_features"]
    for name in USABLE:
        expected = ("scalar" if name == "scalar" else
                    "avx512" if name == "avx512" and has_vbmi else "avx2")
        assert slot_under(name, "x8_copy_gc") == expected, name


def test_packed_runs_use_avx2_on_every_x86_table_above_scalar():
    """The packed-run slot is AVX2's under the avx2 and avx512 tables alike (its 64-byte version
    measured slower, NOTES.md in git); the portable one (libc memcpy) under scalar and
    NEON."""
    for name in USABLE:
        expected = "avx2" if name in ("avx2", "avx512") else "scalar"
        assert slot_under(name, "x8_copy_cc") == expected, name


def test_show_config_content():
    buf = io.StringIO()
    dmlcpu.show_config(file=buf)
    text = buf.getvalue()
    config = _core._config()
    assert "active ISA:    %s" % config["active_isa"] in text
    assert "compiled ISAs: " + " ".join(config["compiled_isas"]) in text
    assert "threads:       %d" % dmlcpu.get_num_threads() in text
    for slot in ("x8_copy_cc", "x32_copy_gc", "x64_copy_bc", "copy_stream"):
        assert slot in text
    assert config["compiled_isas"][0] == "scalar"
    if platform.machine() in ("x86_64", "AMD64"):
        assert config["compiled_isas"] == ["scalar", "avx2", "avx512"]


def test_info_command_prints_config():
    out = subprocess.run([sys.executable, "-m", "dmlcpu", "info"], capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=SRC), check=True).stdout
    assert "active ISA:" in out and "x32_copy_gc" in out


GUARD_SCRIPT = r"""
import ctypes, mmap, sys
import numpy as np
from dmlcpu import _core
from dmlcpu._core import Plan
page = mmap.PAGESIZE
mm = mmap.mmap(-1, 4 * page)
base = ctypes.addressof(ctypes.c_char.from_buffer(mm))
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
# pages 0 and 3 unreadable: the source ends right before page 3 or starts right after page 0
assert libc.mprotect(base, page, 0) == 0 and libc.mprotect(base + 3 * page, page, 0) == 0
mem = np.frombuffer(mm, dtype=np.uint8)
mem[page:3 * page] = np.arange(2 * page, dtype=np.uint64).astype(np.uint8)
for isa in sys.argv[1:]:
    _core._force_isa(isa)
    for e in (1, 2, 4, 8):
        for k in range(1, 10):
            for n in (1, 5, 16, 17, 33, 100):
                if (n - 1) * k * e + e > 2 * page:
                    continue
                span = (n - 1) * k * e + e
                for start, stride in ((3 * page - span, k * e), (page, k * e),
                                      (3 * page - e, -k * e), (page + span - e, -k * e)):
                    src = mem[page:3 * page]
                    out = np.zeros(n * e, np.uint8)
                    plan = Plan(1, 1, [("copy", (1, 0, [n], [e]),
                                        (0, start - page, [n], [stride]), e)])
                    plan.run([src], [out])
                    want = np.lib.stride_tricks.as_strided(
                        mem[start:], (n, e), (stride, 1)).reshape(-1)
                    assert np.array_equal(out, want), (isa, e, k, n, start, stride)
# rows streamed into a packed destination, the last source row flush against page 3
big = mmap.mmap(-1, (2 << 20) * 3 + 2 * page)
big_base = ctypes.addressof(ctypes.c_char.from_buffer(big))
limit = len(big) - page
assert libc.mprotect(big_base + limit, page, 0) == 0
bigmem = np.frombuffer(big, dtype=np.uint8)
bigmem[:limit] = np.arange(limit, dtype=np.uint64).astype(np.uint8)
for isa in sys.argv[1:]:
    _core._force_isa(isa)
    for row in (64, 100, 1000):
        rows = (5 << 20) // row
        span = (rows - 1) * (row + 3) + row
        start = limit - span
        out = np.zeros(rows * row, np.uint8)
        Plan(1, 1, [("copy", (1, 0, [rows, row], [row, 1]),
                     (0, start, [rows, row], [row + 3, 1]), 1)]).run([bigmem[:limit]], [out])
        want = np.lib.stride_tricks.as_strided(bigmem[start:], (rows, row), (row + 3, 1))
        assert np.array_equal(out, want.reshape(-1)), (isa, row)
print("ok")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mprotect via libc")
def test_kernels_read_nothing_outside_the_source():
    """Sources flush against unreadable pages: a kernel reading past its run crashes the child."""
    result = subprocess.run([sys.executable, "-c", GUARD_SCRIPT] + USABLE, capture_output=True,
                            text=True, env=dict(os.environ, PYTHONPATH=SRC))
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]


@pytest.mark.skipif(sys.platform == "win32", reason="mmap guard pages need POSIX")
@pytest.mark.parametrize("name", USABLE)
@pytest.mark.parametrize("threads", ["1", "3"])
def test_every_operator_inside_its_buffers_under_each_isa(name, threads):
    """tests/guard_pages_run.py (every operator flush against inaccessible pages) with the
    kernel table forced to each ISA and one or several threads."""
    tests = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join((tests, SRC)), DMLCPU_FORCE_ISA=name,
               DMLCPU_NUM_THREADS=threads)
    env.pop("DMLCPU_DISABLE_ISA", None)
    result = subprocess.run([sys.executable, os.path.join(tests, "guard_pages_run.py")],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert int(result.stdout.split("guarded calls:")[1]) > 1000
