"""The seed pages' examples (DirectML's operator pages for SPLIT, SLICE, JOIN, TILE) and the SLICE1
example of docs/semantics.md, verbatim.

Each runs in extended mode (feature_level=None) and again in strict mode at the lowest feature
level where the operator exists with FLOAT32 at 4 dimensions, to show strict mode accepts them.
"""
import numpy as np
import pytest

import dmlcpu as dml
import reference
from conftest import assert_same_bits

# the lowest level with the operator, FLOAT32 and 4 dims (docs/feature-levels.md)
LOWEST = {"SPLIT": "1_0", "SLICE": "1_0", "JOIN": "1_0", "TILE": "1_0", "SLICE1": "2_1"}


def f32(values):
    return np.array(values, dtype=np.float32)


def levels(op):
    return pytest.mark.parametrize("feature_level", [None, LOWEST[op]])


SPLIT_INPUT = f32([[[[1, 2],
                     [3, 4],
                     [5, 6],
                     [7, 8],
                     [9, 10],
                     [11, 12]]]])


@levels("SPLIT")
def test_split_example_1_axis_2(feature_level):
    outputs = dml.split(SPLIT_INPUT, axis=2, output_axis_sizes=[2, 1, 3],
                        feature_level=feature_level)
    assert len(outputs) == 3
    assert_same_bits(outputs[0], f32([[[[1, 2],
                                        [3, 4]]]]))
    assert_same_bits(outputs[1], f32([[[[5, 6]]]]))
    assert_same_bits(outputs[2], f32([[[[7, 8],
                                        [9, 10],
                                        [11, 12]]]]))


@levels("SPLIT")
def test_split_example_2_axis_3(feature_level):
    outputs = dml.split(SPLIT_INPUT, axis=3, output_axis_sizes=[1, 1],
                        feature_level=feature_level)
    assert len(outputs) == 2
    assert_same_bits(outputs[0], f32([[[[1],
                                        [3],
                                        [5],
                                        [7],
                                        [9],
                                        [11]]]]))
    assert_same_bits(outputs[1], f32([[[[2],
                                        [4],
                                        [6],
                                        [8],
                                        [10],
                                        [12]]]]))


SLICE_INPUT = f32([[[[1, 2, 3, 4],
                     [5, 6, 7, 8],
                     [9, 10, 11, 12],
                     [13, 14, 15, 16]]]])


@levels("SLICE")
def test_slice_example_1_contiguous(feature_level):
    out = dml.slice(SLICE_INPUT, offsets=[0, 0, 1, 2], sizes=[1, 1, 3, 2], strides=[1, 1, 1, 1],
                    feature_level=feature_level)
    assert_same_bits(out, f32([[[[7, 8],
                                 [11, 12],
                                 [15, 16]]]]))


@levels("SLICE")
def test_slice_example_2_strided(feature_level):
    out = dml.slice(SLICE_INPUT, offsets=[0, 0, 1, 0], sizes=[1, 1, 2, 2], strides=[1, 1, 2, 3],
                    feature_level=feature_level)
    assert_same_bits(out, f32([[[[5, 8],
                                 [13, 16]]]]))


@levels("SLICE1")
def test_slice1_spec_example_negative_stride(feature_level):
    out = dml.slice1(SLICE_INPUT, input_window_offsets=[0, 0, 0, 1],
                     input_window_sizes=[1, 1, 4, 3], input_window_strides=[1, 1, -2, 2],
                     feature_level=feature_level)
    assert_same_bits(out, f32([[[[14, 16],
                                 [6, 8]]]]))


@levels("JOIN")
def test_join_example_1_one_possible_axis(feature_level):
    inputs = [f32([[[[1, 2, 3],
                     [4, 5, 6]]]]),
              f32([[[[7, 8, 9, 10],
                     [11, 12, 13, 14]]]])]
    out = dml.join(inputs, axis=3, feature_level=feature_level)
    assert_same_bits(out, f32([[[[1, 2, 3, 7, 8, 9, 10],
                                 [4, 5, 6, 11, 12, 13, 14]]]]))


JOIN_INPUTS = [f32([[[[1, 2],
                      [3, 4]]]]),
               f32([[[[5, 6],
                      [7, 8]]]]),
               f32([[[[9, 10],
                      [11, 12]]]])]


@levels("JOIN")
def test_join_example_2_axis_1(feature_level):
    out = dml.join(JOIN_INPUTS, axis=1, feature_level=feature_level)
    assert_same_bits(out, f32([[[[1, 2],
                                 [3, 4]],

                                [[5, 6],
                                 [7, 8]],

                                [[9, 10],
                                 [11, 12]]]]))


@levels("JOIN")
def test_join_example_2_axis_2(feature_level):
    out = dml.join(JOIN_INPUTS, axis=2, feature_level=feature_level)
    assert_same_bits(out, f32([[[[1, 2],
                                 [3, 4],
                                 [5, 6],
                                 [7, 8],
                                 [9, 10],
                                 [11, 12]]]]))


@levels("JOIN")
def test_join_example_2_axis_3(feature_level):
    out = dml.join(JOIN_INPUTS, axis=3, feature_level=feature_level)
    assert_same_bits(out, f32([[[[1, 2, 5, 6, 9, 10],
                                 [3, 4, 7, 8, 11, 12]]]]))


@levels("TILE")
def test_tile_example(feature_level):
    x = f32([[[[1, 2, 3],
                [4, 5, 6]]]])
    out = dml.tile(x, repeats=[1, 1, 3, 3], feature_level=feature_level)
    assert_same_bits(out, f32([[[[1, 2, 3, 1, 2, 3, 1, 2, 3],
                                 [4, 5, 6, 4, 5, 6, 4, 5, 6],
                                 [1, 2, 3, 1, 2, 3, 1, 2, 3],
                                 [4, 5, 6, 4, 5, 6, 4, 5, 6],
                                 [1, 2, 3, 1, 2, 3, 1, 2, 3],
                                 [4, 5, 6, 4, 5, 6, 4, 5, 6]]]]))


def test_slice1_does_not_exist_before_2_1():
    # the strict-mode runs above mean something only if strict mode can refuse: below SLICE1's
    # first level it must
    with pytest.raises(dml.InvalidArgumentError, match="SLICE1"):
        dml.slice1(SLICE_INPUT, input_window_offsets=[0, 0, 0, 1],
                   input_window_sizes=[1, 1, 4, 3], input_window_strides=[1, 1, -2, 2],
                   feature_level="2_0")


def test_the_references_reproduce_the_examples():
    # the property tests trust reference.py: it must agree with the pages too
    assert_same_bits(reference.split(SPLIT_INPUT, 2, [2, 1, 3])[1], f32([[[[5, 6]]]]))
    assert_same_bits(reference.split(SPLIT_INPUT, 3, [1, 1])[1],
                     f32([[[[2], [4], [6], [8], [10], [12]]]]))
    assert_same_bits(reference.slice(SLICE_INPUT, [0, 0, 1, 0], [1, 1, 2, 2], [1, 1, 2, 3]),
                     f32([[[[5, 8], [13, 16]]]]))
    assert_same_bits(reference.slice1(SLICE_INPUT, [0, 0, 0, 1], [1, 1, 4, 3], [1, 1, -2, 2]),
                     f32([[[[14, 16], [6, 8]]]]))
    assert_same_bits(reference.join(JOIN_INPUTS, 3), f32([[[[1, 2, 5, 6, 9, 10],
                                                            [3, 4, 7, 8, 11, 12]]]]))
    assert_same_bits(reference.tile(f32([[[[1, 2, 3], [4, 5, 6]]]]), [1, 1, 3, 3])[0, 0, :3, :4],
                     f32([[1, 2, 3, 1], [4, 5, 6, 4], [1, 2, 3, 1]]))
