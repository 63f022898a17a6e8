"""Random DxDispatch models against the eager API: every operator, all eleven types, ranks 1 to
4, inputs and outputs bound at random aligned offsets inside larger resources."""
import io

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import dmlcpu as dml
from dmlcpu._types import NUMPY_DTYPES as DTYPES

from conftest import examples
from test_dxdispatch import dispatch, model, tensor, values

TYPES = list(DTYPES)
DTYPES_NAMES = {dtype: t.name for t, dtype in DTYPES.items()}


def bound(name, data, dtype, lead, spare):
    """A resource holding data after ``lead`` blocks of 16 bytes, with ``spare`` elements
    after it (a value no operator here writes), and the binding that reaches data."""
    per_block = 16 // dtype.itemsize
    filler = [-1.5 if dtype.kind == "f" else int(np.iinfo(dtype).max)]
    flat = filler * (lead * per_block) + data.ravel().tolist() + filler * spare
    return values(flat, DTYPES_NAMES[dtype]), {"name": name, "elementOffset": lead * per_block}


@st.composite
def cases(draw):
    data_type = draw(st.sampled_from(TYPES))
    dtype = DTYPES[data_type]
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    data = np.array(draw(st.lists(st.integers(0, 9), min_size=int(np.prod(shape)),
                                  max_size=int(np.prod(shape)))), dtype=dtype).reshape(shape)
    op = draw(st.sampled_from(["SLICE", "TILE", "CUMULATIVE_SUMMATION", "CUMULATIVE_PRODUCT",
                               "SPLIT", "JOIN"]))
    axis = draw(st.integers(0, len(shape) - 1))
    if op == "SLICE":
        offsets = [draw(st.integers(0, n - 1)) for n in shape]
        strides = [draw(st.integers(0, 2)) for _ in shape]
        sizes = [draw(st.integers(1, 1 + (n - 1 - o) // s if s else 3))
                 for n, o, s in zip(shape, offsets, strides)]
        fields = {"DimensionCount": len(shape), "Offsets": offsets, "Sizes": sizes,
                  "Strides": strides}
        expected = [dml.slice(data, offsets=offsets, sizes=sizes, strides=strides)]
    elif op == "TILE":
        repeats = [draw(st.integers(1, 3)) for _ in shape]
        fields = {"RepeatsCount": len(shape), "Repeats": repeats}
        expected = [dml.tile(data, repeats=repeats)]
    elif op.startswith("CUMULATIVE"):
        decreasing, exclusive = draw(st.booleans()), draw(st.booleans())
        flag = "HasExclusiveSum" if op == "CUMULATIVE_SUMMATION" else "HasExclusiveProduct"
        fields = {"Axis": axis, "AxisDirection": "DECREASING" if decreasing else "INCREASING",
                  flag: exclusive}
        eager = dml.cumulative_summation if flag == "HasExclusiveSum" else \
            dml.cumulative_product
        expected = [eager(data, axis=axis, axis_direction=int(decreasing),
                          **{"has_exclusive_sum" if flag == "HasExclusiveSum"
                             else "has_exclusive_product": exclusive})]
    elif op == "SPLIT":
        cut = draw(st.integers(0, shape[axis]))
        parts = [n for n in (cut, shape[axis] - cut) if n]
        expected = dml.split(data, axis=axis, output_axis_sizes=parts)
        fields = {"OutputCount": len(parts), "Axis": axis}
    else:
        expected = [np.concatenate([data, data[..., ::-1]], axis=axis)]
        fields = {"InputCount": 2, "Axis": axis}
    return data_type, data, op, fields, expected, draw(st.integers(0, 2)), draw(
        st.integers(0, 3))


@settings(max_examples=examples(120))
@given(cases())
def test_models_match_the_eager_api(case):
    data_type, data, op, fields, expected, lead, spare = case
    dtype, name = DTYPES[data_type], data_type.name
    resources, bindings = {}, {}
    resources["x"], x_binding = bound("x", data, dtype, lead, spare)
    outputs = []
    for k, out in enumerate(expected):
        resources[f"y{k}"], binding = bound(f"y{k}", np.zeros(out.shape, dtype), dtype, lead,
                                            spare)
        outputs.append(binding)
    if op == "JOIN":
        resources["x2"], x2_binding = bound("x2", data[..., ::-1], dtype, spare % 2, lead)
        desc = {"InputTensors": [tensor(list(data.shape), name)] * 2,
                "OutputTensor": tensor(list(expected[0].shape), name), **fields}
        bindings = {"InputTensors": [x_binding, x2_binding], "OutputTensor": outputs[0]}
    elif op == "SPLIT":
        desc = {"InputTensor": tensor(list(data.shape), name),
                "OutputTensors": [tensor(list(out.shape), name) for out in expected], **fields}
        bindings = {"InputTensor": x_binding, "OutputTensors": outputs}
    else:
        desc = {"InputTensor": tensor(list(data.shape), name),
                "OutputTensor": tensor(list(expected[0].shape), name), **fields}
        bindings = {"InputTensor": x_binding, "OutputTensor": outputs[0]}
    m = model(resources, {"op": {"type": op, "desc": desc}}, [dispatch("op", **bindings)])
    results = dml.run_dxdispatch(m, feature_level=None, stdout=io.StringIO())
    for k, out in enumerate(expected):
        got = results[f"y{k}"]
        start = outputs[k]["elementOffset"]
        assert got[start:start + out.size].tobytes() == out.tobytes()
        # nothing outside the output's elements was written
        before = np.frombuffer(np.array(resources[f"y{k}"]["initialValues"], dtype).tobytes(),
                               dtype)
        assert got[:start].tobytes() == before[:start].tobytes()
        assert got[start + out.size:len(before)].tobytes() == \
            before[start + out.size:].tobytes()
