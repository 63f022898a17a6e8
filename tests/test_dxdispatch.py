"""dmlcpu.run_dxdispatch: each operator run from a DxDispatch model, checked against values worked
out by hand from DirectML's operator pages and against the eager API; bindings (sub-ranges,
strides, padding, broadcast, in place, OWNED_BY_DML) and dispatch iterations."""
import io
from pathlib import Path

import numpy as np
import pytest

import dmlcpu as dml
from dmlcpu.cli.validate import EXAMPLES

DATA = Path(__file__).resolve().parent / "data" / "dxdispatch"


def tensor(sizes, data_type="FLOAT32", **fields):
    return {"DataType": data_type, "Sizes": sizes, **fields}


def values(data, data_type="FLOAT32"):
    return {"initialValuesDataType": data_type, "initialValues": data}


def zeros(count, data_type="FLOAT32"):
    return values({"valueCount": count, "value": 0}, data_type)


def model(resources, dispatchables, commands):
    return {"resources": resources, "dispatchables": dispatchables, "commands": commands}


def dispatch(name, **bindings):
    return {"type": "dispatch", "dispatchable": name, "bindings": bindings}


def run(m, **kwargs):
    """(results, printed text)"""
    out = io.StringIO()
    results = dml.run_dxdispatch(m, stdout=out, **kwargs)
    return results, out.getvalue()


SEED_4x4 = values({"valueCount": 16, "valueStart": 1, "valueDelta": 1})  # 1..16


# ---------------------------------------------------------------- each operator

def test_split_seed_example_from_a_file():
    out = io.StringIO()
    results = dml.run_dxdispatch(DATA / "split.json", stdout=out)
    assert results["out0"].tolist() == [1, 2, 3, 4]
    assert results["out1"].tolist() == [5, 6]
    assert results["out2"].tolist() == [7, 8, 9, 10, 11, 12]
    assert results["out0"].dtype == np.float32
    eager = dml.split(results["input"].reshape(1, 1, 6, 2), axis=2, output_axis_sizes=[2, 1, 3])
    for k, part in enumerate(eager):
        assert results[f"out{k}"].tobytes() == part.tobytes()
    assert out.getvalue().startswith("Resource 'out0': 1, 2, 3, 4\nResource 'out1': 5, 6\n")


@pytest.mark.parametrize("slice_fields, expected", [
    ({"Offsets": [0, 0, 1, 2], "Sizes": [1, 1, 3, 2], "Strides": [1, 1, 1, 1]},
     [7, 8, 11, 12, 15, 16]),                       # DirectML's SLICE example 1
    ({"Offsets": [0, 0, 1, 0], "Sizes": [1, 1, 2, 2], "Strides": [1, 1, 2, 3]},
     [5, 8, 13, 16]),                               # example 2: strided
])
def test_slice_seed_examples(slice_fields, expected):
    m = model({"in": SEED_4x4, "out": zeros(len(expected))},
              {"slice": {"type": "DML_OPERATOR_SLICE", "desc": {
                  "InputTensor": tensor([1, 1, 4, 4]),
                  "OutputTensor": tensor(slice_fields["Sizes"]),
                  "DimensionCount": 4, **slice_fields}}},
              [dispatch("slice", InputTensor="in", OutputTensor="out")])
    results, _ = run(m)
    assert results["out"].tolist() == expected
    eager = dml.slice(results["in"].reshape(1, 1, 4, 4), offsets=slice_fields["Offsets"],
                      sizes=slice_fields["Sizes"], strides=slice_fields["Strides"])
    assert results["out"].tobytes() == eager.tobytes()


def test_slice1_negative_strides():
    # 4x4 = 1..16, window offsets {0,0,0,1}, sizes {1,1,4,3}, strides {1,1,-2,2}:
    # rows 3, 1 (walked backwards), columns 1, 3 -> [[14, 16], [6, 8]]
    m = model({"in": values({"valueCount": 16, "valueStart": 1, "valueDelta": 1}, "INT16"),
               "out": zeros(4, "INT16")},
              {"slice1": {"type": "SLICE1", "desc": {
                  "InputTensor": tensor([1, 1, 4, 4], "INT16"),
                  "OutputTensor": tensor([1, 1, 2, 2], "INT16"), "DimensionCount": 4,
                  "InputWindowOffsets": [0, 0, 0, 1], "InputWindowSizes": [1, 1, 4, 3],
                  "InputWindowStrides": [1, 1, -2, 2]}}},
              [dispatch("slice1", InputTensor="in", OutputTensor="out")])
    results, _ = run(m)
    assert results["out"].dtype == np.int16
    assert results["out"].tolist() == [14, 16, 6, 8]
    eager = dml.slice1(results["in"].reshape(1, 1, 4, 4), input_window_offsets=[0, 0, 0, 1],
                       input_window_sizes=[1, 1, 4, 3], input_window_strides=[1, 1, -2, 2])
    assert results["out"].tobytes() == eager.tobytes()


def test_join_seed_example_with_sub_range_bindings():
    results = dml.run_dxdispatch(EXAMPLES / "join_subrange.json", stdout=io.StringIO())
    assert results["output"].tolist() == [1, 2, 3, 7, 8, 9, 10, 4, 5, 6, 11, 12, 13, 14]
    whole = results["inputs"]
    eager = dml.join([whole[:6].reshape(1, 1, 2, 3), whole[8:].reshape(1, 1, 2, 4)], axis=3)
    assert results["output"].tobytes() == eager.tobytes()


def test_join_binds_one_resource_twice():
    m = model({"A": values([1, 2, 3, 4], "UINT32"), "out": zeros(8, "UINT32")},
              {"join": {"type": "DML_OPERATOR_JOIN", "desc": {
                  "InputCount": 2, "InputTensors": [tensor([2, 2], "UINT32")] * 2,
                  "OutputTensor": tensor([2, 4], "UINT32"), "Axis": 1}}},
              [dispatch("join", InputTensors=["A", "A"], OutputTensor="out")])
    results, _ = run(m)
    assert results["out"].tolist() == [1, 2, 1, 2, 3, 4, 3, 4]


def test_tile_seed_example():
    m = model({"in": values([1, 2, 3, 4, 5, 6]), "out": zeros(54)},
              {"tile": {"type": "DML_OPERATOR_TILE", "desc": {
                  "InputTensor": tensor([1, 1, 2, 3]), "OutputTensor": tensor([1, 1, 6, 9]),
                  "RepeatsCount": 4, "Repeats": [1, 1, 3, 3]}}},
              [dispatch("tile", InputTensor="in", OutputTensor="out")])
    results, _ = run(m)
    assert results["out"].reshape(6, 9).tolist() == [[1, 2, 3] * 3, [4, 5, 6] * 3] * 3


SCAN_INPUT = [2, 1, 3, 5, 3, 8, 7, 3, 9, 6, 2, 4]  # {1,1,3,4}


@pytest.mark.parametrize("op, axis, direction, exclusive, expected", [
    ("CUMULATIVE_SUMMATION", 3, "INCREASING", False, [2, 3, 6, 11, 3, 11, 18, 21, 9, 15, 17, 21]),
    ("CUMULATIVE_SUMMATION", 3, "INCREASING", True, [0, 2, 3, 6, 0, 3, 11, 18, 0, 9, 15, 17]),
    ("CUMULATIVE_SUMMATION", 3, "DML_AXIS_DIRECTION_DECREASING", False,
     [11, 9, 8, 5, 21, 18, 10, 3, 21, 12, 6, 4]),
    ("CUMULATIVE_PRODUCT", 3, "INCREASING", False,
     [2, 2, 6, 30, 3, 24, 168, 504, 9, 54, 108, 432]),
    ("CUMULATIVE_PRODUCT", 2, "INCREASING", False, [2, 1, 3, 5, 6, 8, 21, 15, 54, 48, 42, 60]),
    ("CUMULATIVE_PRODUCT", 3, "DECREASING", True, [15, 15, 5, 1, 168, 21, 3, 1, 48, 8, 4, 1]),
])
@pytest.mark.parametrize("in_place", [False, True])
def test_cumulative_operators(op, axis, direction, exclusive, expected, in_place):
    flag = "HasExclusiveSum" if op == "CUMULATIVE_SUMMATION" else "HasExclusiveProduct"
    m = model({"x": values(SCAN_INPUT, "INT32"), "y": zeros(12, "INT32")},
              {"scan": {"type": f"DML_OPERATOR_{op}", "desc": {
                  "InputTensor": tensor([1, 1, 3, 4], "INT32"),
                  "OutputTensor": tensor([1, 1, 3, 4], "INT32"),
                  "Axis": axis, "AxisDirection": direction, flag: exclusive}}},
              [dispatch("scan", InputTensor="x", OutputTensor="x" if in_place else "y")])
    results, _ = run(m)
    assert results["x" if in_place else "y"].tolist() == expected
    eager_op = dml.cumulative_summation if op == "CUMULATIVE_SUMMATION" \
        else dml.cumulative_product
    eager = eager_op(np.array(SCAN_INPUT, np.int32).reshape(1, 1, 3, 4), axis=axis,
                     axis_direction=1 if "DECREASING" in direction else 0,
                     **{"has_exclusive_sum" if flag == "HasExclusiveSum"
                        else "has_exclusive_product": exclusive})
    assert eager.ravel().tolist() == expected


def test_dispatch_iterations_repeat_an_in_place_scan():
    m = model({"x": values([1, 1, 1, 1], "UINT32")},
              {"scan": {"type": "CUMULATIVE_SUMMATION", "InputTensor": tensor([4], "UINT32"),
                        "OutputTensor": tensor([4], "UINT32"), "Axis": 0,
                        "AxisDirection": "INCREASING", "HasExclusiveSum": False}},
              [dispatch("scan", InputTensor="x", OutputTensor="x")])
    assert run(m, dispatch_iterations=2)[0]["x"].tolist() == [1, 3, 6, 10]  # 1111->1234->
    assert run(m)[0]["x"].tolist() == [1, 2, 3, 4]


# ---------------------------------------------------------------- strides, padding, broadcast

def test_strided_output_leaves_its_padding_alone():
    # Output {2,3} with row stride 4: elements 0-2 and 4-6; elements 3 and 7 keep -1.
    m = model({"in": values([1, 2, 3, 4, 5, 6]), "out": values([-1] * 8)},
              {"copy": {"type": "SPLIT", "desc": {
                  "InputTensor": tensor([2, 3]), "OutputCount": 1,
                  "OutputTensors": [tensor([2, 3], Strides=[4, 1],
                                           TotalTensorSizeInBytes=32)],
                  "Axis": 0}}},
              [dispatch("copy", InputTensor="in", OutputTensors=["out"])])
    assert run(m)[0]["out"].tolist() == [1, 2, 3, -1, 4, 5, 6, -1]


def test_broadcast_input_strides():
    # A {3,2} input over two values with strides {0,1}: every row reads [7, 9].
    m = model({"in": values([7, 9], "INT64"), "out": zeros(12, "INT64")},
              {"tile": {"type": "TILE", "desc": {
                  "InputTensor": tensor([3, 2], "INT64", Strides=[0, 1]),
                  "OutputTensor": tensor([3, 4], "INT64"), "RepeatsCount": 2,
                  "Repeats": [1, 2]}}},
              [dispatch("tile", InputTensor="in", OutputTensor="out")])
    assert run(m)[0]["out"].tolist() == [7, 9, 7, 9] * 3


def test_full_tensor_desc_form_and_flags_array():
    full = {"Type": "DML_TENSOR_TYPE_BUFFER",
            "Desc": tensor([4], "FLOAT64", DimensionCount=1, Flags=["NONE"],
                           GuaranteedBaseOffsetAlignment=16)}
    m = model({"in": values([1.5, 2.5, 3.5, 4.5], "FLOAT64"), "out": zeros(4, "FLOAT64")},
              {"s": {"type": "DML_OPERATOR_SLICE", "executionFlags": ["NONE"],
                     "dmlCompileType": "DmlCompileGraph", "Desc": {
                         "InputTensor": full, "OutputTensor": full, "DimensionCount": 1,
                         "Offsets": [0], "Sizes": [4], "Strides": [1]}}},
              [dispatch("s", InputTensor="in", OutputTensor="out")])
    assert run(m)[0]["out"].tolist() == [1.5, 2.5, 3.5, 4.5]


def test_owned_by_dml_input_is_read_at_initialization():
    # The TILE's input is OWNED_BY_DML: bound in the dispatchable's bindings, it is read before
    # the first command, so the SLICE that later overwrites "w" does not change what TILE sees.
    m = model({"w": values([1, 2]), "zero": values([0, 0]), "out": zeros(4)},
              {"tile": {"type": "TILE", "bindings": {"InputTensor": "w"}, "desc": {
                  "InputTensor": tensor([2], Flags="OWNED_BY_DML"),
                  "OutputTensor": tensor([4]), "RepeatsCount": 1, "Repeats": [2]}},
               "clear": {"type": "SLICE", "desc": {
                   "InputTensor": tensor([2]), "OutputTensor": tensor([2]),
                   "DimensionCount": 1, "Offsets": [0], "Sizes": [2], "Strides": [1]}}},
              [dispatch("clear", InputTensor="zero", OutputTensor="w"),
               dispatch("tile", OutputTensor="out")])
    results, _ = run(m)
    assert results["w"].tolist() == [0, 0]
    assert results["out"].tolist() == [1, 2, 1, 2]


def test_results_are_whole_buffers_typed_by_the_initializer():
    # 5 FLOAT16 values -> 12 bytes -> 6 elements returned (the last is padding), but print
    # shows only the 5 initial values. A mixed list has no type: its bytes come back as uint8.
    m = model({"h": values([1, 2, 3, 4, 5], "FLOAT16"),
               "mixed": {"initialValues": [{"type": "UINT8", "value": 7}]}},
              {}, [{"type": "print", "resource": "h"}])
    results, text = run(m)
    assert results["h"].dtype == np.float16 and results["h"].tolist() == [1, 2, 3, 4, 5, 0]
    assert results["mixed"].dtype == np.uint8 and results["mixed"].tolist() == [7, 0, 0, 0]
    assert text == "Resource 'h': 1, 2, 3, 4, 5\n"


def test_every_type_through_join_matches_the_eager_api():
    for data_type in dml.TensorDataType:
        if data_type == dml.TensorDataType.UNKNOWN:
            continue
        name = data_type.name
        m = model({"a": values({"valueCount": 6, "valueStart": 1, "valueDelta": 2}, name),
                   "b": values({"valueCount": 3, "valueStart": 100, "valueDelta": 1}, name),
                   "out": zeros(9, name)},
                  {"join": {"type": "JOIN", "InputCount": 2, "Axis": 1,
                            "InputTensors": [tensor([3, 2], name), tensor([3, 1], name)],
                            "OutputTensor": tensor([3, 3], name)}},
                  [dispatch("join", InputTensors=["a", "b"], OutputTensor="out")])
        results, _ = run(m, feature_level=None)
        eager = dml.join([results["a"][:6].reshape(3, 2), results["b"][:3].reshape(3, 1)],
                         axis=1)
        assert results["out"][:9].tobytes() == eager.tobytes(), name
        assert results["out"][:9].tolist() == [1, 3, 100, 5, 7, 101, 9, 11, 102], name
