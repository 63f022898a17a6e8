"""Resources: a clean run under `python -X dev -W error`, memory flat over 10^5 calls, and a
result too large to allocate raising MemoryError (never a crash)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import dmlcpu as dml
from dmlcpu import InvalidArgumentError, TensorDesc

HERE = os.path.dirname(os.path.abspath(__file__))
# subprocesses import the dmlcpu this test imported (installed, or src/ in a checkout)
SRC = os.path.dirname(os.path.dirname(dml.__file__))

# A small workload of every operator, eager and compiled, refusals included.
WORKLOAD = textwrap.dedent("""
    import numpy as np
    import dmlcpu as dml

    def workload(rounds):
        x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        f16 = x.astype(np.float16)[:, ::-1]
        T = dml.TensorDesc
        ops = [
            dml.compile_operator(dml.SplitOperatorDesc(T("FLOAT32", [2, 3, 4]),
                                 [T("FLOAT32", [2, 1, 4]), T("FLOAT32", [2, 2, 4])], 1)),
            dml.compile_operator(dml.CumulativeProductOperatorDesc(
                T("INT64", [4, 4]), T("INT64", [4, 4]), 0, 1, True)),
        ]
        data = x.tobytes()
        for _ in range(rounds):
            dml.split(x, axis=2, output_axis_sizes=[1, 3])
            dml.join([x, x], axis=0)
            dml.slice(x, offsets=[0, 1, 0], sizes=[2, 2, 2], strides=[1, 1, 2])
            dml.slice1(f16, input_window_offsets=[0, 0, 1], input_window_sizes=[2, 3, 3],
                       input_window_strides=[1, -1, 2])
            dml.tile(f16, repeats=[1, 2, 1])
            dml.cumulative_summation(x, axis=1, has_exclusive_sum=True)
            dml.cumulative_product(f16, axis=2, axis_direction=1)
            ops[0].execute([data], [bytearray(32), bytearray(64)])
            buf = bytearray(128)
            ops[1].execute([buf], [buf])
            try:
                dml.split(x, axis=3, output_axis_sizes=[2])
            except dml.InvalidArgumentError:
                pass
            try:
                ops[0].execute([data], [bytes(32), bytearray(64)])
            except dml.InvalidArgumentError:
                pass
""")


def run_python(code, *flags, timeout=120):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (SRC, os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True,
                          env=env, timeout=timeout)


def test_dev_mode_with_warnings_as_errors_is_clean():
    """-X dev: ResourceWarnings, unclosed buffers, debug hooks on the allocators; -W error makes
    any warning fatal."""
    result = run_python(WORKLOAD + "\nworkload(50)\nprint('done')\n", "-X", "dev", "-W", "error")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "done"
    assert result.stderr == "", result.stderr[-3000:]


def test_memory_stays_flat_over_a_hundred_thousand_calls():
    """RSS after 10^5 more calls (11 per round) stays within 4 MiB of RSS after a warm-up, and
    tracemalloc sees no growth of Python allocations over a further 10^4 calls."""
    code = WORKLOAD + textwrap.dedent("""
        import gc, tracemalloc

        def rss_kib():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * (__import__("os").sysconf("SC_PAGE_SIZE") // 1024)

        workload(2000)
        gc.collect()
        before = rss_kib()
        workload(9091)                      # 100,001 calls
        gc.collect()
        after = rss_kib()
        tracemalloc.start()
        workload(100)
        gc.collect()
        start, _ = tracemalloc.get_traced_memory()
        workload(1000)
        gc.collect()
        end, _ = tracemalloc.get_traced_memory()
        print(before, after, start, end)
    """)
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc/self/statm")
    result = run_python(code, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    before, after, start, end = map(int, result.stdout.split())
    # ASan (tools/run-sanitizers) holds freed blocks in a quarantine of up to 256 MiB: there the
    # RSS bound says nothing, and LeakSanitizer checks the C allocations instead.
    if "libasan" not in os.environ.get("LD_PRELOAD", ""):
        assert after - before < 4096, f"RSS grew by {after - before} KiB over 10^5 calls"
    assert end - start < 64 * 1024, f"traced memory grew by {end - start} bytes over 10^4 calls"


def test_a_result_too_large_to_allocate_raises_memory_error():
    """Extended mode takes 64-bit sizes: a broadcast input tiled 2^50-fold is a valid call whose
    result (8 PiB) no machine can hold: MemoryError, not a crash or a partial write."""
    x = np.broadcast_to(np.float64(2.5), (8, 8))
    with pytest.raises(MemoryError):
        dml.tile(x, repeats=[2**25, 2**25])
    with pytest.raises(MemoryError):
        dml.split(np.broadcast_to(np.int8(1), (2**45, 2)), axis=1, output_axis_sizes=[1, 1])
    with pytest.raises(MemoryError):
        dml.cumulative_summation(np.broadcast_to(np.float32(1), (2**30, 2**20)), axis=0)


def test_descriptors_with_huge_sizes_are_refused_by_validation():
    """Descriptor sizes are DirectML UINTs: beyond 2^32 - 1 elements is refused at compile time,
    so no execute can be asked for a buffer that cannot exist."""
    with pytest.raises(InvalidArgumentError, match="at most 4294967295"):
        dml.compile_operator(dml.TileOperatorDesc(TensorDesc("FLOAT32", [1, 1]),
                                                  TensorDesc("FLOAT32", [2**16, 2**16]),
                                                  [2**16, 2**16]))
    with pytest.raises(InvalidArgumentError, match="at most 9223372036854775807"):
        u = 2**32 - 1
        dml.compile_operator(dml.CumulativeSummationOperatorDesc(
            TensorDesc("INT64", [u], [u]), TensorDesc("INT64", [u]), 0))
