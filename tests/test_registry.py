"""The operator registry against the contract written out by hand (docs/semantics.md, API table).

Every per-operator structure of the Python layer is derived from the registry, so these tests
pin the registry to the fields DirectML names, not to itself.
"""
import inspect

import pytest

import dmlcpu as dml
from dmlcpu import _registry as R

# DirectML's fields, in DirectML's order, and the descriptor class of each operator.
DIRECTML_FIELDS = {
    "SPLIT": ("SplitOperatorDesc", ["InputTensor", "OutputTensors", "Axis"]),
    "JOIN": ("JoinOperatorDesc", ["InputTensors", "OutputTensor", "Axis"]),
    "SLICE": ("SliceOperatorDesc", ["InputTensor", "OutputTensor", "Offsets", "Sizes", "Strides"]),
    "SLICE1": ("Slice1OperatorDesc", ["InputTensor", "OutputTensor", "InputWindowOffsets",
                                      "InputWindowSizes", "InputWindowStrides"]),
    "TILE": ("TileOperatorDesc", ["InputTensor", "OutputTensor", "Repeats"]),
    "CUMULATIVE_SUMMATION": ("CumulativeSummationOperatorDesc",
                             ["InputTensor", "OutputTensor", "Axis", "AxisDirection",
                              "HasExclusiveSum"]),
    "CUMULATIVE_PRODUCT": ("CumulativeProductOperatorDesc",
                           ["InputTensor", "OutputTensor", "Axis", "AxisDirection",
                            "HasExclusiveProduct"]),
}
# The descriptor constructors' parameters, as the API table writes them.
PYTHON_FIELDS = {
    "SPLIT": "input_tensor, output_tensors, axis",
    "JOIN": "input_tensors, output_tensor, axis",
    "SLICE": "input_tensor, output_tensor, offsets, sizes, strides",
    "SLICE1": "input_tensor, output_tensor, input_window_offsets, input_window_sizes, "
              "input_window_strides",
    "TILE": "input_tensor, output_tensor, repeats",
    "CUMULATIVE_SUMMATION": "input_tensor, output_tensor, axis, "
                            "axis_direction=<AxisDirection.INCREASING: 0>, has_exclusive_sum=False",
    "CUMULATIVE_PRODUCT": "input_tensor, output_tensor, axis, "
                          "axis_direction=<AxisDirection.INCREASING: 0>, "
                          "has_exclusive_product=False",
}
# (inputs, outputs) as slot names, for a descriptor with two tensors in each list.
SLOTS = {
    "SPLIT": (["InputTensor"], ["OutputTensors[0]", "OutputTensors[1]"]),
    "JOIN": (["InputTensors[0]", "InputTensors[1]"], ["OutputTensor"]),
}


def test_the_seven_operators():
    assert sorted(R.OPERATORS) == sorted(DIRECTML_FIELDS)


@pytest.mark.parametrize("op", sorted(DIRECTML_FIELDS))
def test_record_names_directml_fields_and_the_public_class(op):
    record = R.OPERATORS[op]
    class_name, dml_fields = DIRECTML_FIELDS[op]
    assert [f.dml for f in record.fields] == dml_fields
    cls = getattr(dml, class_name)
    assert record.desc_class == class_name and cls.OPERATOR == op and cls.__name__ == class_name
    assert str(inspect.signature(cls)) == f"({PYTHON_FIELDS[op]})"


@pytest.mark.parametrize("op", sorted(DIRECTML_FIELDS))
def test_eager_function_takes_every_field_but_the_tensors(op):
    record = R.OPERATORS[op]
    keywords = inspect.signature(getattr(dml, record.function)).parameters
    for f in record.fields:
        if f.kind not in (R.TENSOR, R.TENSORS):
            assert f.name in keywords, f.name
            assert keywords[f.name].kind is inspect.Parameter.KEYWORD_ONLY


@pytest.mark.parametrize("op", sorted(DIRECTML_FIELDS))
def test_tensor_roles_give_slots_inputs_first(op):
    record = R.OPERATORS[op]
    t = dml.TensorDesc("FLOAT32", [2])
    values = {R.TENSORS: [t, t], R.TENSOR: t, R.UINTS: [0], R.INTS: [1]}
    args = {f.name: values.get(f.kind, 0) for f in record.fields}
    desc = getattr(dml, record.desc_class)(**args)
    inputs, outputs = SLOTS.get(op, (["InputTensor"], ["OutputTensor"]))
    assert [(name, is_input) for name, _, is_input in record.named_tensors(desc)] == \
        [(name, True) for name in inputs] + [(name, False) for name in outputs]
    assert record.in_place == op.startswith("CUMULATIVE_")


def test_validators_return_violations_instead_of_raising():
    t = dml.TensorDesc("FLOAT32", [2])
    desc = dml.TileOperatorDesc(t, t, [0])
    assert R.OPERATORS["TILE"].check(desc, None) == ["TILE: Repeats[0] is 0 but must be at least 1"]
    assert R.OPERATORS["TILE"].check(dml.TileOperatorDesc(t, t, [1]), None) == []
