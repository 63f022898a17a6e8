"""python -m dmlcpu bench: output paths checked before running, equal-thread rows in both
protocols, peers checked against dmlcpu, missing peers skipped, the Markdown renderer."""
import itertools
import json
import sys
import time
from collections import Counter

import numpy as np
import pytest

from dmlcpu.bench import _main as _bench, _report as _bench_report, _run as _bench_run
from dmlcpu.bench import _timing as _bench_timing
from dmlcpu.bench._cases import Case

TINY = ["--quick", "--threads", "1", "--budget", "0.01",
        "--filter", "SPLIT axis 1 into 4 int8 512K"]


@pytest.fixture
def no_run(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the bench ran although an output path was unusable")
    monkeypatch.setattr(_bench, "run", refuse)


@pytest.mark.parametrize("flag", ["--json", "--markdown-into"])
def test_unwritable_path_refused_before_running(tmp_path, capsys, no_run, flag):
    path = tmp_path / "missing-dir" / "results.json"
    assert _bench.main(["--quick", flag, str(path)]) == 2
    err = capsys.readouterr().err
    assert flag in err and str(path) in err
    assert not path.parent.exists()


def test_unknown_sizes_widths_threads_refused(capsys, no_run):
    assert _bench.main(["--sizes", "8M,7M", "--widths", "3", "--threads", "1,zero"]) == 2
    err = capsys.readouterr().err
    assert "--sizes: 7M" in err and "--widths: 3" in err and "--threads: zero" in err


def test_plot_into_a_file_refused(tmp_path, capsys, no_run):
    target = tmp_path / "a-file"
    target.write_text("x")
    assert _bench.main(["--quick", "--plot", str(target / "plots")]) == 2
    assert "--plot" in capsys.readouterr().err


def test_readme_without_markers_refused(tmp_path, capsys, no_run):
    readme = tmp_path / "README.md"
    readme.write_text("# no section here\n")
    assert _bench.main(["--quick", "--markdown-into", str(readme)]) == 2
    assert "section" in capsys.readouterr().err
    assert readme.read_text() == "# no section here\n"


def test_good_json_path_not_left_behind_when_another_is_bad(tmp_path, no_run):
    good = tmp_path / "results.json"
    assert _bench.main(["--quick", "--json", str(good), "--from", str(tmp_path / "no.json")]) == 2
    assert not good.exists()


def test_tiny_run_writes_rows_for_both_protocols(tmp_path, capsys):
    path = tmp_path / "r.json"
    assert _bench.main(TINY + ["--json", str(path), "--table", str(tmp_path / "r.md")]) == 0
    data = json.loads(path.read_text())
    assert {"cpu", "numpy", "dmlcpu", "active_isa", "thread_counts"} <= set(data["machine"])
    rows = data["rows"]
    assert sorted(r["protocol"] for r in rows) == ["cold", "warm"]
    for row in rows:
        assert row["threads"] == 1 and row["dtype"] == "int8" and row["size"] == "512K"
        assert {"dmlcpu", "numpy", "memcpy"} <= set(row["seconds"])
        assert all(t > 0 for t in row["seconds"].values())
        assert set(row["paired"]) == set(row["seconds"]) - {"dmlcpu"}
    assert (tmp_path / "r.md").read_text().count("| SPLIT axis 1 into 4") == 2
    assert "SPLIT axis 1 into 4" in capsys.readouterr().out


def test_missing_torch_and_onnxruntime_are_skipped_with_a_note(monkeypatch, capsys):
    for name in ("torch", "onnxruntime", "onnx"):
        monkeypatch.setitem(sys.modules, name, None)  # import now raises ImportError
    assert _bench.main(TINY) == 0
    out = capsys.readouterr().out
    assert "PyTorch is not installed" in out and "ONNX Runtime is not installed" in out


def _case(dml_value, peer_value):
    """A one-output case whose peers write constants, to see how the runner checks them."""
    def writer(value):
        return lambda ins, outs: lambda: outs[0].fill(value)
    return Case("FAKE", "(4)", np.int32, "512K", [np.zeros(4, np.int32)], [(4,)], None,
                dmlcpu=writer(dml_value), numpy=writer(dml_value), torch=None,
                ort=lambda ins, outs, n: writer(peer_value)(ins, outs))


def test_peer_with_a_different_result_is_dropped(monkeypatch):
    monkeypatch.setattr(_bench_run, "optional", lambda name: None)
    notes = []
    fns = _bench_run._peer_fns(_case(1, 2), 1, notes)
    assert set(fns) == {"dmlcpu", "memcpy", "numpy"}
    assert notes == ["FAKE (4) int32: ort skipped (its result differs)"]
    assert set(_bench_run._peer_fns(_case(1, 1), 2, [])) == {"dmlcpu", "ort"}


def test_a_very_slow_peer_is_timed_by_its_first_call(monkeypatch):
    monkeypatch.setattr(_bench_run, "optional", lambda name: None)
    case = _case(1, 1)

    def slow_ort(ins, outs, n):
        def run():
            time.sleep(_bench_run.SLOW_SECONDS + 0.05)
            outs[0].fill(1)
        return run
    case.builders["ort"] = slow_ort
    rows = _bench_run.run_case(case, [1], 0.01, 2, [])
    assert [r["protocol"] for r in rows] == ["cold", "warm"]
    for row in rows:
        assert row["one_call"] == ["ort"]
        assert row["seconds"]["ort"] >= _bench_run.SLOW_SECONDS + 0.05
        assert row["seconds"]["dmlcpu"] < 0.05


def test_dmlcpu_disagreeing_with_numpy_is_an_error():
    case = _case(1, 1)
    case.builders["numpy"] = lambda ins, outs: lambda: outs[0].fill(7)
    with pytest.raises(AssertionError, match="differs from NumPy"):
        _bench_run._peer_fns(case, 1, [])


def _row(family, dtype, size, threads, protocol, **seconds):
    return {"family": family, "name": family + " " + dtype, "dtype": dtype, "width": 4,
            "size": size, "bytes": 10 ** 9, "written": 5 * 10 ** 8, "threads": threads,
            "protocol": protocol, "seconds": seconds, "spread": 1.0}


def test_markdown_reports_the_worst_size_and_the_misses(tmp_path):
    rows = [_row("JOIN", "float32", "8M", 1, "cold", dmlcpu=1.0, numpy=2.0, ort=1.5),
            _row("JOIN", "float32", "32M", 1, "cold", dmlcpu=1.0, ort=0.8, memcpy=1.0),
            _row("JOIN", "float32", "8M", 2, "warm", dmlcpu=1.0, torch=1.25)]
    data = {"machine": {"cpu": "CPU", "cores": 2, "caches": [], "active_isa": "scalar",
                        "python": "3", "numpy": "2", "dmlcpu": "0"}, "rows": rows}
    text = _bench_report.markdown(data)
    table = [line for line in text.splitlines() if line.startswith("| JOIN")]
    assert table == ["| JOIN | float32 | **0.80** (ONNX Runtime, 32M) | 1.25 |"]
    assert "Misses: 1 of 3 measurements are below 1" in text
    # each protocol note where it belongs: PyTorch's workers, the cold rounds' order, their buffers
    assert "its OpenMP workers spinning as OpenMP's default, ONNX Runtime" in text
    assert "one call each, every peer on its own buffers, so each" in text  # before shared sets
    assert "rounds interleaved A B C, B C A, C A B, one call each" in text  # before the square
    data["protocols"] = _bench.PROTOCOL_NOTES
    data["machine"]["omp_wait_policy"] = "PASSIVE"
    text = _bench_report.markdown(data)
    assert "its OpenMP workers under `OMP_WAIT_POLICY=PASSIVE`, ONNX Runtime" in text
    assert "one call each, every peer taking the same buffer sets in turn (one more" in text
    assert "rounds interleaved in the orders of a balanced Latin square (each library" in text
    assert "equally often), the libraries relabeled at random every few cycles (none" in text
    # a run from before the relabeling: its note has no "relabeled", nor has the report
    data["protocols"] = dict(_bench.PROTOCOL_NOTES, cold="rounds interleaved, in the orders of "
                             "a balanced Latin square (each library after every other)")
    text = _bench_report.markdown(data)
    assert "every other equally often), one call each" in text and "relabeled" not in text
    text = _bench_report.markdown(dict(data, protocols={}))
    readme = tmp_path / "README.md"
    readme.write_text("intro\n%s\nold\n%s\ntail\n" % (_bench_report.BEGIN, _bench_report.END))
    _bench_report.replace_section(str(readme), text)
    assert readme.read_text() == "intro\n" + text + "tail\n"


def test_markdown_names_the_sizes_measured_not_the_whole_ladder():
    data = {"machine": {"cpu": "CPU", "cores": 2, "caches": [], "active_isa": "scalar",
                        "python": "3", "numpy": "2", "dmlcpu": "0"},
            "rows": [_row("JOIN", "float32", size, 1, "cold", dmlcpu=1.0, numpy=2.0)
                     for size in ("32M", "4M")]}
    assert "lowest, over the sizes 4M, 32M (largest" in _bench_report.markdown(data)


def test_markdown_links_are_relative_to_the_page_it_goes_into():
    data = {"machine": {"cpu": "CPU", "cores": 2, "caches": [], "active_isa": "scalar",
                        "python": "3", "numpy": "2", "dmlcpu": "0"},
            "rows": [_row("JOIN", "float32", "8M", 1, "cold", dmlcpu=1.0, numpy=2.0)]}
    full, plots = "benchmarks/results/bench.md", "benchmarks/results/plots"
    at_root = _bench_report.markdown(data, plots, full)
    assert "(benchmarks/results/bench.md)" in at_root
    assert "![JOIN](benchmarks/results/plots/join.png)" in at_root
    in_docs = _bench_report.markdown(data, plots, full, "docs")
    assert "[`benchmarks/results/bench.md`](../benchmarks/results/bench.md)" in in_docs
    assert "![JOIN](../benchmarks/results/plots/join.png)" in in_docs


def test_large_buffers_sit_where_their_slot_says_and_huge_pages_fit_all_of_them():
    for shape, dtype, slot in (((3, 1 << 20), np.float16, 0), ((1 << 21,), np.int8, 5),
                               ((128, 128), np.float64, 9), ((5, 7), np.float64, 1)):
        a = _bench_timing.placed(shape, dtype, slot)
        assert a.shape == shape and a.dtype == dtype and a.flags.c_contiguous
        if a.nbytes >= 128 << 10:
            assert a.ctypes.data % (2 << 20) == (67 * slot % 512) * 4096 + 16
            base = a.base.ctypes.data  # the huge pages that cover the buffer lie in the block
            first = a.ctypes.data - a.ctypes.data % (2 << 20)
            last = -(-(a.ctypes.data + a.nbytes) // (2 << 20)) * (2 << 20)
            assert base <= first and last <= base + a.base.nbytes
    for slot in range(0, 512, 5):  # every page offset class, wherever NumPy's block starts
        a = _bench_timing.placed((128 << 10,), np.uint8, slot)
        last = -(-(a.ctypes.data + a.nbytes) // (2 << 20)) * (2 << 20)
        assert a.ctypes.data % (2 << 20) == (67 * slot % 512) * 4096 + 16
        assert last <= a.base.ctypes.data + a.base.nbytes
    source = np.arange(1 << 20, dtype=np.float32).reshape(1024, 1024)
    copy = _bench_timing.placed_copy(source, 2)
    assert copy.ctypes.data % (2 << 20) == 134 * 4096 + 16 and np.array_equal(copy, source)


def test_paired_ratio_is_the_median_of_the_per_round_ratios():
    # per round: 2, 2, 2 (both slowed 5x by a burst of load) and 4; the ratio of the medians
    # (1 and 4) would say 4
    samples = [[1.0, 1.0, 5.0, 1.0], [2.0, 2.0, 10.0, 4.0]]
    assert _bench_timing.paired(samples, 1) == 2.0
    assert _bench_timing.paired(samples, 0, 1) == 0.5


def test_report_ratios_are_the_paired_ones_where_recorded():
    row = _row("JOIN", "float32", "8M", 1, "cold", dmlcpu=1.0, ort=0.9, torch=1.2)
    assert _bench_report.ratio(row) == pytest.approx(0.9)  # a saved run without pairing
    row["paired"] = {"ort": 1.1, "torch": 1.05}
    assert _bench_report.best_rival(row) == ("torch", 1.05)
    assert _bench_report.ratio(row) == 1.05


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 6])
def test_orders_are_a_balanced_latin_square(count):
    """Over a cycle of the rounds' orders each callable takes every position equally often and
    immediately follows every other one equally often (never itself)."""
    orders = _bench_timing.balanced_orders(count)
    assert all(sorted(order) == list(range(count)) for order in orders)
    positions = Counter((i, p) for order in orders for p, i in enumerate(order))
    assert set(positions) == {(i, p) for i in range(count) for p in range(count)}
    assert len(set(positions.values())) == 1
    follows = Counter(pair for order in orders for pair in zip(order, order[1:]))
    assert set(follows) == {(a, b) for a in range(count) for b in range(count) if a != b}
    assert len(set(follows.values())) <= 1


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_round_orders_relabel_each_balanced_cycle(count):
    """The rounds' orders come in cycles, each the balanced square under one relabeling for
    count + 1 cycles at a time (so each cycle is balanced), and the relabelings spread the
    callable two calls back: in the square alone it is always a list neighbour (c +- 1)."""
    square = _bench_timing.balanced_orders(count)
    period = (count + 1) * len(square)
    orders = list(itertools.islice(_bench_timing.round_orders(count), 40 * period))
    labelings = []
    for start in range(0, len(orders), period):
        label = dict(zip(square[0], orders[start]))
        assert orders[start:start + period] == [[label[i] for i in order]
                                                for order in square] * (count + 1)
        labelings.append(tuple(sorted(label.items())))
    assert len(set(labelings)) > 1
    two_back = {(order[p - 2], order[p]) for order in orders for p in range(2, count)}
    if count >= 4:
        assert two_back == {(a, b) for a in range(count) for b in range(count) if a != b}
    square_two_back = {(order[p - 2], order[p]) for order in square for p in range(2, count)}
    assert all((b - a) % count in (1, count - 1) for a, b in square_two_back)


@pytest.mark.parametrize("protocol", ["cold", "warm"])
def test_rounds_follow_the_balanced_orders(protocol, monkeypatch):
    """Round r runs the callables in the r-th order of round_orders (3 callables: cycles of 6,
    relabeled every 4), so none always follows the same one; each callable's samples stay its
    own (a fake clock that each callable advances by its own step)."""
    clock = [0.0]
    log = []
    monkeypatch.setattr(_bench_timing.time, "perf_counter", lambda: clock[0])

    def recorder(name, seconds):
        def call():
            log.append(name)
            clock[0] += seconds
        return call
    fns = [recorder("a", 1e-4), recorder("b", 1e-3), recorder("c", 3e-3)]
    medians, samples = _bench_timing.PROTOCOLS[protocol](fns, budget=0.0, min_rounds=7,
                                                          max_rounds=7)
    # set-up calls first, then per round each callable's calls together (warm: untimed + batch),
    # which these runs of one name count once (a round ending with the name the next begins with
    # too)
    def runs(names):
        return [name for i, name in enumerate(names) if i == 0 or names[i - 1] != name]
    orders = itertools.islice(_bench_timing.round_orders(3), 7)
    rounds = runs("".join("abc"[i] for order in orders for i in order))
    assert runs(log)[-len(rounds):] == rounds
    assert samples == [[pytest.approx(t)] * 7 for t in (1e-4, 1e-3, 3e-3)]
    assert medians == [pytest.approx(1e-4), pytest.approx(1e-3), pytest.approx(3e-3)]


@pytest.mark.parametrize("protocol", ["cold", "warm"])
def test_alternatives_rotate_through_the_buffer_sets(protocol):
    """Given each of 3 callables as alternatives over 4 buffer sets, the c-th call (or batch)
    takes set c % 4: each finds its set last touched 4 calls before, and over 4 cycles of the
    orders (24 rounds) every callable times each set 6 times."""
    log = []

    def on(name, k):
        return lambda: log.append((name, k))
    fns = [[on(name, k) for k in range(4)] for name in "abc"]
    _bench_timing.PROTOCOLS[protocol](fns, budget=0.0, min_rounds=24, max_rounds=24)
    runs = [entry for i, entry in enumerate(log) if i == 0 or log[i - 1] != entry]
    runs = runs[-72:]  # the rounds, after each alternative's set-up calls
    assert [k for _, k in runs] == [c % 4 for c in range(72)]
    for name in "abc":
        assert sorted(k for n, k in runs if n == name) == [0] * 6 + [1] * 6 + [2] * 6 + [3] * 6
