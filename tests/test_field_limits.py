"""Integer fields at and past 64 bits, and numbers too long to print, in every mode and API.

Every field wider than 64 bits is refused with InvalidArgumentError naming it, in extended mode
as at a feature level (UINT fields: at most 2^64 - 1; INT fields: -2^63 to 2^63 - 1). Numbers
past Python's 4,300-digit limit for ``str(int)`` still get InvalidArgumentError, never the
ValueError of formatting them. The expected messages are written out by hand.
"""
import numpy as np
import pytest

import dmlcpu as dml
from dmlcpu import InvalidArgumentError, TensorDesc

U64 = 2**64 - 1
HUGE = 10**5000  # str() refuses it: messages must not
WIDE = [2**64, 2**100, HUGE, -HUGE]
LEVELS = [None, "6_4"]


def f32(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def refused(call, field):
    with pytest.raises(InvalidArgumentError) as info:
        call()
    assert any(field in message for message in info.value.violations), info.value.violations
    return info.value


# (field the message names, eager call taking the value and the feature level)
EAGER = [
    ("Axis", lambda v, lv: dml.split(f32(2, 2), axis=v, output_axis_sizes=[2],
                                     feature_level=lv)),
    ("Axis", lambda v, lv: dml.cumulative_summation(f32(2), axis=v, feature_level=lv)),
    ("Offsets[0]", lambda v, lv: dml.slice(f32(4), offsets=[v], sizes=[1],
                                           feature_level=lv)),
    ("Sizes[0]", lambda v, lv: dml.slice(f32(4), offsets=[0], sizes=[v], out=f32(1),
                                         feature_level=lv)),
    ("Strides[0]", lambda v, lv: dml.slice(f32(4), offsets=[0], sizes=[1], strides=[v],
                                           feature_level=lv)),
    ("InputWindowOffsets[0]", lambda v, lv: dml.slice1(
        f32(4), input_window_offsets=[v], input_window_sizes=[1], feature_level=lv)),
    ("InputWindowSizes[0]", lambda v, lv: dml.slice1(
        f32(4), input_window_offsets=[0], input_window_sizes=[v], out=f32(1),
        feature_level=lv)),
    ("InputWindowStrides[0]", lambda v, lv: dml.slice1(
        f32(4), input_window_offsets=[0], input_window_sizes=[1], input_window_strides=[v],
        feature_level=lv)),
    ("Repeats[0]", lambda v, lv: dml.tile(f32(2), repeats=[v], out=f32(2), feature_level=lv)),
    ("AxisDirection", lambda v, lv: dml.cumulative_product(f32(2), axis=0, axis_direction=v,
                                                           feature_level=lv)),
    ("HasExclusiveSum", lambda v, lv: dml.cumulative_summation(f32(2), axis=0,
                                                               has_exclusive_sum=v,
                                                               feature_level=lv)),
    ("feature_level", lambda v, lv: dml.tile(f32(2), repeats=[1], feature_level=v)),
    # the eager API's own fields
    ("output_axis_sizes[0]", lambda v, lv: dml.split(f32(4), axis=0, output_axis_sizes=[v],
                                                     outputs=[f32(4)], feature_level=lv)),
    ("output_sizes", lambda v, lv: dml.slice1(f32(4), input_window_offsets=[0],
                                              input_window_sizes=[4], output_sizes=[v],
                                              out=f32(4), feature_level=lv)),
]


@pytest.mark.parametrize("level", LEVELS, ids=["extended", "6_4"])
@pytest.mark.parametrize("value", WIDE, ids=["2^64", "2^100", "10^5000", "-10^5000"])
@pytest.mark.parametrize("field,call", EAGER, ids=[f"{i}-{row[0]}" for i, row in enumerate(EAGER)])
def test_eager_field_beyond_64_bits_is_refused_naming_it(field, call, value, level):
    refused(lambda: call(value, level), field)


def t(sizes=(4,), **kwargs):
    return TensorDesc("FLOAT32", list(sizes), **kwargs)


# (field path the message names, descriptor taking the value)
DESCRIPTORS = [
    ("InputTensor.DataType", lambda v: dml.TileOperatorDesc(TensorDesc(v, [4]), t(), [1])),
    ("InputTensor.Sizes[0]", lambda v: dml.TileOperatorDesc(t([v]), t(), [1])),
    ("OutputTensor.Strides[0]", lambda v: dml.TileOperatorDesc(t(), t(strides=[v]), [1])),
    ("InputTensor.TotalTensorSizeInBytes", lambda v: dml.TileOperatorDesc(
        t(total_tensor_size_in_bytes=v), t(), [1])),
    ("InputTensor.GuaranteedBaseOffsetAlignment", lambda v: dml.TileOperatorDesc(
        t(guaranteed_base_offset_alignment=v), t(), [1])),
    ("InputTensor.Flags", lambda v: dml.TileOperatorDesc(t(flags=v), t(), [1])),
    ("Axis", lambda v: dml.JoinOperatorDesc([t(), t()], t([8]), v)),
    ("Offsets[0]", lambda v: dml.SliceOperatorDesc(t(), t([1]), [v], [1], [1])),
    ("Sizes[0]", lambda v: dml.SliceOperatorDesc(t(), t([1]), [0], [v], [1])),
    ("Strides[0]", lambda v: dml.SliceOperatorDesc(t(), t([1]), [0], [1], [v])),
    ("InputWindowOffsets[0]", lambda v: dml.Slice1OperatorDesc(t(), t([1]), [v], [1], [1])),
    ("InputWindowSizes[0]", lambda v: dml.Slice1OperatorDesc(t(), t([1]), [0], [v], [1])),
    ("InputWindowStrides[0]", lambda v: dml.Slice1OperatorDesc(t(), t([1]), [0], [1], [v])),
    ("Repeats[0]", lambda v: dml.TileOperatorDesc(t(), t(), [v])),
    ("AxisDirection", lambda v: dml.CumulativeSummationOperatorDesc(t(), t(), 0, v)),
    ("HasExclusiveProduct", lambda v: dml.CumulativeProductOperatorDesc(t(), t(), 0, 0, v)),
]


@pytest.mark.parametrize("level", LEVELS, ids=["extended", "6_4"])
@pytest.mark.parametrize("value", WIDE, ids=["2^64", "2^100", "10^5000", "-10^5000"])
@pytest.mark.parametrize("field,make", DESCRIPTORS,
                         ids=[f"{i}-{row[0]}" for i, row in enumerate(DESCRIPTORS)])
def test_descriptor_field_beyond_64_bits_is_refused_naming_it(field, make, value, level):
    desc = make(value)
    assert repr(desc).startswith(type(desc).__name__)  # every field shown, however long
    refused(lambda: dml.compile_operator(desc, level), field)


def test_slice1_one_element_window_strides_up_to_64_bits_are_taken():
    x = f32(3, 4)
    for step in [-2**63, 2**63 - 1]:
        got = dml.slice1(x, input_window_offsets=[1, 0], input_window_sizes=[1, 4],
                         input_window_strides=[step, 1])
        assert got.tolist() == [x[1].tolist()]
        desc = dml.Slice1OperatorDesc(TensorDesc("FLOAT32", [3, 4]), TensorDesc("FLOAT32", [1, 4]),
                                      [1, 0], [1, 4], [step, 1])
        out = bytearray(16)
        dml.compile_operator(desc).execute([x.tobytes()], [out])
        assert np.frombuffer(out, np.float32).tolist() == x[1].tolist()


@pytest.mark.parametrize("step", [2**64, -2**63 - 1])
def test_slice1_one_element_window_stride_beyond_64_bits_is_refused(step):
    message = (f"SLICE1: InputWindowStrides[0] is {step} but must fit in 64 bits (an INT64)")
    with pytest.raises(InvalidArgumentError) as info:
        dml.slice1(f32(3, 4), input_window_offsets=[1, 0], input_window_sizes=[1, 4],
                   input_window_strides=[step, 1])
    assert str(info.value) == message
    desc = dml.Slice1OperatorDesc(TensorDesc("FLOAT32", [3, 4]), TensorDesc("FLOAT32", [1, 4]),
                                  [1, 0], [1, 4], [step, 1])
    with pytest.raises(InvalidArgumentError) as info:
        dml.compile_operator(desc)
    assert info.value.violations == [message]


def test_slice_stride_of_a_one_element_dim_up_to_2_64_minus_1_is_taken():
    x = f32(3, 4)
    assert dml.slice(x, offsets=[2, 0], sizes=[1, 4], strides=[U64, 1]).tolist() == [
        x[2].tolist()]
    message = f"SLICE: Strides[0] is {2**64} but must fit in 64 bits (at most {U64})"
    with pytest.raises(InvalidArgumentError) as info:
        dml.slice(x, offsets=[2, 0], sizes=[1, 4], strides=[2**64, 1])
    assert str(info.value) == message


def test_a_number_too_long_to_print_is_shown_by_its_length():
    with pytest.raises(InvalidArgumentError) as info:
        dml.tile(f32(2), repeats=[HUGE], out=f32(2))
    bits = HUGE.bit_length()
    assert str(info.value) == (f"TILE: Repeats[0] is (an integer of {bits} bits) but must fit in "
                               f"64 bits (at most {U64})")
