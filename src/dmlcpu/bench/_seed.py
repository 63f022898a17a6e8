"""The seed pages' examples as tiny eager calls returning new arrays, against NumPy doing the same
and returning new arrays: the per-call cost, at one thread, calls back to back."""
import numpy as np

import dmlcpu
from ._report import relative
from ._timing import paired, spread, warm


def _seed_calls():
    x = np.arange(1, 13, dtype=np.float32).reshape(1, 1, 6, 2)
    y = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    joins = [np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3),
             np.arange(7, 15, dtype=np.float32).reshape(1, 1, 2, 4)]
    t = np.arange(1, 7, dtype=np.float32).reshape(1, 1, 2, 3)
    z = np.array([[[[2, 1, 3, 5], [3, 8, 7, 3], [9, 6, 2, 4]]]], np.float32)
    return [
        ("SPLIT (1,1,6,2) axis 2 into [2,1,3]",
         lambda: dmlcpu.split(x, axis=2, output_axis_sizes=[2, 1, 3]),
         lambda: [x[:, :, a:b].copy() for a, b in ((0, 2), (2, 3), (3, 6))]),
        ("SLICE (1,1,4,4) offsets [0,0,1,0] strides [1,1,2,3]",
         lambda: dmlcpu.slice(y, offsets=[0, 0, 1, 0], sizes=[1, 1, 2, 2], strides=[1, 1, 2, 3]),
         lambda: y[:, :, 1::2, 0::3].copy()),
        ("JOIN (1,1,2,3)+(1,1,2,4) axis 3", lambda: dmlcpu.join(joins, axis=3),
         lambda: np.concatenate(joins, axis=3)),
        ("TILE (1,1,2,3) x (1,1,3,3)", lambda: dmlcpu.tile(t, repeats=[1, 1, 3, 3]),
         lambda: np.tile(t, (1, 1, 3, 3))),
        ("CUMULATIVE_SUMMATION (1,1,3,4) axis 3",
         lambda: dmlcpu.cumulative_summation(z, axis=3), lambda: np.cumsum(z, axis=3)),
        ("CUMULATIVE_PRODUCT (1,1,3,4) axis 3",
         lambda: dmlcpu.cumulative_product(z, axis=3), lambda: np.cumprod(z, axis=3)),
    ]


def run_seed(budget, min_rounds, filter_text=None):
    rows = []
    for name, dml, numpy in _seed_calls():
        if filter_text and filter_text not in name:
            continue
        medians, samples = warm([dml, numpy], budget, min_rounds)
        rows.append({"name": name, "threads": 1, "protocol": "warm",
                     "seconds": {"dmlcpu": medians[0], "numpy": medians[1]},
                     "paired": {"numpy": paired(samples, 1)}, "spread": spread(samples[0])})
    return rows


def seed_table(rows):
    lines = ["| seed-page call (new arrays, back to back) | dmlcpu µs | NumPy µs | "
             "NumPy / dmlcpu (paired) |", "|---|---|---|---|"]
    for r in rows:
        dml, numpy = r["seconds"]["dmlcpu"], r["seconds"]["numpy"]
        value = relative(r, "numpy")
        lines.append("| %s | %.2f | %.2f | %s |" % (r["name"], dml * 1e6, numpy * 1e6,
                                                    "%.2f" % value if value >= 1 else
                                                    "**%.2f**" % value))
    return lines
