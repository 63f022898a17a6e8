"""Every refusal of a DxDispatch model: raised before any command runs, naming the resource,
dispatchable or command and the field, whether DxDispatch's parser, DirectML's operator rules
or DirectML's binding rules are broken."""
import copy
import io

import numpy as np
import pytest

import dmlcpu as dml

from test_dxdispatch import dispatch, model, tensor, values, zeros


def base():
    """A valid TILE of [1, 2] into 4 floats, then a print."""
    return model({"in": values([1, 2]), "out": zeros(4)},
                 {"tile": {"type": "DML_OPERATOR_TILE", "desc": {
                     "InputTensor": tensor([1, 2]), "OutputTensor": tensor([1, 4]),
                     "RepeatsCount": 2, "Repeats": [1, 2]}}},
                 [dispatch("tile", InputTensor="in", OutputTensor="out"),
                  {"type": "print", "resource": "out"}])


def refusal(m, **kwargs):
    """The errors of a refused model; asserts that nothing was printed."""
    out = io.StringIO()
    with pytest.raises(ValueError) as info:
        dml.run_dxdispatch(m, stdout=out, **kwargs)
    assert out.getvalue() == ""
    assert isinstance(info.value, dml.DmlcpuError)
    return info.value.errors


def test_the_base_model_runs():
    out = io.StringIO()
    assert dml.run_dxdispatch(base(), stdout=out)["out"].tolist() == [1, 2, 1, 2]
    assert out.getvalue() == "Resource 'out': 1, 2, 1, 2\n"


def edit(path, value):
    """A change to base(): set the value at a path of keys (None deletes it)."""
    def apply(m):
        *parents, last = path
        node = m
        for key in parents:
            node = node[key]
        if value is None:
            del node[last]
        else:
            node[last] = value
    return apply


DESC = ("dispatchables", "tile", "desc")
BINDINGS = ("commands", 0, "bindings")

CASES = {
    # DxDispatch's parser
    "count disagrees": (edit(DESC + ("RepeatsCount",), 3),
                        "dispatchable 'tile': desc.RepeatsCount is 3 but Repeats has 2 entries"),
    "count missing": (edit(DESC + ("RepeatsCount",), None),
                      "dispatchable 'tile': desc.RepeatsCount is missing"),
    "SLICE1 DimensionCount counts every window array": (lambda m: m["dispatchables"].update(
        s={"type": "SLICE1", "InputTensor": tensor([4]), "OutputTensor": tensor([2]),
           "DimensionCount": 1, "InputWindowOffsets": [0], "InputWindowSizes": [2],
           "InputWindowStrides": [1, 1]}),
        "dispatchable 's': DimensionCount is 1 but InputWindowStrides has 2 entries"),
    "SLICE1 DimensionCount required": (lambda m: m["dispatchables"].update(
        s={"type": "SLICE1", "InputTensor": tensor([4]), "OutputTensor": tensor([2]),
           "InputWindowOffsets": [0], "InputWindowSizes": [2], "InputWindowStrides": [1]}),
        "dispatchable 's': DimensionCount is missing"),
    "tensor DimensionCount": (edit(DESC + ("InputTensor", "DimensionCount"), 4),
                              "desc.InputTensor.DimensionCount is 4 but Sizes has 2 entries"),
    "unknown desc field": (edit(DESC + ("Axes",), [0]),
                           "dispatchable 'tile': desc: unknown field 'Axes' (DxDispatch would "
                           "ignore it)"),
    "invalid tensor type": (edit(DESC + ("InputTensor",), {"Type": "DML_TENSOR_TYPE_INVALID",
                                                         "Desc": tensor([1, 2])}),
                            "desc.InputTensor.Type is \"DML_TENSOR_TYPE_INVALID\"; dmlcpu's "
                            "operators take only DML_TENSOR_TYPE_BUFFER tensors"),
    "unknown tensor field": (edit(DESC + ("OutputTensor", "Stride"), [4, 1]),
                             "desc.OutputTensor: unknown field 'Stride'"),
    "negative uint": (edit(DESC + ("Repeats",), [1, -2]),
                      "desc.Repeats[1] must be an unsigned integer, not -2"),
    "float for int": (edit(DESC + ("Repeats",), [1, 2.0]),
                      "desc.Repeats[1] must be an unsigned integer, not 2.0"),
    "beyond 64 bits": (edit(DESC + ("Repeats",), [1, 2**64]),
                       "desc.Repeats[1] is 18446744073709551616, beyond 64 bits"),
    "beyond 32 bits": (edit(DESC + ("Repeats",), [1, 2**32]),
                       "dispatchable 'tile': TILE: Repeats[1] is 4294967296 but must fit in 32 "
                       "bits"),
    "lowercase type name": (edit(DESC + ("InputTensor", "DataType"), "float32"),
                            "desc.InputTensor.DataType is \"float32\"; expected one of FLOAT32"),
    "4-bit type": (edit(DESC + ("InputTensor", "DataType"), "DML_TENSOR_DATA_TYPE_UINT4"),
                   "DataType is DML_TENSOR_DATA_TYPE_UINT4, a DirectML type dmlcpu does not "
                   "support"),
    "not a DML operator": (edit(("dispatchables", "tile", "type"), "hlsl"),
                           "dispatchable 'tile': type 'hlsl': dmlcpu runs DirectML operators, "
                           "not HLSL shaders"),
    "another DML operator": (edit(("dispatchables", "tile", "type"), "DML_OPERATOR_GEMM"),
                             "dispatchable 'tile': \"DML_OPERATOR_GEMM\" is not one of the "
                             "operators dmlcpu runs: DML_OPERATOR_SPLIT, "),
    "operator name case": (edit(("dispatchables", "tile", "type"), "dml_operator_tile"),
                           "\"dml_operator_tile\" is not one of the operators"),
    "execution flag": (edit(("dispatchables", "tile", "executionFlags"), "FAST"),
                       "executionFlags is \"FAST\"; expected one of DML_EXECUTION_FLAG_NONE"),
    "list value out of range": (edit(("resources", "in"), values([300, 1], "UINT8")),
                                "resource 'in': initialValues[0] must be an integer from 0 to "
                                "255 (UINT8), not 300"),
    "integer as float": (edit(("resources", "in"), values([1.0], "INT32")),
                         "resource 'in': initialValues[0] must be an integer from -2147483648 "
                         "to 2147483647 (INT32), not 1.0"),
    "bool as number": (edit(("resources", "in"), values([True])),
                       "initialValues[0] must be a number or \"nan\", \"inf\", \"-inf\", not "
                       "true"),
    "empty list": (edit(("resources", "in"), values([])),
                   "resource 'in': initialValues must be non-empty"),
    "deferred": (edit(("resources", "in"), values("deferred")),
                 "resource 'in': initialValues \"deferred\" is for ONNX dispatchables"),
    "two forms": (edit(("resources", "in"), values({"valueCount": 2, "value": 1,
                                                     "valueStart": 0})),
                  "resource 'in': initialValues must have exactly one of value"),
    "sequence without delta": (edit(("resources", "in"), values({"valueCount": 2,
                                                                  "valueStart": 0})),
                               "resource 'in': initialValues.valueDelta is missing"),
    "unsigned negative delta": (edit(("resources", "in"), values(
        {"valueCount": 2, "valueStart": 5, "valueDelta": -1}, "UINT32")),
        "initialValues.valueDelta must be an integer from 0 to 4294967295 (UINT32), not -1"),
    "constant without type": (edit(("resources", "in"), {"initialValues": {"valueCount": 2,
                                                                            "value": 1}}),
                              "resource 'in': initialValuesDataType is missing; "
                              "initialValues.value needs it"),
    "FLOAT16 in mixed list": (edit(("resources", "in"), {"initialValues": [
        {"type": "FLOAT16", "value": 1}]}), "initialValues[0].type is FLOAT16"),
    "size too small": (edit(("resources", "in", "sizeInBytes"), 6),
                       "resource 'in': initialValues (8 bytes) plus initialValuesOffsetInBytes "
                       "(0) exceed sizeInBytes (6)"),
    "image source": (edit(("resources", "in"), {"initialValues": {"sourcePath": "x.png"}}),
                     "resource 'in': initialValues.sourcePath 'x.png': image files are not "
                     "supported"),
    "missing source": (edit(("resources", "in"), {"initialValuesDataType": "FLOAT32",
                                                   "initialValues": {"sourcePath": "no.bin"}}),
                       "resource 'in': initialValues.sourcePath 'no.bin' cannot be read"),
    "NUL in a source path": (edit(("resources", "in"), values({"sourcePath": "a\0b.bin"})),
                             "resource 'in': initialValues.sourcePath 'a\\x00b.bin' cannot be "
                             "read"),
    "too many bytes": (edit(("resources", "in"), values({"valueCount": 2**32 - 1, "value": 1},
                                                         "UINT64")),
                       "initialValues.valueCount 4294967295 needs more than"),
    "axis direction number": (lambda m: m["dispatchables"].update(scan={
        "type": "CUMULATIVE_PRODUCT", "InputTensor": tensor([2]), "OutputTensor": tensor([2]),
        "Axis": 0, "AxisDirection": 0, "HasExclusiveProduct": False}),
        "dispatchable 'scan': AxisDirection is 0; expected one of DML_AXIS_DIRECTION_INCREASING"),
    "bool as 0": (lambda m: m["dispatchables"].update(scan={
        "type": "CUMULATIVE_PRODUCT", "InputTensor": tensor([2]), "OutputTensor": tensor([2]),
        "Axis": 0, "AxisDirection": "INCREASING", "HasExclusiveProduct": 0}),
        "dispatchable 'scan': HasExclusiveProduct must be true or false, not 0"),
    # DirectML's operator rules, also for a dispatchable no command uses
    "operator rule": (edit(DESC + ("Repeats",), [1, 3]),
                      "dispatchable 'tile': TILE: OutputTensor.Sizes[1] is 4 but must equal "
                      "InputTensor.Sizes[1] * Repeats[1] (2 * 3 = 6)"),
    "unused bad operator": (lambda m: m["dispatchables"].update(unused={
        "type": "SPLIT", "InputTensor": tensor([4]), "OutputCount": 1,
        "OutputTensors": [tensor([3])], "Axis": 0}),
        "dispatchable 'unused': SPLIT: the sum of OutputTensors[*].Sizes[0] is 3 but must "
        "equal InputTensor.Sizes[0] (4)"),
    # binding rules
    "misspelt bind point": (edit(BINDINGS + ("Input",), "in"),
                            "commands[0] (dispatch 'tile'): bindings.Input: 'Input' is not a "
                            "bind point of this operator (DxDispatch would ignore it); the bind "
                            "points are InputTensor, OutputTensor"),
    "missing bind point": (edit(BINDINGS + ("InputTensor",), None),
                           "commands[0] (dispatch 'tile'): bindings.InputTensor is missing: "
                           "every bind point must be bound"),
    "resource count": (edit(BINDINGS + ("InputTensor",), ["in", "in"]),
                       "bindings.InputTensor: bind point 'InputTensor' requires 1 resource(s), "
                       "but 2 were bound"),
    "unaligned offset": (edit(BINDINGS + ("OutputTensor",), {"name": "out",
                                                              "elementOffset": 1}),
                         "commands[0] (dispatch 'tile'): bindings.OutputTensor starts at byte 4 "
                         "of resource 'out', but DirectML needs buffer bindings aligned to 16 "
                         "bytes"),
    "range too small": (edit(("resources", "in"), values([1])),
                        "commands[0] (dispatch 'tile'): bindings.InputTensor binds 4 bytes of "
                        "resource 'in' (bytes 0 to 4; a binding runs to the end of its "
                        "resource) but the tensor's TotalTensorSizeInBytes is 8"),
    "offset past the end": (edit(BINDINGS + ("InputTensor",), {"name": "in",
                                                                "elementOffset": 8}),
                            "bindings.InputTensor binds 0 bytes of resource 'in' (byte 32;"),
    "elementCount is no excuse": (edit(BINDINGS + ("OutputTensor",), {
        "name": "in", "elementCount": 4}), "TotalTensorSizeInBytes is 16"),
    "undefined resource": (edit(BINDINGS + ("InputTensor",), "nothing"),
                           "commands[0] (dispatch 'tile'): bindings.InputTensor: resource "
                           "'nothing' is not defined in the model"),
    "undefined dispatchable": (edit(("commands", 0, "dispatchable"), "nothing"),
                               "commands[0] (dispatch 'nothing'): dispatchable 'nothing' is not "
                               "defined in the model"),
    "unknown command": (edit(("commands", 1, "type"), "show"),
                        "commands[1] (show 'out'): type 'show' is not a command"),
    "output overlaps input": (lambda m: (m["resources"].update(in_=values([1, 2, 3, 4])),
                                         m["commands"][0]["bindings"].update(
                                             InputTensor="in_", OutputTensor="in_")),
                              "commands[0] (dispatch 'tile'): bindings.OutputTensor (bytes 0 to "
                              "16 of 'in_') overlaps bindings.InputTensor (bytes 0 to 8 of "
                              "'in_'); an output may not overlap another binding"),
    "outputs overlap": (lambda m: m["dispatchables"].update(split={
        "type": "SPLIT", "InputTensor": tensor([16]), "OutputCount": 2, "Axis": 0,
        "OutputTensors": [tensor([8]), tensor([8])]}) or m["commands"].append(dispatch(
            "split", InputTensor="in",
            OutputTensors=["out", {"name": "out", "elementOffset": 4}])) or m[
        "resources"].update(out=zeros(12), **{"in": zeros(16)}),
        "commands[2] (dispatch 'split'): bindings.OutputTensors[1] (bytes 16 to 48 of 'out') "
        "overlaps bindings.OutputTensors[0] (bytes 0 to 32 of 'out')"),
    "print an untyped resource": (lambda m: m["resources"].update(
        out={"initialValues": [{"type": "FLOAT32", "value": 0}] * 4}),
        "commands[1] (print 'out'): resource 'out' has no initialValuesDataType, so it cannot "
        "be printed"),
    "offset in an untyped resource": (lambda m: (m["resources"].update(
        out={"initialValues": [{"type": "FLOAT32", "value": 0}] * 8}),
        m["commands"][0]["bindings"].update(OutputTensor={"name": "out", "elementOffset": 4})),
        "bindings.OutputTensor.elementOffset is 4 but resource 'out' has no "
        "initialValuesDataType, so DxDispatch would bind it at byte 0"),
    "npy dimensions too large": (lambda m: m["commands"].append(
        {"type": "writeFile", "resource": "out", "targetPath": "o.npy", "dimensions": [5]}),
        "commands[2] (writeFile 'out'): dimensions [5] need 20 bytes but resource 'out' holds "
        "16"),
    "image target": (lambda m: m["commands"].append(
        {"type": "writeFile", "resource": "out", "targetPath": "o.png"}),
        "targetPath 'o.png': image files are not supported"),
    "missing commands": (edit(("commands",), None), "commands is missing"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_refusal(name):
    change, expected = CASES[name]
    m = copy.deepcopy(base())
    change(m)
    errors = refusal(m)
    assert any(expected in error for error in errors), errors


def test_every_problem_is_listed_once():
    m = base()
    m["resources"]["in"] = values([1, 256], "UINT8")             # bad resource
    m["dispatchables"]["tile"]["desc"]["Repeats"] = [1, 3]       # bad operator
    m["commands"].insert(0, {"type": "print", "resource": "nope"})
    errors = refusal(m)
    assert len(errors) == 3, errors  # the dispatch of the bad operator adds nothing
    assert errors[0].startswith("resource 'in': initialValues[1]")
    assert errors[1].startswith("dispatchable 'tile': TILE:")
    assert errors[2] == "commands[0] (print 'nope'): resource 'nope' is not defined in the model"


def test_feature_level_decides():
    m = base()
    for t in ("InputTensor", "OutputTensor"):
        m["dispatchables"]["tile"]["desc"][t]["DataType"] = "INT8"
    m["resources"]["in"] = values([1, 2], "INT8")
    m["resources"]["out"] = zeros(4, "INT8")
    assert dml.run_dxdispatch(m, stdout=io.StringIO())["out"][:4].tolist() == [1, 2, 1, 2]
    errors = refusal(m, feature_level="2_0")
    assert errors[0].startswith("dispatchable 'tile': TILE: InputTensor.DataType is INT8 but "
                                "must be one of")
    # FLOAT64 TILE exists at no feature level, only in extended mode
    for t in ("InputTensor", "OutputTensor"):
        m["dispatchables"]["tile"]["desc"][t]["DataType"] = "FLOAT64"
    m["resources"]["in"] = values([1, 2], "FLOAT64")
    refusal(m)
    m["resources"]["out"] = zeros(4, "FLOAT64")
    assert dml.run_dxdispatch(m, feature_level=None, stdout=io.StringIO())[
        "out"].tolist() == [1, 2, 1, 2]


def scan_model(input_binding, output_binding, output_tensor=None):
    return model({"x": values([1, 2, 3, 4, 5, 6, 7, 8])},
                 {"scan": {"type": "CUMULATIVE_SUMMATION", "InputTensor": tensor([4]),
                           "OutputTensor": output_tensor or tensor([4]), "Axis": 0,
                           "AxisDirection": "INCREASING", "HasExclusiveSum": False}},
                 [dispatch("scan", InputTensor=input_binding, OutputTensor=output_binding)])


def test_in_place_only_with_the_identical_binding():
    shifted = {"name": "x", "elementOffset": 4}
    assert dml.run_dxdispatch(scan_model(shifted, shifted))["x"].tolist() == \
        [1, 2, 3, 4, 5, 11, 18, 26]
    assert dml.run_dxdispatch(scan_model("x", shifted))["x"].tolist() == \
        [1, 2, 3, 4, 1, 3, 6, 10]  # adjacent ranges do not overlap
    errors = refusal(scan_model("x", "x", tensor([4], TotalTensorSizeInBytes=32)))
    assert "bindings.OutputTensor (bytes 0 to 32 of 'x') overlaps bindings.InputTensor" \
        in errors[0]
    # explicit packed strides are the same layout as none
    assert dml.run_dxdispatch(scan_model("x", "x", tensor([4], Strides=[1])))["x"].tolist() == \
        [1, 3, 6, 10, 5, 6, 7, 8]


def test_owned_by_dml_inputs_bind_at_initialization_only():
    m = base()
    m["dispatchables"]["tile"]["desc"]["InputTensor"]["Flags"] = "DML_TENSOR_FLAG_OWNED_BY_DML"
    assert refusal(copy.deepcopy(m)) == [
        "dispatchable 'tile': bindings.InputTensor is missing: every bind point must be bound "
        "(an OWNED_BY_DML input is bound in the dispatchable's bindings)"]
    m["dispatchables"]["tile"]["bindings"] = {"InputTensor": "in"}
    assert refusal(copy.deepcopy(m)) == [
        "commands[0] (dispatch 'tile'): bindings.InputTensor: it is OWNED_BY_DML: bind it "
        "once, in the dispatchable's bindings, not at dispatch"]
    m["dispatchables"]["tile"]["bindings"]["OutputTensor"] = "out"
    del m["commands"][0]["bindings"]["InputTensor"]
    assert refusal(m) == ["dispatchable 'tile': bindings.OutputTensor: only OWNED_BY_DML "
                          "inputs are bound at initialization"]
    del m["dispatchables"]["tile"]["bindings"]["OutputTensor"]
    assert dml.run_dxdispatch(m, stdout=io.StringIO())["out"].tolist() == [1, 2, 1, 2]


def test_npy_sources_that_dxdispatch_refuses(tmp_path):
    np.save(tmp_path / "f.npy", np.asfortranarray(np.ones((2, 2), np.float32)))
    np.save(tmp_path / "i.npy", np.ones(2, np.int32))
    np.save(tmp_path / "c.npy", np.ones(2, np.complex64))
    (tmp_path / "n.npy").write_bytes(b"not a .npy file")
    m = base()
    m["resources"]["f"] = {"initialValues": {"sourcePath": "f.npy"}}
    m["resources"]["i"] = values({"sourcePath": "i.npy"}, "FLOAT32")
    m["resources"]["c"] = {"initialValues": {"sourcePath": "c.npy"}}
    m["resources"]["n"] = {"initialValues": {"sourcePath": "n.npy"}}
    errors = refusal(m, input_path=str(tmp_path))
    assert errors == [
        "resource 'f': initialValues.sourcePath 'f.npy': Fortran-ordered .npy arrays are not "
        "supported (DxDispatch refuses them)",
        "resource 'i': initialValuesDataType is FLOAT32 but the data type from file 'i.npy' is "
        "INT32",
        "resource 'c': initialValues.sourcePath 'c.npy' holds a type DirectML does not have; "
        "give initialValuesDataType",
        "resource 'n': initialValues.sourcePath 'n.npy': it does not start with the .npy magic "
        "string"]
