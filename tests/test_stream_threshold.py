"""The last-level cache seen at initialization, the streaming threshold derived from it, the
DMLCPU_STREAM_THRESHOLD override, and results that never depend on the threshold."""
import os
import subprocess
import sys

import numpy as np
import pytest

import dmlcpu
from dmlcpu import _core

import reference
from conftest import assert_same_bits

CONFIG = _core._config()
MiB = 1 << 20


def config_with_env(**env):
    code = "import json, dmlcpu._core as c; print(json.dumps(c._config()))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=dict(os.environ, **env), timeout=120)
    assert result.returncode == 0, result.stderr
    import json
    return json.loads(result.stdout)


def glibc_rule(llc, sharing):
    """glibc's memcpy threshold (sysdeps/x86/dl-cacheinfo.h, 2.38+): a quarter of the whole
    cache, at least three quarters of one thread's share; over a cache of at most 4 MiB per
    sharing thread (a virtual machine reports its host's whole cache)."""
    llc = min(llc, 4 * MiB * sharing)
    return max(llc // 4, llc // sharing // 4 * 3)


def test_threshold_follows_the_cache_rule():
    assert CONFIG["llc_bytes"] > 0 and CONFIG["llc_sharing"] >= 1
    assert CONFIG["stream_threshold"] == glibc_rule(CONFIG["llc_bytes"], CONFIG["llc_sharing"])
    assert CONFIG["stream_threshold_source"] in ("from the last-level cache",
                                                 "no cache detected: a default")


def _sysfs_last_level():
    base = "/sys/devices/system/cpu/cpu0/cache"
    best = None
    for name in sorted(os.listdir(base)):
        def read(field):
            with open(os.path.join(base, name, field)) as f:
                return f.read().strip()
        if not name.startswith("index") or read("type") == "Instruction":
            continue
        level, size = int(read("level")), read("size")
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        nbytes = int(size[:-1]) * units[size[-1]] if size[-1] in units else int(size)
        cpus = 0
        for part in read("shared_cpu_list").split(","):
            lo, _, hi = part.partition("-")
            cpus += int(hi or lo) - int(lo) + 1
        if best is None or level > best[0]:
            best = (level, nbytes, cpus)
    return best


@pytest.mark.skipif(not os.path.isdir("/sys/devices/system/cpu/cpu0/cache/index0"),
                    reason="no Linux sysfs cache description here")
def test_linux_reads_the_highest_cache_level_from_sysfs():
    level, nbytes, cpus = _sysfs_last_level()
    assert CONFIG["llc_detected"]
    assert (CONFIG["llc_bytes"], CONFIG["llc_sharing"]) == (nbytes, cpus)


@pytest.mark.parametrize("text, expected", [("123456", 123456), ("64K", 64 << 10),
                                            ("3m", 3 * MiB), ("1G", 1 << 30), ("0", 0)])
def test_environment_overrides_the_threshold(text, expected):
    config = config_with_env(DMLCPU_STREAM_THRESHOLD=text)
    assert config["stream_threshold"] == expected
    assert config["stream_threshold_source"] == "DMLCPU_STREAM_THRESHOLD"


@pytest.mark.parametrize("text", ["-1", "12x", "K", "99999999999G", "1.5M", " 5"])
def test_malformed_environment_is_ignored_and_said(text):
    config = config_with_env(DMLCPU_STREAM_THRESHOLD=text)
    assert config["stream_threshold"] == CONFIG["stream_threshold"]
    assert "malformed DMLCPU_STREAM_THRESHOLD was ignored" in config["stream_threshold_source"]


def test_show_config_prints_the_threshold(capsys):
    dmlcpu.show_config()
    out = capsys.readouterr().out
    assert "streaming stores: outputs of %d KiB and more" % (
        CONFIG["stream_threshold"] // 1024) in out
    assert "last-level cache: %d KiB" % (CONFIG["llc_bytes"] // 1024) in out


def test_set_stream_threshold_returns_the_previous_and_restores():
    before = _core._set_stream_threshold(12345)
    try:
        assert before == CONFIG["stream_threshold"]
        assert _core._config()["stream_threshold"] == 12345
        assert _core._config()["stream_threshold_source"] == "set by _set_stream_threshold"
    finally:
        assert _core._set_stream_threshold(-1) == 12345
    assert _core._config()["stream_threshold"] == CONFIG["stream_threshold"]


@pytest.mark.parametrize("threshold", [0, 1 << 62])
@pytest.mark.parametrize("threads", [1, 2])
def test_results_do_not_depend_on_the_threshold(threshold, threads, isa):
    """Every operator that streams (copy, group, scan, TILE), forced to stream or never to."""
    before_threads = dmlcpu.get_num_threads()
    before = _core._set_stream_threshold(threshold)
    dmlcpu.set_num_threads(threads)
    try:
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
    finally:
        _core._set_stream_threshold(before)
        dmlcpu.set_num_threads(before_threads)


def reuse_rule(llc, sharing, threshold):
    """A copy beyond the threshold rewriting the last one's output right after it writes cached
    up to a quarter of a thread's share of the cache as reported, where that is above the
    threshold and the share at most 16 MiB (a larger one is a virtual machine's host's). The AMD
    EPYC VM: 32 MiB shared by two, threshold 3 MiB -> 4 MiB; the Intel VM: 300 MiB shared by two
    -> 0; that L3 on bare metal, 16 threads, threshold 8 MiB -> 0."""
    share = llc // max(sharing, 1)
    limit = share // 4
    return limit if share <= 16 * MiB and limit > threshold else 0


def test_reuse_limit_follows_the_rule():
    assert CONFIG["stream_reuse_bytes"] == reuse_rule(
        CONFIG["llc_bytes"], CONFIG["llc_sharing"], CONFIG["stream_threshold"])


# the rules that let an output past the threshold stay cached: off where the threshold is not
# the detected one
LIMITS = ("stream_reuse_bytes", "string_copy_bytes")


def test_a_threshold_from_the_environment_is_exact():
    config = config_with_env(DMLCPU_STREAM_THRESHOLD="3M")
    assert [config[limit] for limit in LIMITS] == [0, 0]


def test_a_threshold_set_by_hand_turns_reuse_and_the_string_copy_off_until_restored():
    before = _core._set_stream_threshold(4 * MiB)
    try:
        assert [_core._config()[limit] for limit in LIMITS] == [0, 0]
    finally:
        _core._set_stream_threshold(before)
    assert [_core._config()[limit] for limit in LIMITS] == [CONFIG[limit] for limit in LIMITS]


def test_set_stream_reuse_returns_the_previous_and_restores():
    before = _core._set_stream_reuse(12345)
    try:
        assert before == CONFIG["stream_reuse_bytes"]
        assert _core._config()["stream_reuse_bytes"] == 12345
    finally:
        assert _core._set_stream_reuse(-1) == 12345
    assert _core._config()["stream_reuse_bytes"] == CONFIG["stream_reuse_bytes"]


def test_show_config_says_when_outputs_rewritten_stay_cached(capsys):
    _core._set_stream_reuse(5 * MiB)
    try:
        dmlcpu.show_config()
        assert "except copies of up to 5120 KiB a thread rewriting the last one's output" in (
            capsys.readouterr().out)
        _core._set_stream_reuse(0)
        dmlcpu.show_config()
        assert "rewriting" not in capsys.readouterr().out
    finally:
        _core._set_stream_reuse(-1)


def _rewritten_outputs(seed):
    """Every copy asks (the threshold 0, the reuse limit unbounded); each op is called on one
    input, then at once on another differing in every element, into the same outputs: the
    second call rewrites them cached and must replace every byte (TILE in blocks only under its
    own rule, which the threshold 0 never meets: test_tile_blocks_rewritten_cached_on_two_threads;
    TILE straight from its packed input does). Returns how many calls were taken as rewrites."""
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
    rewrites = _core._stream_rewrites()
    for call, expected_of in ops:
        outs = [np.empty_like(e) for e in expected_of(first)]
        for x in (first, first + 1, first + 2):
            call(first, outs)
            call(x, outs)  # right after: a rewrite
            for got, want in zip(outs, expected_of(x)):
                assert_same_bits(got, want, "rewritten output")
    return _core._stream_rewrites() - rewrites


@pytest.mark.parametrize("threads", [1, 2])
def test_outputs_rewritten_cached_hold_the_same_bits(threads, isa):
    before_threads = dmlcpu.get_num_threads()
    before = _core._set_stream_threshold(0)
    _core._set_stream_reuse(1 << 62)
    dmlcpu.set_num_threads(threads)
    try:
        assert _rewritten_outputs(threads) > 0
    finally:
        _core._set_stream_threshold(before)
        _core._set_stream_reuse(-1)
        dmlcpu.set_num_threads(before_threads)


def test_outputs_rewritten_from_many_threads_at_once():
    """Calls from several Python threads race on the record of the last output: only the choice
    of stores may suffer, never a result."""
    import threading
    before = _core._set_stream_threshold(0)
    _core._set_stream_reuse(1 << 62)
    errors = []

    def work():
        try:
            for seed in range(5):
                _rewritten_outputs(seed)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    try:
        workers = [threading.Thread(target=work) for _ in range(4)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        _core._set_stream_threshold(before)
        _core._set_stream_reuse(-1)
    assert not errors, errors[0]


def test_tile_blocks_rewritten_cached_on_two_threads(isa):
    """TILE in blocks (short input runs) streams its replicas from twice the threshold; called
    again at once into the same output on two threads, each writing under twice the threshold,
    it writes them cached, and must replace every byte."""
    before_threads = dmlcpu.get_num_threads()
    before = _core._set_stream_threshold(1 * MiB)
    _core._set_stream_reuse(1 << 62)
    dmlcpu.set_num_threads(2)
    try:
        x = np.random.default_rng(5).integers(-100, 100, size=(1, 24, 32, 32)).astype(np.float32)
        out = np.empty((8, 24, 64, 64), np.float32)  # 3 MiB: 1.5 MiB a thread
        rewrites = _core._stream_rewrites()
        for step in (1, 2):
            dmlcpu.tile(x, repeats=[8, 1, 2, 2], out=out)
            dmlcpu.tile(x + step, repeats=[8, 1, 2, 2], out=out)  # right after: a rewrite
            assert_same_bits(out, reference.tile(x + step, [8, 1, 2, 2]), "rewritten TILE")
        assert _core._stream_rewrites() > rewrites
    finally:
        _core._set_stream_threshold(before)
        _core._set_stream_reuse(-1)
        dmlcpu.set_num_threads(before_threads)


def string_copy_rule(llc, sharing, detected):
    """A writes-only copy beyond the threshold (TILE's, from its cached input) in rows of 2 KiB
    and more writes them by the string copy, cached, where each thread writes at most its share
    of the cache as reported, where one was detected and the share is at most 16 MiB. The AMD
    EPYC VM: 32 MiB shared by two -> 16 MiB; the Intel VM: 300 MiB shared by two -> 0; nothing
    detected -> 0."""
    share = llc // max(sharing, 1)
    return share if detected and share <= 16 * MiB else 0


def test_string_copy_limit_follows_the_rule():
    assert CONFIG["string_copy_bytes"] == string_copy_rule(
        CONFIG["llc_bytes"], CONFIG["llc_sharing"], CONFIG["llc_detected"])


def test_set_string_copy_limit_returns_the_previous_and_restores(capsys):
    before = _core._set_string_copy_limit(5 * MiB)
    try:
        assert before == CONFIG["string_copy_bytes"]
        assert _core._config()["string_copy_bytes"] == 5 * MiB
        dmlcpu.show_config()
        printed = capsys.readouterr().out
        assert ("except TILE's rows of 2 KiB and more, and its slabs on one thread, up to 5120 "
                "KiB a thread: by the string copy, cached") in printed
        _core._set_string_copy_limit(0)
        dmlcpu.show_config()
        assert "string copy" not in capsys.readouterr().out
    finally:
        assert _core._set_string_copy_limit(-1) == 0
    assert _core._config()["string_copy_bytes"] == CONFIG["string_copy_bytes"]


def _string_copy_writes_of(x, repeats, out):
    """TILE x into out, then from x + 1 and at once from x + 2 (a rewrite where the reuse limit
    allows), checking every byte; returns how many copies went by the string copy."""
    writes = _core._string_copy_writes()
    dmlcpu.tile(x, repeats=repeats, out=out)
    assert_same_bits(out, reference.tile(x, repeats), "TILE")
    dmlcpu.tile(x + 1, repeats=repeats, out=out)
    dmlcpu.tile(x + 2, repeats=repeats, out=out)
    assert_same_bits(out, reference.tile(x + 2, repeats), "TILE written again")
    return _core._string_copy_writes() - writes


@pytest.mark.parametrize("threads", [1, 2])
def test_tile_rows_by_the_string_copy_hold_the_same_bits(threads, isa):
    """The threshold 0 (every copy would stream), the string copy unbounded: TILE straight from
    rows of 2 KiB and more goes by the string copy wherever a kernel streams rows, rows of 1 KiB
    stream; the rewrite right after is written cached. Rows not whole lines, outputs not
    line-aligned (NumPy's large arrays start 16 bytes into a page)."""
    before_threads = dmlcpu.get_num_threads()
    before = _core._set_stream_threshold(0)
    _core._set_string_copy_limit(1 << 62)
    _core._set_stream_reuse(1 << 62)
    dmlcpu.set_num_threads(threads)
    streams_rows = _core._config()["kernels"]["copy_stream_rows"] is not None
    rng = np.random.default_rng(threads)
    try:
        for dtype, row in ((np.float16, 1024), (np.float32, 1024), (np.float32, 517),
                           (np.float64, 1100)):
            x = rng.integers(-100, 100, size=(6, 1, row)).astype(dtype)
            buffer = np.empty(6 * 9 * row * x.itemsize + 64, np.uint8)
            out = buffer[16:16 + 6 * 9 * row * x.itemsize].view(dtype).reshape(6, 9, row)
            taken = _string_copy_writes_of(x, [1, 9, 1], out)
            assert taken >= 1 if streams_rows else taken == 0, (dtype, row, taken)
        x = rng.integers(-100, 100, size=(6, 1, 1024)).astype(np.int8)  # 1 KiB rows: streamed
        assert _string_copy_writes_of(x, [1, 9, 1], np.empty((6, 9, 1024), np.int8)) == 0
    finally:
        _core._set_stream_threshold(before)
        _core._set_string_copy_limit(-1)
        _core._set_stream_reuse(-1)
        dmlcpu.set_num_threads(before_threads)


@pytest.mark.parametrize("threads", [1, 2])
def test_tile_rows_beyond_l2_go_by_the_string_copy_unstreamed(threads, isa):
    """Streaming off (the threshold beyond every output), the string copy unbounded: TILE rows
    of 2 KiB and more go by it where each thread writes more than L2's share (1 MiB) and the
    kernels have it (x86); within that share, and rows of 1 KiB, the aligned walk. Outputs 16
    bytes into their buffers, rows not whole lines."""
    before_threads = dmlcpu.get_num_threads()
    before = _core._set_stream_threshold(1 << 62)
    _core._set_string_copy_limit(1 << 62)
    dmlcpu.set_num_threads(threads)
    streams_rows = _core._config()["kernels"]["copy_stream_rows"] is not None
    rng = np.random.default_rng(30 + threads)
    try:
        for dtype, rows, row, repeats, beyond in ((np.float32, 8, 1024, 40 * threads, True),
                                                  (np.float64, 3, 1100, 50 * threads, True),
                                                  (np.float16, 6, 1030, 9, False),
                                                  (np.int8, 16, 1024, 80 * threads, True)):
            x = rng.integers(-100, 100, size=(rows, 1, row)).astype(dtype)
            nbytes = rows * repeats * row * x.itemsize
            assert (nbytes > threads << 20) == beyond
            buffer = np.empty(nbytes + 64, np.uint8)
            out = buffer[16:16 + nbytes].view(dtype).reshape(rows, repeats, row)
            taken = _string_copy_writes_of(x, [1, repeats, 1], out)
            by_it = streams_rows and beyond and row * x.itemsize >= 2048
            assert taken == (3 if by_it else 0), (dtype, threads, taken)
    finally:
        _core._set_stream_threshold(before)
        _core._set_string_copy_limit(-1)
        dmlcpu.set_num_threads(before_threads)


@pytest.mark.parametrize("threads", [1, 2])
def test_tile_in_slabs_on_one_thread_holds_the_same_bits(threads, isa):
    """The threshold 0 (every copy would stream), the string copy unbounded: a TILE in blocks
    (input runs under 1 KiB) goes in slabs on one thread where the string copy's kernels are
    (x86), on two it stays in blocks. The outermost repeated dim first or inner (dims outside it
    not repeated), several blocks in the first tile (64 KiB blocks), outputs 16 bytes into their
    buffers (no line-aligned start). A call in slabs counts once as written by the string copy;
    so would a copy inside a block that takes it itself (rows of 2 KiB and more): these shapes
    have none."""
    before_threads = dmlcpu.get_num_threads()
    before = _core._set_stream_threshold(0)
    _core._set_string_copy_limit(1 << 62)
    dmlcpu.set_num_threads(threads)
    streams_rows = _core._config()["kernels"]["copy_stream_rows"] is not None
    rng = np.random.default_rng(20 + threads)
    try:
        for dtype, shape, repeats in ((np.float32, (1, 8, 16, 16), (8, 1, 4, 4)),
                                      (np.int8, (1, 64, 32, 32), (3, 1, 4, 4)),
                                      (np.float16, (2, 3, 40, 24), (1, 5, 3, 8)),
                                      (np.float64, (3, 2, 8, 50), (1, 1, 7, 9))):
            x = rng.integers(-100, 100, size=shape).astype(dtype)
            out_shape = tuple(s * r for s, r in zip(shape, repeats))
            nbytes = int(np.prod(out_shape)) * x.itemsize
            buffer = np.empty(nbytes + 64, np.uint8)
            out = buffer[16:16 + nbytes].view(dtype).reshape(out_shape)
            assert nbytes >= 1 << 20  # shared on two threads
            taken = _string_copy_writes_of(x, list(repeats), out)
            assert taken == (3 if streams_rows and threads == 1 else 0), (dtype, shape, taken)
    finally:
        _core._set_stream_threshold(before)
        _core._set_string_copy_limit(-1)
        dmlcpu.set_num_threads(before_threads)


def test_tile_in_slabs_stops_at_the_string_copy_limit():
    """One thread: slabs where the output is at most the limit, blocks past it (three calls
    each, counted as in the test above)."""
    before_threads = dmlcpu.get_num_threads()
    before = _core._set_stream_threshold(0)
    dmlcpu.set_num_threads(1)
    streams_rows = _core._config()["kernels"]["copy_stream_rows"] is not None
    try:
        x = np.random.default_rng(4).integers(-100, 100, size=(1, 8, 16, 16)).astype(np.float32)
        out = np.empty((8, 8, 64, 64), np.float32)
        _core._set_string_copy_limit(out.nbytes)
        assert _string_copy_writes_of(x, [8, 1, 4, 4], out) == (3 if streams_rows else 0)
        _core._set_string_copy_limit(out.nbytes - 1)
        assert _string_copy_writes_of(x, [8, 1, 4, 4], out) == 0
    finally:
        _core._set_stream_threshold(before)
        _core._set_string_copy_limit(-1)
        dmlcpu.set_num_threads(before_threads)


def test_the_string_copy_stops_at_its_limit_a_thread():
    """Each thread's part of the output against the limit: 432 KiB on one thread; 1152 KiB on
    two, 576 KiB each (calls are shared in parts of at least 256 KiB)."""
    before_threads = dmlcpu.get_num_threads()
    before = _core._set_stream_threshold(0)
    rng = np.random.default_rng(3)
    streams_rows = _core._config()["kernels"]["copy_stream_rows"] is not None
    try:
        for threads, rows, part in ((1, 12, 432 << 10), (2, 32, 576 << 10)):
            dmlcpu.set_num_threads(threads)
            x = rng.integers(-100, 100, size=(rows, 1, 1024)).astype(np.float32)
            out = np.empty((rows, 9, 1024), np.float32)
            assert out.nbytes == threads * part
            _core._set_string_copy_limit(part)
            taken = _string_copy_writes_of(x, [1, 9, 1], out)
            assert taken >= 1 if streams_rows else taken == 0, (threads, taken)
            _core._set_string_copy_limit(part - 1)
            assert _string_copy_writes_of(x, [1, 9, 1], out) == 0
    finally:
        _core._set_stream_threshold(before)
        _core._set_string_copy_limit(-1)
        dmlcpu.set_num_threads(before_threads)
