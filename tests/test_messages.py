"""What a user reads when a call is refused: eager errors name the caller's argument (DirectML's
field in parentheses), mode rules read "in extended mode", and every exception is public."""
import io

import numpy as np
import pytest

import dmlcpu as dml


def refusal(call, error=dml.InvalidArgumentError):
    with pytest.raises(error) as info:
        call()
    return info.value


def test_split_names_the_outputs_argument():
    x = np.zeros((1, 1, 6, 2), np.float32)
    outs = [np.zeros((1, 1, 2, 2), np.float32), np.zeros((1, 1, 4, 3), np.float32)]
    e = refusal(lambda: dml.split(x, axis=2, output_axis_sizes=[2, 4], outputs=outs))
    assert str(e) == ("SPLIT: outputs[1] (OutputTensors[1]).Sizes[3] is 3 but must equal "
                      "input (InputTensor).Sizes[3] (2); only Axis 2 may differ")
    assert e.violations == [str(e)]


def test_join_names_the_inputs_and_out_arguments():
    a, b = np.zeros((2, 3), np.float32), np.zeros((2, 3), np.int32)
    out = np.zeros((2, 6), np.float32)
    e = refusal(lambda: dml.join([a, b], axis=1, out=out))
    assert str(e) == ("JOIN: inputs[1] (InputTensors[1]).DataType is INT32 but must equal "
                      "out (OutputTensor).DataType (FLOAT32)")


def test_an_output_the_call_makes_keeps_directml_name_alone():
    a, b = np.zeros((2, 3), np.float32), np.zeros((2, 3), np.int32)
    e = refusal(lambda: dml.join([a, b], axis=1))
    assert str(e) == ("JOIN: inputs[1] (InputTensors[1]).DataType is INT32 but must equal "
                      "OutputTensor.DataType (FLOAT32)")


def test_the_sum_rule_names_every_part():
    x = np.zeros((1, 1, 6, 2), np.float32)
    outs = [np.zeros((1, 1, 2, 2), np.float32), np.zeros((1, 1, 3, 2), np.float32)]
    e = refusal(lambda: dml.split(x, axis=2, output_axis_sizes=[2, 3], outputs=outs))
    assert "the sum of outputs[*] (OutputTensors[*]).Sizes[2] is 5" in str(e)
    e = refusal(lambda: dml.split(x, axis=2, output_axis_sizes=[2, 3]))
    assert "the sum of OutputTensors[*].Sizes[2] is 5" in str(e)


def test_dask_refusals_carry_the_eager_message():
    pytest.importorskip("dask.array")
    import dmlcpu.dask as dd
    a, b = np.zeros((2, 3), np.float32), np.zeros((2, 3), np.int32)
    eager = refusal(lambda: dml.join([a, b], axis=1))
    assert str(refusal(lambda: dd.join([a, b], axis=1))) == str(eager)
    assert str(eager).startswith("JOIN: inputs[1] (InputTensors[1])")


def test_a_read_only_out_is_named_out():
    x = np.zeros((2, 2), np.float32)
    out = np.zeros((2, 4), np.float32)
    out.flags.writeable = False
    e = refusal(lambda: dml.tile(x, repeats=[1, 2], out=out))
    assert str(e) == "out (OutputTensor) is read-only but must be writable"


def test_a_non_array_input_is_named_input():
    e = refusal(lambda: dml.tile("text", repeats=[1]), TypeError)
    assert str(e).startswith("input (InputTensor) must be an array, a buffer or a __dlpack__")


def test_descriptors_keep_directml_field_names():
    T = dml.TensorDataType
    desc = dml.SplitOperatorDesc(dml.TensorDesc(T.FLOAT32, [1, 1, 6, 2]),
                                 [dml.TensorDesc(T.FLOAT32, [1, 1, 2, 2]),
                                  dml.TensorDesc(T.FLOAT32, [1, 1, 4, 3])], axis=2)
    e = refusal(lambda: dml.compile_operator(desc))
    assert str(e).startswith("SPLIT: OutputTensors[1].Sizes[3] is 3 but must equal "
                             "InputTensor.Sizes[3] (2)")


def test_mode_rules_read_in_extended_mode_and_at_a_feature_level():
    e = refusal(lambda: dml.tile(np.zeros((1,) * 9, np.float32), repeats=[1] * 9))
    assert str(e) == ("TILE: input (InputTensor).DimensionCount is 9 but must be between 1 and "
                      "8 in extended mode")
    e = refusal(lambda: dml.tile(np.zeros((2, 2), np.float64), repeats=[1, 1],
                                 feature_level="6_4"))
    assert str(e).endswith(" at feature level 6_4")
    assert "extended" not in str(e)
    op = dml.compile_operator(dml.TileOperatorDesc(
        dml.TensorDesc(dml.TensorDataType.FLOAT32, [2]),
        dml.TensorDesc(dml.TensorDataType.FLOAT32, [4]), repeats=[2]))
    assert repr(op).startswith("<CompiledOperator TILE in extended mode: ")


@pytest.mark.parametrize("name, bases", [
    ("DmlcpuError", (Exception,)),
    ("InvalidArgumentError", (dml.DmlcpuError, ValueError)),
    ("CoreError", (dml.DmlcpuError, RuntimeError)),
    ("ModelError", (dml.DmlcpuError, ValueError)),
    ("ModelFileError", (dml.DmlcpuError, ValueError)),
])
def test_every_exception_is_exported_with_its_bases(name, bases):
    assert name in dml.__all__
    assert getattr(dml, name).__bases__ == bases


def test_every_exported_exception_is_in_that_list():
    exported = {n for n in dml.__all__ if isinstance(getattr(dml, n), type)
                and issubclass(getattr(dml, n), BaseException)}
    assert exported == {"DmlcpuError", "InvalidArgumentError", "CoreError", "ModelError",
                        "ModelFileError"}


def test_run_dxdispatch_raises_the_exported_exceptions(tmp_path):
    model = {"resources": {}, "dispatchables": {"t": {"type": "TILE"}}, "commands": []}
    e = refusal(lambda: dml.run_dxdispatch(model, stdout=io.StringIO()), dml.ModelError)
    assert e.errors
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    refusal(lambda: dml.run_dxdispatch(str(bad), stdout=io.StringIO()), dml.ModelFileError)
