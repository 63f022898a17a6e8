"""python -m dmlcpu bench --numpy: a tiny run prints one row per workload and thread count,
with the target verdict where the issue sets one (timings are not asserted)."""
from dmlcpu.bench import _main as _bench


def test_tiny_seed_run_prints_a_row_per_thread_count(capsys):
    assert _bench.main(["--numpy", "--filter", "seed: cumsum", "--threads", "1,2",
                        "--budget", "0.001", "--quick"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| seed: cumsum")]
    assert [row.split("|")[2].strip() for row in rows] == ["1", "2"]
    assert all(">= 0.8: " in row for row in rows)
    assert "fast-path calls per function: cumsum" in out
