"""python -m dmlcpu bench: time every operator beside memcpy, NumPy, PyTorch and ONNX Runtime.

Each workload preallocates its outputs (``out=``) so only the operator is timed, and reports the
median time, GB/s over the ideal bytes (every input byte read once, every output byte written
once), the speed relative to a memcpy of the output's bytes measured in the same run (np.copyto
between two preallocated contiguous buffers), and the speed relative to NumPy (PyTorch and ONNX
Runtime when they are importable), at one thread and at all threads. Ratios above 1 mean dmlcpu
is faster. Timings on a shared machine are noisy: the spread (max/min of the middle half of the
samples) is printed with each row.
"""
import argparse
import json
import os
import platform
import sys
import time

import numpy as np

import dmlcpu
from dmlcpu import AxisDirection

DEC = AxisDirection.DECREASING


# ---------------------------------------------------------------------------- the machine

def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def cpu_model():
    text = _read("/proc/cpuinfo")
    if text:
        for line in text.splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def cache_sizes():
    """Per-level cache sizes from Linux sysfs, e.g. ['L1d 48K', 'L2 2048K', 'L3 307200K']."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    out = []
    if not os.path.isdir(base):
        return out
    for name in sorted(os.listdir(base)):
        level = _read(os.path.join(base, name, "level"))
        kind = _read(os.path.join(base, name, "type"))
        size = _read(os.path.join(base, name, "size"))
        if level and size and kind != "Instruction":
            out.append("L%s%s %s" % (level, "d" if kind == "Data" else "", size))
    return out


def machine_info():
    from . import _core
    config = _core._config()
    info = {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "caches": cache_sizes(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "dmlcpu": dmlcpu.__version__,
        "active_isa": config["active_isa"],
        "threads": config["num_threads"],
    }
    for name in ("torch", "onnxruntime"):
        module = _optional(name)
        if module is not None:
            info[name] = module.__version__
    return info


def _optional(name):
    try:
        return __import__(name)
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return None


# ---------------------------------------------------------------------------- timing

def measure(fns, budget, min_rounds=5, max_rounds=200):
    """Median seconds per call of each function, and the spread of the first (max/min of the
    middle half of its samples). The functions are timed in interleaved rounds, so a burst of
    load from other processes hits all of them alike and their ratios stay meaningful; calls
    are batched so each sample lasts about a millisecond."""
    batches = []
    for fn in fns:
        fn()  # warm up: first-touch page faults, lazy imports, pool start
        start = time.perf_counter()
        fn()
        batches.append(max(1, int(1e-3 / max(time.perf_counter() - start, 1e-7))))
    samples = [[] for _ in fns]
    deadline = time.perf_counter() + budget
    rounds = 0
    while rounds < max_rounds and (rounds < min_rounds or time.perf_counter() < deadline):
        for fn, batch, out in zip(fns, batches, samples):
            t0 = time.perf_counter()
            for _ in range(batch):
                fn()
            out.append((time.perf_counter() - t0) / batch)
        rounds += 1
    medians = []
    for out in samples:
        out.sort()
        medians.append(out[len(out) // 2])
    first = samples[0]
    middle = first[len(first) // 4: len(first) - len(first) // 4] or first
    return medians, middle[-1] / middle[0]


# ---------------------------------------------------------------------------- workloads

class Workload:
    """One operator call: dml(), numpy() and optional torch()/ort() callables over preallocated
    buffers, and the ideal bytes it moves."""

    def __init__(self, group, name, dml, numpy, read, written, torch=None, ort=None):
        self.group, self.name = group, name
        self.dml, self.numpy, self.torch, self.ort = dml, numpy, torch, ort
        self.read, self.written = read, written


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-100, 100, size=shape).astype(dtype)


def split_workload(shape, dtype, axis, sizes, tag):
    x = _data(shape, dtype)
    outs = [np.empty(shape[:axis] + (n,) + shape[axis + 1:], dtype) for n in sizes]
    bounds = np.cumsum([0] + list(sizes))
    views = [x[(slice(None),) * axis + (slice(a, b),)] for a, b in zip(bounds[:-1], bounds[1:])]

    def numpy_split():
        for o, v in zip(outs, views):
            np.copyto(o, v)
    torch_fn = None
    torch = _optional("torch")
    if torch is not None:
        tx, touts = torch.from_numpy(x), [torch.from_numpy(o) for o in outs]

        def torch_fn():
            for o, v in zip(touts, torch.split(tx, list(sizes), dim=axis)):
                o.copy_(v)
    ort = _ort_model("Split", [x], outs, axis=axis, split=list(sizes))
    return Workload("a", "SPLIT %s axis %d %s" % (_shape(shape), axis, tag),
                    lambda: dmlcpu.split(x, axis=axis, output_axis_sizes=sizes, outputs=outs),
                    numpy_split, x.nbytes, x.nbytes, torch_fn, ort)


def slice_workload(shape, dtype, index, offsets, sizes, strides, tag):
    x = _data(shape, dtype)
    out = np.empty(sizes, dtype)
    view = x[index]
    torch_fn = None
    torch = _optional("torch")
    if torch is not None and all(s > 0 for s in strides):
        tx, tout = torch.from_numpy(x), torch.from_numpy(out)
        torch_fn = lambda: tout.copy_(tx[index])  # noqa: E731
    return Workload("b", "SLICE %s %s" % (_shape(shape), tag),
                    lambda: dmlcpu.slice(x, offsets=offsets, sizes=sizes, strides=strides, out=out),
                    lambda: np.copyto(out, view), out.nbytes, out.nbytes, torch_fn,
                    _ort_slice(x, out, offsets, sizes, strides))


def join_workload(shape, dtype, axis, count):
    xs = [_data(shape, dtype, seed=i) for i in range(count)]
    out_shape = list(shape)
    out_shape[axis] *= count
    out = np.empty(out_shape, dtype)
    torch_fn = None
    torch = _optional("torch")
    if torch is not None:
        txs, tout = [torch.from_numpy(a) for a in xs], torch.from_numpy(out)
        torch_fn = lambda: torch.cat(txs, dim=axis, out=tout)  # noqa: E731
    return Workload("c", "JOIN %dx%s axis %d" % (count, _shape(shape), axis),
                    lambda: dmlcpu.join(xs, axis=axis, out=out),
                    lambda: np.concatenate(xs, axis=axis, out=out),
                    out.nbytes, out.nbytes, torch_fn, _ort_model("Concat", xs, [out], axis=axis))


def tile_workload(shape, dtype, repeats):
    x = _data(shape, dtype)
    out = np.empty([s * r for s, r in zip(shape, repeats)], dtype)

    def numpy_tile():
        # np.tile has no out=: broadcast assignment into a repeat-split view of out is its
        # allocation-free equivalent
        view = out.reshape([v for s, r in zip(shape, repeats) for v in (r, s)])
        np.copyto(view, x.reshape([v for s in shape for v in (1, s)]))
    torch_fn = None
    torch = _optional("torch")
    if torch is not None:
        tx, tout = torch.from_numpy(x), torch.from_numpy(out)
        torch_fn = lambda: tout.copy_(tx.repeat(*repeats))  # noqa: E731
    reps = np.array(repeats, dtype=np.int64)
    return Workload("d", "TILE %s x %s" % (_shape(shape), _shape(repeats)),
                    lambda: dmlcpu.tile(x, repeats=repeats, out=out), numpy_tile,
                    x.nbytes, out.nbytes, torch_fn,
                    _ort_model("Tile", [x], [out], constants=[reps]))


def scan_workload(op, shape, dtype, axis, reverse, exclusive):
    x = _data(shape, dtype)
    if op == "prod" and x.dtype.kind == "f":
        x = (1 + x / 1000).astype(dtype)  # keep products finite
    out = np.empty(shape, dtype)
    kw = {"axis": axis, "out": out}
    if reverse:
        kw["axis_direction"] = DEC
    if op == "sum":
        kw["has_exclusive_sum"] = exclusive
        dml = lambda: dmlcpu.cumulative_summation(x, **kw)  # noqa: E731
        np_op = np.cumsum
    else:
        kw["has_exclusive_product"] = exclusive
        dml = lambda: dmlcpu.cumulative_product(x, **kw)  # noqa: E731
        np_op = np.cumprod
    flip = (slice(None),) * axis + (slice(None, None, -1),)

    # NumPy has no reverse or exclusive scan: the reverse inclusive scan through flipped views
    # is the same amount of work and stands in for it
    def numpy_scan():
        if reverse:
            np_op(x[flip], axis=axis, out=out[flip])
        else:
            np_op(x, axis=axis, out=out)
    torch_fn = None
    torch = _optional("torch")
    if torch is not None and not reverse:
        tx, tout = torch.from_numpy(x), torch.from_numpy(out)
        t_op = torch.cumsum if op == "sum" else torch.cumprod
        torch_fn = lambda: t_op(tx, dim=axis, out=tout)  # noqa: E731
    ort = None
    if op == "sum":
        ort = _ort_model("CumSum", [x], [out], constants=[np.array(axis, dtype=np.int64)],
                         reverse=int(reverse), exclusive=int(exclusive))
    name = "CUM_%s %s %s axis %d %s" % ("SUM" if op == "sum" else "PROD", _shape(shape),
                                        np.dtype(dtype).name, axis,
                                        "reverse exclusive" if reverse else "forward inclusive")
    return Workload("e", name, dml, numpy_scan, x.nbytes, out.nbytes, torch_fn, ort)


def _shape(shape):
    return "(" + ",".join(str(s) for s in shape) + ")"


# ---------------------------------------------------------------------------- ONNX Runtime

def _ort_model(op, inputs, outputs, constants=(), **attrs):
    """A callable running a one-node ONNX model into the preallocated outputs, or None when
    onnx or onnxruntime is missing. Constant inputs (repeats, axis) become initializers."""
    onnx, ort = _optional("onnx"), _optional("onnxruntime")
    if onnx is None or ort is None:
        return None
    try:
        from onnx import helper, numpy_helper
        elem = helper.np_dtype_to_tensor_dtype(inputs[0].dtype)
        in_names = ["x%d" % i for i in range(len(inputs))]
        const_names = ["c%d" % i for i in range(len(constants))]
        out_names = ["y%d" % i for i in range(len(outputs))]
        if op == "Split" and "split" in attrs:
            split = np.array(attrs.pop("split"), dtype=np.int64)
            constants = list(constants) + [split]
            const_names.append("split")
        node = helper.make_node(op, in_names + const_names, out_names, **attrs)
        graph = helper.make_graph(
            [node], op,
            [helper.make_tensor_value_info(n, elem, a.shape) for n, a in zip(in_names, inputs)],
            [helper.make_tensor_value_info(n, elem, a.shape) for n, a in zip(out_names, outputs)],
            [numpy_helper.from_array(c, n) for c, n in zip(constants, const_names)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        # onnx writes its newest IR version, which an older onnxruntime refuses; opset 18
        # needs IR 8, and every onnxruntime since 1.14 reads IR 9
        model.ir_version = 9
        session = ort.InferenceSession(model.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
        binding = session.io_binding()
        for n, a in zip(in_names, inputs):
            binding.bind_cpu_input(n, a)
        for n, a in zip(out_names, outputs):
            binding.bind_output(n, "cpu", 0, a.dtype, a.shape, a.ctypes.data)
        return lambda: session.run_with_iobinding(binding)
    except Exception:  # noqa: BLE001 - an op ORT lacks for this type is skipped, not fatal
        return None


def _ort_slice(x, out, offsets, sizes, strides):
    starts = np.array(offsets, dtype=np.int64)
    ends = starts + (np.array(sizes, dtype=np.int64) - 1) * np.array(strides) + 1
    return _ort_model("Slice", [x], [out],
                      constants=[starts, ends, np.arange(x.ndim, dtype=np.int64),
                                 np.array(strides, dtype=np.int64)])


# ---------------------------------------------------------------------------- the suite

BIG = (64, 256, 1024)


def copy_workloads(dtype, parts):
    """Workloads a-d for one dtype; parts selects from 'a', 'b', 'c', 'd'."""
    w = []
    if "a" in parts:
        w.append(split_workload(BIG, dtype, 1, [64] * 4, "into 4"))
        w.append(split_workload(BIG, dtype, 2, [100, 300, 624], "into [100,300,624]"))
    if "b" in parts:
        w.append(slice_workload(BIG, dtype, np.s_[:, 1::2, 3:900:3], [0, 1, 3], [64, 128, 299],
                                [1, 2, 3], "[:, 1::2, 3:900:3]"))
        w.append(slice_workload(BIG, dtype, np.s_[:, 10:200, :], [0, 10, 0], [64, 190, 1024],
                                [1, 1, 1], "[:, 10:200, :]"))
    if "c" in parts:
        w.append(join_workload((64, 64, 1024), dtype, 1, 4))
        w.append(join_workload((64, 64, 1024), dtype, 2, 4))
    if "d" in parts:
        w.append(tile_workload((1, 64, 32, 32), dtype, (8, 1, 4, 4)))
    return w


def scan_workloads(dtypes, quick):
    w = []
    for dtype in dtypes:
        for op in ("sum", "prod"):
            for axis in (0, 1):
                for reverse, exclusive in ((False, False), (True, True)):
                    if quick and (reverse or axis == 0 and (op == "prod" or dtype != np.float32)):
                        continue
                    w.append(scan_workload(op, (4096, 4096), dtype, axis, reverse, exclusive))
    w.append(scan_workload("sum", (10 ** 7,), np.int64, 0, False, False))
    return w


def seed_workloads():
    """The seed pages' examples (tiny): per-call overhead."""
    g = "g"
    x_split = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 6, 2)
    split_outs = [np.empty((1, 1, n, 2), np.float32) for n in (2, 1, 3)]
    x_slice = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    slice_out = np.empty((1, 1, 2, 2), np.float32)
    joins = [np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3),
             np.arange(7, 15, dtype=np.float32).reshape(1, 1, 2, 4)]
    join_out = np.empty((1, 1, 2, 7), np.float32)
    x_tile = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3)
    tile_out = np.empty((1, 1, 6, 9), np.float32)
    bounds = [(0, 2), (2, 3), (3, 6)]

    def numpy_split():
        for o, (a, b) in zip(split_outs, bounds):
            np.copyto(o, x_split[:, :, a:b])
    return [
        Workload(g, "SPLIT (1,1,6,2) axis 2 (seed)",
                 lambda: dmlcpu.split(x_split, axis=2, output_axis_sizes=[2, 1, 3],
                                      outputs=split_outs),
                 lambda: np.split(x_split, [2, 3], axis=2), x_split.nbytes, x_split.nbytes),
        Workload(g, "SPLIT (1,1,6,2) axis 2 (seed), NumPy copying", lambda: dmlcpu.split(
            x_split, axis=2, output_axis_sizes=[2, 1, 3], outputs=split_outs), numpy_split,
            x_split.nbytes, x_split.nbytes),
        Workload(g, "SLICE (1,1,4,4) strided (seed)",
                 lambda: dmlcpu.slice(x_slice, offsets=[0, 0, 1, 0], sizes=[1, 1, 2, 2],
                                      strides=[1, 1, 2, 3], out=slice_out),
                 lambda: np.copyto(slice_out, x_slice[:, :, 1::2, 0::3]),
                 slice_out.nbytes, slice_out.nbytes),
        Workload(g, "JOIN (1,1,2,3)+(1,1,2,4) axis 3 (seed)",
                 lambda: dmlcpu.join(joins, axis=3, out=join_out),
                 lambda: np.concatenate(joins, axis=3, out=join_out),
                 join_out.nbytes, join_out.nbytes),
        Workload(g, "TILE (1,1,2,3) x (1,1,3,3) (seed)",
                 lambda: dmlcpu.tile(x_tile, repeats=[1, 1, 3, 3], out=tile_out),
                 lambda: np.tile(x_tile, (1, 1, 3, 3)), x_tile.nbytes, tile_out.nbytes),
    ]


def suite(quick):
    w = copy_workloads(np.float32, "abcd")
    w += scan_workloads([np.float32, np.int32], quick)
    extra = {np.float16: "abcd", np.int8: "abcd", np.float64: "abcd"}
    if quick:
        extra = {np.float16: "ab", np.int8: "d", np.float64: "c"}
    for dtype, parts in extra.items():
        for item in copy_workloads(dtype, parts):
            item.group = "f"
            item.name += " " + np.dtype(dtype).name
            w.append(item)
    if not quick:
        for item in scan_workloads([np.float16, np.float64], True)[:-1]:
            item.group = "f"
            w.append(item)
    for item in w:
        if item.group in "abcd" and "float32" not in item.name:
            item.name += " float32"
    return w + seed_workloads()


# ---------------------------------------------------------------------------- running

def memcpy_of(nbytes):
    a = np.ones(nbytes, np.uint8)
    b = np.empty(nbytes, np.uint8)
    return lambda: np.copyto(b, a)


def run_workload(w, budget, all_threads, min_rounds=5):
    """Times dmlcpu at one thread and at all threads, each time interleaved with the memcpy,
    NumPy (and PyTorch, ONNX Runtime) references, which run as they always do."""
    row = {"group": w.group, "name": w.name, "bytes": w.read + w.written}
    memcpy = memcpy_of(w.written)
    others = [("numpy", w.numpy)] + [(n, getattr(w, n)) for n in ("torch", "ort")
                                     if getattr(w, n) is not None]
    runs = [("1", 1)] + ([("all", all_threads)] if all_threads > 1 else [])
    try:
        for label, n in runs:
            dmlcpu.set_num_threads(n)
            fns = [w.dml, memcpy] + [fn for _, fn in others]
            try:
                medians, spread = measure(fns, budget, min_rounds)
            except Exception:  # noqa: BLE001 - a failing comparison is dropped, dmlcpu kept
                fns = fns[:2] + [w.numpy]
                medians, spread = measure(fns, budget, min_rounds)
            row["dml_" + label] = medians[0]
            row["spread_" + label] = spread
            row["memcpy_" + label] = medians[1]
            for (name, _), t in zip(others, medians[2:]):
                row["%s_%s" % (name, label)] = t
    finally:
        dmlcpu.set_num_threads(all_threads)
    return row


def format_row(row):
    cells = ["%-56s" % row["name"]]
    for label in ("1", "all"):
        t = row.get("dml_" + label)
        if t is None:
            continue
        cells.append("%s %9.1f us %5.1f GB/s memcpy %5.2f numpy %6.2f" % (
            "| all:" if label == "all" else "1 thr:", t * 1e6, row["bytes"] / t / 1e9,
            row["memcpy_" + label] / t, row["numpy_" + label] / t))
        for name in ("torch", "ort"):
            if name + "_" + label in row:
                cells.append("%s %5.2f" % (name, row[name + "_" + label] / t))
    cells.append("(spread %.2f)" % row.get("spread_1", 1.0))
    return " ".join(cells)


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("--plot needs matplotlib, which is not installed (pip install matplotlib); "
              "no plot written", file=sys.stderr)
        return False
    shown = [r for r in rows if r.get("dml_1") and r["group"] != "g"]
    names = [r["name"] for r in shown]
    peers = [("dml", "dmlcpu"), ("memcpy", "memcpy, same bytes"), ("numpy", "NumPy"),
             ("torch", "PyTorch"), ("ort", "ONNX Runtime")]
    peers = [(key, label) for key, label in peers if any(key + "_1" in r for r in shown)]
    fig, ax = plt.subplots(figsize=(10, 0.22 * len(names) * len(peers) + 1.5))
    y = np.arange(len(names))
    height = 0.8 / len(peers)
    for i, (key, label) in enumerate(peers):
        ax.barh(y - 0.4 + (i + 0.5) * height,
                [r["bytes"] / r[key + "_1"] / 1e9 if key + "_1" in r else 0 for r in shown],
                height, label=label)
    ax.set_yticks(y, names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("GB/s, one thread (every input byte read once, every output byte written "
                  "once)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m dmlcpu bench", description=__doc__.split(
        "\n")[0])
    parser.add_argument("--quick", action="store_true", help="a subset, shorter timings (<30 s)")
    parser.add_argument("--json", metavar="FILE", help="write the machine and every row as JSON")
    parser.add_argument("--plot", metavar="FILE.png", help="bar chart of the ratios (matplotlib)")
    parser.add_argument("--filter", metavar="TEXT", help="only workloads whose name contains TEXT")
    args = parser.parse_args(argv)

    info = machine_info()
    all_threads = dmlcpu.get_num_threads()
    print("machine: %s, %s cores, caches %s" % (info["cpu"], info["cores"],
                                                " ".join(info["caches"]) or "unknown"))
    print("versions: Python %s, NumPy %s, dmlcpu %s%s" % (
        info["python"], info["numpy"], info["dmlcpu"],
        "".join(", %s %s" % (k, info[k]) for k in ("torch", "onnxruntime") if k in info)))
    print("active ISA: %s; threads: %d (ratios > 1: dmlcpu faster; memcpy = np.copyto of the "
          "output's bytes)" % (info["active_isa"], all_threads))
    budget, min_rounds = (0.12, 4) if args.quick else (1.5, 5)
    rows = []
    group = None
    for w in suite(args.quick):
        if args.filter and args.filter not in w.name:
            continue
        if w.group != group:
            group = w.group
            print("-- %s" % group)
        row = run_workload(w, budget, all_threads, min_rounds)
        rows.append(row)
        print(format_row(row), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "rows": rows}, f, indent=1)
    if args.plot and not plot(rows, args.plot):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
