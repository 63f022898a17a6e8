"""A quick end-to-end check of an installed dmlcpu: every operator against NumPy.

usage: python smoke.py [--expect-isa ISA]
Used under emulated CPUs (qemu-user) where the full test suite would be too slow.
"""
import sys

import numpy as np

import dmlcpu as dml


def main(argv):
    config = dml._core._config()
    dml.show_config()
    if "--expect-isa" in argv:
        expected = argv[argv.index("--expect-isa") + 1]
        assert config["active_isa"] == expected, (config["active_isa"], expected)
    rng = np.random.default_rng(7)
    checked = 0
    for dtype in (np.int8, np.float16, np.float32, np.int64):
        x = rng.integers(-50, 50, size=(3, 40, 70)).astype(dtype)
        a, b = dml.split(x, axis=2, output_axis_sizes=[33, 37])
        assert np.array_equal(a, x[:, :, :33]) and np.array_equal(b, x[:, :, 33:])
        assert np.array_equal(dml.join([a, b], axis=2), x)
        assert np.array_equal(dml.slice(x, offsets=[0, 1, 3], sizes=[3, 13, 20],
                                        strides=[1, 3, 3]), x[:, 1::3, 3:63:3])
        assert np.array_equal(dml.slice1(x, input_window_offsets=[0, 0, 0],
                                         input_window_sizes=[3, 40, 70],
                                         input_window_strides=[-1, 2, -1]), x[::-1, ::2, ::-1])
        assert np.array_equal(dml.tile(x, repeats=[2, 1, 3]), np.tile(x, (2, 1, 3)))
        assert np.array_equal(dml.join([x.T.copy(), x.T.copy()], axis=0),
                              np.concatenate([x.T, x.T]))
        checked += 6
        if dtype in (np.int64, np.float32):
            for axis in (0, 2):
                got = dml.cumulative_summation(x, axis=axis)
                assert np.array_equal(got, np.cumsum(x, axis=axis, dtype=dtype)), (dtype, axis)
                checked += 1
    print(f"smoke: {checked} checks passed on active ISA {config['active_isa']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
