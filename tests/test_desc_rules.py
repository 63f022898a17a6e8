"""compile_operator: one invalid descriptor per rule (exact messages), valid ones at each boundary.

Expected messages and the per-level tables below are written out by hand from docs/semantics.md and
docs/feature-levels.md, never computed by dmlcpu.
"""
import pytest

import dmlcpu as dml
from dmlcpu import (CumulativeProductOperatorDesc as CumProd,
                    CumulativeSummationOperatorDesc as CumSum, InvalidArgumentError,
                    JoinOperatorDesc as Join, Slice1OperatorDesc as Slice1,
                    SliceOperatorDesc as Slice, SplitOperatorDesc as Split, TensorDesc,
                    TileOperatorDesc as Tile)
from dmlcpu._desc import check_operator

U32 = 2**32 - 1


def T(sizes, data_type="FLOAT32", **kwargs):
    return TensorDesc(data_type, sizes, **kwargs)


def split4(**out_kwargs):
    return Split(T([1, 1, 4, 2]), [T([1, 1, 2, 2]), T([1, 1, 2, 2], **out_kwargs)], 2)


# (id, descriptor, feature level, every violation in order)
INVALID = [
    # ---- TensorDesc rules
    ("size-zero", Tile(T([1, 0]), T([1, 0]), [1, 1]), None,
     ["TILE: InputTensor.Sizes[1] is 0 but must be at least 1",
      "TILE: OutputTensor.Sizes[1] is 0 but must be at least 1"]),
    ("no-dims", Tile(T([]), T([]), []), None,
     ["TILE: InputTensor.DimensionCount is 0 but must be between 1 and 8 in extended mode"]),
    ("nine-dims", Tile(T([1] * 9), T([1] * 9), [1] * 9), None,
     ["TILE: InputTensor.DimensionCount is 9 but must be between 1 and 8 in extended mode"]),
    ("dims-differ", Tile(T([2, 2]), T([4]), [1, 2]), None,
     ["TILE: OutputTensor.DimensionCount is 1 but must equal InputTensor.DimensionCount (2)"]),
    ("size-33-bits-extended", Split(T([2**32]), [T([2**32])], 0), None,
     [f"SPLIT: InputTensor.Sizes[0] is {2**32} but must fit in 32 bits (at most {U32})",
      f"SPLIT: OutputTensors[0].Sizes[0] is {2**32} but must fit in 32 bits (at most {U32})"]),
    ("size-33-bits-strict", Split(T([2**32]), [T([2**32])], 0), "6_4",
     [f"SPLIT: InputTensor.Sizes[0] is {2**32} but must fit in 32 bits (at most {U32})",
      f"SPLIT: OutputTensors[0].Sizes[0] is {2**32} but must fit in 32 bits (at most {U32})"]),
    ("element-count-extended", Tile(T([2**16, 2**16], "UINT8"), T([2**16, 2**16], "UINT8"),
                                    [1, 1]), None,
     [f"TILE: InputTensor element count is {2**32} but must be at most {U32} (2^32 - 1)",
      f"TILE: OutputTensor element count is {2**32} but must be at most {U32} (2^32 - 1)"]),
    ("element-count-strict", Tile(T([2**16, 2**16], "UINT8"), T([2**16, 2**16], "UINT8"),
                                  [1, 1]), "6_4",
     [f"TILE: InputTensor element count is {2**32} but must be at most {U32} (2^32 - 1)",
      f"TILE: OutputTensor element count is {2**32} but must be at most {U32} (2^32 - 1)"]),
    ("strides-count", split4(strides=[4, 2, 1]), None,
     ["SPLIT: OutputTensors[1].Strides count is 3 but must equal "
      "OutputTensors[1].DimensionCount (4)"]),
    ("stride-negative", split4(strides=[4, 4, 2, -1]), None,
     ["SPLIT: OutputTensors[1].Strides[3] is -1 but must be at least 0 (a UINT)"]),
    ("stride-33-bits", split4(strides=[2**32, 4, 2, 1]), "3_0",
     [f"SPLIT: OutputTensors[1].Strides[0] is {2**32} but must fit in 32 bits "
      f"(at most {U32})"]),
    ("total-below-minimum", split4(total_tensor_size_in_bytes=12), None,
     ["SPLIT: OutputTensors[1].TotalTensorSizeInBytes is 12 but must be at least "
      "DMLCalcBufferTensorSize (16)"]),
    ("total-below-strided-minimum", split4(strides=[8, 8, 4, 1], total_tensor_size_in_bytes=20),
     None, ["SPLIT: OutputTensors[1].TotalTensorSizeInBytes is 20 but must be at least "
            "DMLCalcBufferTensorSize (24)"]),
    ("total-negative", split4(total_tensor_size_in_bytes=-4), None,
     ["SPLIT: OutputTensors[1].TotalTensorSizeInBytes is -4 but must fit in 64 bits "
      "(a UINT64)"]),
    ("alignment-not-power-of-two", split4(guaranteed_base_offset_alignment=12), None,
     ["SPLIT: OutputTensors[1].GuaranteedBaseOffsetAlignment is 12 but must be 0 or a power "
      "of two at least the element size (4)"]),
    ("alignment-below-element", split4(guaranteed_base_offset_alignment=2), None,
     ["SPLIT: OutputTensors[1].GuaranteedBaseOffsetAlignment is 2 but must be 0 or a power "
      "of two at least the element size (4)"]),
    ("alignment-33-bits", split4(guaranteed_base_offset_alignment=2**32), None,
     [f"SPLIT: OutputTensors[1].GuaranteedBaseOffsetAlignment is {2**32} but must fit in 32 "
      f"bits (at most {U32})"]),
    ("flags-unknown", split4(flags=2), None,
     ["SPLIT: OutputTensors[1].Flags is 2 but must be DML_TENSOR_FLAG_NONE (0) or "
      "DML_TENSOR_FLAG_OWNED_BY_DML (1)"]),
    ("owned-by-dml-output", split4(flags=1), None,
     ["SPLIT: OutputTensors[1].Flags is DML_TENSOR_FLAG_OWNED_BY_DML (1) but must be "
      "DML_TENSOR_FLAG_NONE (0) on an output"]),
    ("output-broadcast", split4(strides=[0, 0, 0, 1]), None,
     ["SPLIT: OutputTensors[1].Strides is [0, 0, 0, 1] but must map every coordinate of "
      "Sizes [1, 1, 2, 2] to its own element (an output must not overlap itself)"]),
    ("output-tangled", Tile(T([2, 2]), T([2, 2], strides=[1, 1]), [1, 1]), None,
     ["TILE: OutputTensor.Strides is [1, 1] but must map every coordinate of Sizes [2, 2] to "
      "its own element (an output must not overlap itself)"]),
    ("unknown-type-name", Tile(T([2], "FLOAT128"), T([2], "FLOAT128"), [1]), None,
     ["TILE: InputTensor.DataType is 'FLOAT128' but must be one of FLOAT64, FLOAT32, FLOAT16, "
      "INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8 in extended mode"]),
    ("unknown-type-value", Tile(T([2], 0), T([2], 0), [1]), "6_4",
     ["TILE: InputTensor.DataType is UNKNOWN but must be one of FLOAT32, FLOAT16, INT64, "
      "INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8 at feature level 6_4"]),
    ("types-differ", Tile(T([2]), T([2], "INT32"), [1]), None,
     ["TILE: OutputTensor.DataType is INT32 but must equal InputTensor.DataType (FLOAT32)"]),
    # ---- SPLIT
    ("split-no-outputs", Split(T([2]), [], 0), None,
     ["SPLIT: OutputCount is 0 but must be at least 1"]),
    ("split-axis", Split(T([2, 2]), [T([2, 2])], 2), None,
     ["SPLIT: Axis is 2 but must be in [0, 1] (DimensionCount - 1)"]),
    ("split-off-axis", Split(T([1, 1, 6, 2]), [T([1, 1, 2, 2]), T([1, 1, 4, 3])], 2), None,
     ["SPLIT: OutputTensors[1].Sizes[3] is 3 but must equal InputTensor.Sizes[3] (2); only "
      "Axis 2 may differ"]),
    ("split-sum", Split(T([1, 1, 6, 2]), [T([1, 1, 2, 2]), T([1, 1, 3, 2])], 2), None,
     ["SPLIT: the sum of OutputTensors[*].Sizes[2] is 5 but must equal InputTensor.Sizes[2] "
      "(6)"]),
    ("split-int8-at-2_0", Split(T([1, 1, 2, 1], "INT8"), [T([1, 1, 2, 1], "INT8")], 2), "2_0",
     ["SPLIT: InputTensor.DataType is INT8 but must be one of FLOAT32, FLOAT16, INT32, INT16, "
      "UINT32, UINT16 at feature level 2_0"]),
    ("split-3-dims-at-2_1", Split(T([1, 2, 1]), [T([1, 2, 1])], 1), "2_1",
     ["SPLIT: InputTensor.DimensionCount is 3 but must be 4 at feature level 2_1"]),
    # ---- JOIN
    ("join-no-inputs", Join([], T([2]), 0), None,
     ["JOIN: InputCount is 0 but must be at least 1"]),
    ("join-axis", Join([T([2])], T([2]), -1), None,
     ["JOIN: Axis is -1 but must be in [0, 0] (DimensionCount - 1)"]),
    ("join-off-axis", Join([T([2, 3]), T([1, 2])], T([3, 3]), 0), None,
     ["JOIN: InputTensors[1].Sizes[1] is 2 but must equal OutputTensor.Sizes[1] (3); only "
      "Axis 0 may differ"]),
    ("join-sum", Join([T([2, 3]), T([2, 3])], T([5, 3]), 0), None,
     ["JOIN: the sum of InputTensors[*].Sizes[0] is 4 but must equal OutputTensor.Sizes[0] "
      "(5)"]),
    ("join-5-dims-at-2_1", Join([T([1] * 5)], T([1] * 5), 0), "2_1",
     ["JOIN: OutputTensor.DimensionCount is 5 but must be 4 at feature level 2_1"]),
    ("join-6-dims-at-3_0", Join([T([1] * 6)], T([1] * 6), 0), "3_0",
     ["JOIN: OutputTensor.DimensionCount is 6 but must be between 4 and 5 at feature level 3_0"]),
    ("join-float64-at-4_0", Join([T([1, 1, 1, 2], "FLOAT64")], T([1, 1, 1, 2], "FLOAT64"), 3),
     "4_0", ["JOIN: OutputTensor.DataType is FLOAT64 but must be one of FLOAT32, FLOAT16, "
             "INT32, INT16, INT8, UINT32, UINT16, UINT8 at feature level 4_0"]),
    # ---- SLICE
    ("slice-counts", Slice(T([4, 4]), T([2, 2]), [0], [2, 2, 1], [1, 1]), None,
     ["SLICE: Offsets count is 1 but must equal DimensionCount (2)",
      "SLICE: Sizes count is 3 but must equal DimensionCount (2)"]),
    ("slice-strides-count", Slice(T([4, 4]), T([2, 2]), [0, 0], [2, 2], [1]), None,
     ["SLICE: Strides count is 1 but must equal DimensionCount (2)"]),
    ("slice-negative-offset", Slice(T([4]), T([2]), [-1], [2], [1]), None,
     ["SLICE: Offsets[0] is -1 but must be at least 0 (a UINT)"]),
    ("slice-negative-stride", Slice(T([4]), T([2]), [2], [2], [-1]), None,
     ["SLICE: Strides[0] is -1 but must be at least 0 (a UINT)"]),
    ("slice-offset-33-bits", Slice(T([4]), T([1]), [2**32], [1], [1]), "6_4",
     [f"SLICE: Offsets[0] is {2**32} but must fit in 32 bits (at most {U32})",
      f"SLICE: Offsets[0] + Strides[0] * (Sizes[0] - 1) is {2**32} + 1 * 0 = {2**32} but must "
      f"be less than InputTensor.Sizes[0] (4)"]),
    ("slice-sizes-output", Slice(T([4, 4]), T([2, 2]), [0, 0], [2, 3], [1, 1]), None,
     ["SLICE: Sizes[1] is 3 but must equal OutputTensor.Sizes[1] (2)"]),
    ("slice-out-of-bounds", Slice(T([4, 4]), T([2, 2]), [0, 2], [2, 2], [1, 2]), None,
     ["SLICE: Offsets[1] + Strides[1] * (Sizes[1] - 1) is 2 + 2 * 1 = 4 but must be less "
      "than InputTensor.Sizes[1] (4)"]),
    ("slice-6-dims-at-2_1", Slice(T([1] * 6), T([1] * 6), [0] * 6, [1] * 6, [1] * 6), "2_1",
     ["SLICE: InputTensor.DimensionCount is 6 but must be between 4 and 5 at feature level 2_1"]),
    # ---- SLICE1
    ("slice1-before-2_1", Slice1(T([1, 1, 1, 2]), T([1, 1, 1, 2]), [0] * 4, [1, 1, 1, 2],
                                 [1] * 4), "2_0",
     ["SLICE1: the operator does not exist at feature level 2_0; it was introduced in 2_1"]),
    ("slice1-counts", Slice1(T([4]), T([2]), [0, 0], [2], []), None,
     ["SLICE1: InputWindowOffsets count is 2 but must equal DimensionCount (1)",
      "SLICE1: InputWindowStrides count is 0 but must equal DimensionCount (1)"]),
    ("slice1-window-sizes-count", Slice1(T([4]), T([2]), [0], [2, 2], [1]), None,
     ["SLICE1: InputWindowSizes count is 2 but must equal DimensionCount (1)"]),
    ("slice1-stride-zero", Slice1(T([4]), T([2]), [0], [2], [0]), None,
     ["SLICE1: InputWindowStrides[0] is 0 but must not be 0"]),
    ("slice1-stride-33-bits", Slice1(T([4]), T([1]), [0], [2], [-2**31 - 1]), "3_0",
     [f"SLICE1: InputWindowStrides[0] is {-2**31 - 1} but must fit in 32 bits (an INT)"]),
    ("slice1-negative-offset", Slice1(T([4]), T([1]), [-1], [1], [1]), None,
     ["SLICE1: InputWindowOffsets[0] is -1 but must be at least 0 (a UINT)"]),
    ("slice1-window-empty", Slice1(T([4]), T([1]), [0], [0], [1]), None,
     ["SLICE1: InputWindowSizes[0] is 0 but must be at least 1 (the window is never empty)"]),
    ("slice1-window-outside", Slice1(T([4]), T([2]), [3], [2], [1]), None,
     ["SLICE1: InputWindowOffsets[0] + InputWindowSizes[0] is 3 + 2 but must be at most "
      "InputTensor.Sizes[0] (4)"]),
    ("slice1-output-too-big", Slice1(T([4]), T([3]), [0], [4], [-2]), None,
     ["SLICE1: OutputTensor.Sizes[0] is 3 but must be between 1 and 1 + "
      "(InputWindowSizes[0] - 1) // |InputWindowStrides[0]| (2)"]),
    ("slice1-3-dims-at-2_1", Slice1(T([1, 1, 2]), T([1, 1, 2]), [0] * 3, [1, 1, 2], [1] * 3),
     "2_1", ["SLICE1: InputTensor.DimensionCount is 3 but must be between 4 and 5 at feature "
             "level 2_1"]),
    # ---- TILE
    ("tile-repeats-count", Tile(T([2, 2]), T([2, 2]), [1]), None,
     ["TILE: Repeats count is 1 but must equal DimensionCount (2)"]),
    ("tile-repeat-zero", Tile(T([2, 2]), T([2, 2]), [1, 0]), None,
     ["TILE: Repeats[1] is 0 but must be at least 1"]),
    ("tile-repeat-negative", Tile(T([2, 2]), T([2, 2]), [1, -2]), None,
     ["TILE: Repeats[1] is -2 but must be at least 0 (a UINT)"]),
    ("tile-output-sizes", Tile(T([2, 3]), T([2, 7]), [1, 2]), None,
     ["TILE: OutputTensor.Sizes[1] is 7 but must equal InputTensor.Sizes[1] * Repeats[1] "
      "(3 * 2 = 6)"]),
    ("tile-float64", Tile(T([2], "FLOAT64"), T([2], "FLOAT64"), [1]), "6_4",
     ["TILE: InputTensor.DataType is FLOAT64 but must be one of FLOAT32, FLOAT16, INT64, "
      "INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8 at feature level 6_4"]),
    ("tile-3-dims-at-3_0", Tile(T([1, 1, 2]), T([1, 1, 2]), [1, 1, 1]), "3_0",
     ["TILE: InputTensor.DimensionCount is 3 but must be 4 at feature level 3_0"]),
    # ---- CUMULATIVE_SUMMATION and CUMULATIVE_PRODUCT
    ("cumsum-axis", CumSum(T([2, 2]), T([2, 2]), 2), None,
     ["CUMULATIVE_SUMMATION: Axis is 2 but must be in [0, 1] (DimensionCount - 1)"]),
    ("cumsum-output-sizes", CumSum(T([2, 2]), T([2, 3]), 1), None,
     ["CUMULATIVE_SUMMATION: OutputTensor.Sizes[1] is 3 but must equal InputTensor.Sizes[1] "
      "(2)"]),
    ("cumsum-direction", CumSum(T([2]), T([2]), 0, 2), None,
     ["CUMULATIVE_SUMMATION: AxisDirection is 2 but must be DML_AXIS_DIRECTION_INCREASING (0) "
      "or DML_AXIS_DIRECTION_DECREASING (1)"]),
    ("cumsum-exclusive-bool", CumSum(T([2]), T([2]), 0, 0, 2), None,
     ["CUMULATIVE_SUMMATION: HasExclusiveSum is 2 but must be 0 or 1 (a BOOL)"]),
    ("cumsum-before-2_1", CumSum(T([1, 1, 1, 2]), T([1, 1, 1, 2]), 3), "2_0",
     ["CUMULATIVE_SUMMATION: the operator does not exist at feature level 2_0; it was "
      "introduced in 2_1"]),
    ("cumsum-int16", CumSum(T([2], "INT16"), T([2], "INT16"), 0), "6_4",
     ["CUMULATIVE_SUMMATION: InputTensor.DataType is INT16 but must be one of FLOAT32, "
      "FLOAT16, INT64, INT32, UINT64, UINT32 at feature level 6_4"]),
    ("cumsum-5-dims-at-3_1", CumSum(T([1] * 5), T([1] * 5), 0), "3_1",
     ["CUMULATIVE_SUMMATION: InputTensor.DimensionCount is 5 but must be 4 at feature "
      "level 3_1"]),
    ("cumprod-exclusive-bool", CumProd(T([2]), T([2]), 0, 1, -1), None,
     ["CUMULATIVE_PRODUCT: HasExclusiveProduct is -1 but must be 0 or 1 (a BOOL)"]),
    ("cumprod-before-3_1", CumProd(T([1, 1, 1, 2]), T([1, 1, 1, 2]), 3), "3_0",
     ["CUMULATIVE_PRODUCT: the operator does not exist at feature level 3_0; it was "
      "introduced in 3_1"]),
    ("cumprod-axis-and-direction", CumProd(T([2]), T([2]), 1, 5), None,
     ["CUMULATIVE_PRODUCT: Axis is 1 but must be in [0, 0] (DimensionCount - 1)",
      "CUMULATIVE_PRODUCT: AxisDirection is 5 but must be DML_AXIS_DIRECTION_INCREASING (0) "
      "or DML_AXIS_DIRECTION_DECREASING (1)"]),
    ("cumprod-float64", CumProd(T([2], "FLOAT64"), T([2], "FLOAT64"), 0), "6_4",
     ["CUMULATIVE_PRODUCT: InputTensor.DataType is FLOAT64 but must be one of FLOAT32, "
      "FLOAT16, INT64, INT32, UINT64, UINT32 at feature level 6_4"]),
]


@pytest.mark.parametrize("desc,level,violations", [row[1:] for row in INVALID],
                         ids=[row[0] for row in INVALID])
def test_invalid_descriptor(desc, level, violations):
    with pytest.raises(InvalidArgumentError) as info:
        dml.compile_operator(desc, level)
    assert info.value.violations == violations
    first = violations[0]
    if len(violations) > 1:
        first += f" (and {len(violations) - 1} more: see .violations)"
    assert str(info.value) == first
    assert isinstance(info.value, ValueError)


def test_every_rule_row_has_a_unique_id():
    ids = [row[0] for row in INVALID]
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------- valid at each boundary

VALID = [
    ("largest-slice-window", Slice(T([1, 1, 5, 7]), T([1, 1, 2, 4]), [0, 0, 1, 0],
                                   [1, 1, 2, 4], [1, 1, 3, 2]), "1_0"),
    ("slice-stride-zero-repeats", Slice(T([1, 1, 1, 3]), T([1, 1, 4, 1]), [0, 0, 0, 2],
                                        [1, 1, 4, 1], [0, 0, 0, 0]), "1_0"),
    ("slice1-whole-window-backwards", Slice1(T([5]), T([3]), [0], [5], [-2]), "3_0"),
    ("split-sizes-add-up", Split(T([1, 1, 6, 2]), [T([1, 1, 2, 2]), T([1, 1, 1, 2]),
                                                  T([1, 1, 3, 2])], 2), "1_0"),
    ("join-sizes-add-up", Join([T([1, 1, 2, 2]), T([1, 1, 2, 1])], T([1, 1, 2, 3]), 3), "1_0"),
    ("eight-dims", Tile(T([1] * 8), T([2] * 8), [2] * 8), "3_1"),
    ("size-exactly-32-bits", Split(T([U32], "UINT8"), [T([U32], "UINT8")], 0), "6_4"),
    ("total-exactly-minimum", split4(strides=[8, 8, 4, 1], total_tensor_size_in_bytes=24), "3_0"),
    ("padded-input", Split(T([1, 1, 4, 2], strides=[64, 64, 16, 2]), [T([1, 1, 4, 2])], 2),
     "1_0"),
    ("broadcast-input", Tile(T([1, 1, 4, 2], strides=[0, 0, 0, 1]), T([1, 1, 4, 2]),
                             [1, 1, 1, 1]), "1_0"),
    ("alignment-16", split4(guaranteed_base_offset_alignment=16), "1_0"),
    ("owned-by-dml-input", Split(T([1, 1, 4, 2], flags=1), [T([1, 1, 4, 2])], 2), "1_0"),
    ("interleaved-disjoint-output", Tile(T([3, 2]), T([3, 2], strides=[2, 3]), [1, 1]), None),
    ("cumsum-in-place-shape", CumSum(T([1, 1, 1, 2]), T([1, 1, 1, 2]), 3, 1, True), "2_1"),
]


@pytest.mark.parametrize("desc,level", [row[1:] for row in VALID], ids=[r[0] for r in VALID])
def test_valid_at_boundary(desc, level):
    op = dml.compile_operator(desc, level)
    assert op.desc is desc


# docs/feature-levels.md, written out: first level per type (None = never), per operator.
FIRST_LEVEL = {
    "SLICE": {"FLOAT64": "4_1", "FLOAT32": "1_0", "FLOAT16": "1_0", "INT64": "4_1",
              "UINT64": "4_1", "INT32": "1_0", "UINT32": "1_0", "INT16": "1_0",
              "UINT16": "1_0", "INT8": "2_1", "UINT8": "2_1"},
    "SLICE1": {t: "2_1" for t in ("FLOAT32", "FLOAT16", "INT32", "UINT32", "INT16", "UINT16",
                                  "INT8", "UINT8")} | {"FLOAT64": "4_1", "INT64": "4_1",
                                                       "UINT64": "4_1"},
    "SPLIT": {"FLOAT64": "4_1", "FLOAT32": "1_0", "FLOAT16": "1_0", "INT64": "4_1",
              "UINT64": "4_1", "INT32": "1_0", "UINT32": "1_0", "INT16": "1_0",
              "UINT16": "1_0", "INT8": "2_1", "UINT8": "2_1"},
    "JOIN": {"FLOAT64": "4_1", "FLOAT32": "1_0", "FLOAT16": "1_0", "INT64": "4_1",
             "UINT64": "4_1", "INT32": "1_0", "UINT32": "1_0", "INT16": "1_0",
             "UINT16": "1_0", "INT8": "2_1", "UINT8": "2_1"},
    "TILE": {"FLOAT64": None, "FLOAT32": "1_0", "FLOAT16": "1_0", "INT64": "4_1",
             "UINT64": "4_1", "INT32": "2_1", "UINT32": "2_1", "INT16": "2_1",
             "UINT16": "2_1", "INT8": "2_1", "UINT8": "2_1"},
    "CUMULATIVE_SUMMATION": {"FLOAT64": None, "FLOAT32": "2_1", "FLOAT16": "2_1",
                             "INT64": "5_0", "UINT64": "5_0", "INT32": "2_1", "UINT32": "2_1",
                             "INT16": None, "UINT16": None, "INT8": None, "UINT8": None},
    "CUMULATIVE_PRODUCT": {"FLOAT64": None, "FLOAT32": "3_1", "FLOAT16": "3_1",
                           "INT64": "5_0", "UINT64": "5_0", "INT32": "3_1", "UINT32": "3_1",
                           "INT16": None, "UINT16": None, "INT8": None, "UINT8": None},
}
LEVELS = ["1_0", "2_0", "2_1", "3_0", "3_1", "4_0", "4_1", "5_0", "5_1", "5_2", "6_0", "6_1",
          "6_2", "6_3", "6_4"]


def four_dim_desc(op, data_type):
    """A valid 4-dimension descriptor of op (4 dims are accepted at every level)."""
    t = T([1, 1, 2, 2], data_type)
    if op == "SLICE":
        return Slice(t, t, [0] * 4, [1, 1, 2, 2], [1] * 4)
    if op == "SLICE1":
        return Slice1(t, t, [0] * 4, [1, 1, 2, 2], [1, 1, -1, 1])
    if op == "SPLIT":
        return Split(t, [T([1, 1, 1, 2], data_type)] * 2, 2)
    if op == "JOIN":
        return Join([T([1, 1, 2, 1], data_type)] * 2, t, 3)
    if op == "TILE":
        return Tile(T([1, 1, 1, 2], data_type), t, [1, 1, 2, 1])
    cls = CumSum if op == "CUMULATIVE_SUMMATION" else CumProd
    return cls(t, t, 2, 1, True)


TYPE_ROWS = [(op, data_type, first) for op, table in FIRST_LEVEL.items()
             for data_type, first in table.items()]


@pytest.mark.parametrize("op,data_type,first", TYPE_ROWS,
                         ids=[f"{op}-{t}" for op, t, _ in TYPE_ROWS])
def test_type_appears_at_its_first_level(op, data_type, first):
    desc = four_dim_desc(op, data_type)
    dml.compile_operator(desc, None)          # extended mode takes every type
    last_missing = LEVELS[-1] if first is None else (
        LEVELS[LEVELS.index(first) - 1] if first != "1_0" else None)
    if first is not None:
        dml.compile_operator(desc, first)
    if last_missing is not None:
        with pytest.raises(InvalidArgumentError) as info:
            dml.compile_operator(desc, last_missing)
        message = str(info.value)
        assert (f"{op}: InputTensor.DataType is {data_type} but must be one of" in message
                or f"{op}: OutputTensor.DataType is {data_type} but must be one of" in message
                or f"{op}: the operator does not exist at feature level {last_missing}"
                in message)
        assert f"at feature level {last_missing}" in message


# (op, dimension count, last level refusing it, first level accepting it); None = always/never
DIMENSION_BOUNDARIES = [
    ("SPLIT", 3, "2_1", "3_0"), ("SPLIT", 8, "2_1", "3_0"), ("SPLIT", 4, None, "1_0"),
    ("SLICE", 5, None, "1_0"), ("SLICE", 3, "2_1", "3_0"), ("SLICE", 6, "2_1", "3_0"),
    ("SLICE1", 5, "2_0", "2_1"), ("SLICE1", 2, "2_1", "3_0"), ("SLICE1", 8, "2_1", "3_0"),
    ("JOIN", 5, "2_1", "3_0"), ("JOIN", 6, "3_0", "3_1"), ("JOIN", 1, "3_0", "3_1"),
    ("TILE", 3, "3_0", "3_1"), ("TILE", 8, "3_0", "3_1"),
    ("CUMULATIVE_SUMMATION", 4, "2_0", "2_1"), ("CUMULATIVE_SUMMATION", 5, "3_1", "4_0"),
    ("CUMULATIVE_SUMMATION", 1, "3_1", "4_0"),
    ("CUMULATIVE_PRODUCT", 4, "3_0", "3_1"), ("CUMULATIVE_PRODUCT", 8, "3_1", "4_0"),
]


def n_dim_desc(op, ndim):
    sizes = [1] * (ndim - 1) + [2]
    t = T(sizes)
    axis = ndim - 1
    if op == "SLICE":
        return Slice(t, t, [0] * ndim, sizes, [1] * ndim)
    if op == "SLICE1":
        return Slice1(t, t, [0] * ndim, sizes, [1] * ndim)
    if op == "SPLIT":
        return Split(t, [T([1] * ndim)] * 2, axis)
    if op == "JOIN":
        return Join([T([1] * ndim)] * 2, t, axis)
    if op == "TILE":
        return Tile(T([1] * ndim), t, sizes)
    cls = CumSum if op == "CUMULATIVE_SUMMATION" else CumProd
    return cls(t, t, axis)


@pytest.mark.parametrize("op,ndim,refused,accepted", DIMENSION_BOUNDARIES,
                         ids=[f"{op}-{n}d-{a}" for op, n, _, a in DIMENSION_BOUNDARIES])
def test_dimension_count_boundaries(op, ndim, refused, accepted):
    desc = n_dim_desc(op, ndim)
    dml.compile_operator(desc, accepted)
    dml.compile_operator(desc, "6_4")
    if refused is not None:
        with pytest.raises(InvalidArgumentError, match=rf"^{op}: (InputTensor|OutputTensor)"
                                                       rf"\.DimensionCount is {ndim} but must be "
                                                       rf".* at feature level {refused}$|"
                                                       rf"does not exist at feature level "
                                                       rf"{refused}"):
            dml.compile_operator(desc, refused)


# ---------------------------------------------------------------- lists longer than any rank

class CountingInts(tuple):
    """A tuple of ints that counts how many of its entries the validators read."""

    reads = 0

    def __iter__(self):
        for item in tuple.__iter__(self):
            CountingInts.reads += 1
            yield item

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        CountingInts.reads += len(item) if isinstance(key, slice) else 1
        return item


@pytest.mark.parametrize("desc,fields", [
    (Tile(T([1]), T([1]), [1]), ["input_tensor", "repeats"]),
    (Slice(T([1]), T([1]), [0], [1], [1]), ["offsets", "sizes", "strides"]),
    (Slice1(T([1]), T([1]), [0], [1], [1]), ["input_window_offsets", "input_window_sizes",
                                            "input_window_strides"]),
    (Split(T([1]), [T([1])], 0), ["input_tensor", "output_tensors"]),
], ids=["TILE", "SLICE", "SLICE1", "SPLIT"])
def test_a_list_longer_than_8_is_settled_by_its_count(desc, fields):
    """Every rule at every level reads at most a few entries of a million-entry list.

    The lists are set after construction (a constructor copies them into plain tuples)."""
    n = 10**6
    long_tensor = T([1])
    long_tensor.sizes = CountingInts([1] * n)
    long_tensor.strides = CountingInts([1] * n)
    for field in fields:
        setattr(desc, field, {"input_tensor": long_tensor, "output_tensors": (long_tensor,)}.get(
            field, CountingInts([1] * n)))
    CountingInts.reads = 0
    for level in [*dml.FeatureLevel, None]:
        with pytest.raises(InvalidArgumentError) as info:
            dml.compile_operator(desc, level)
    assert any(f"is {n} but must" in message for message in info.value.violations)
    assert CountingInts.reads < 1000


def any_shape_desc(op, data_type, ndim):
    """A descriptor of op valid in extended mode: every tensor of ndim sizes of 2."""
    s = [2] * ndim
    t = T(s, data_type)
    return {"SPLIT": lambda: Split(t, [t], 0), "JOIN": lambda: Join([t], t, 0),
            "SLICE": lambda: Slice(t, t, [0] * ndim, s, [1] * ndim),
            "SLICE1": lambda: Slice1(t, t, [0] * ndim, s, [1] * ndim),
            "TILE": lambda: Tile(t, t, [1] * ndim), "CUMULATIVE_SUMMATION": lambda: CumSum(t, t, 0),
            "CUMULATIVE_PRODUCT": lambda: CumProd(t, t, 0)}[op]()


@pytest.mark.parametrize("op", sorted(dml.support_table()))
def test_each_level_accepts_all_the_levels_before_it_accept(op):
    """What `python -m dmlcpu validate` relies on to search for the first accepting level."""
    accepted_somewhere = 0
    for data_type in dml.TensorDataType.__members__:
        if data_type == "UNKNOWN":
            continue
        for ndim in range(1, 9):
            desc = any_shape_desc(op, data_type, ndim)
            accepted = [not check_operator(desc, level) for level in dml.FeatureLevel]
            assert accepted == sorted(accepted), (data_type, ndim)
            accepted_somewhere += accepted[-1]
    assert accepted_somewhere >= 8  # FLOAT32 at least, in 1 to 8 dims at 6_4
