"""The public surface: docs/semantics.md section 6's names exist, each with a docstring, and the
enums carry DirectML's values."""
import inspect

import dmlcpu as dml

SPEC_NAMES = [
    "split", "join", "slice", "slice1", "tile", "cumulative_summation", "cumulative_product",
    "TensorDesc", "SplitOperatorDesc", "JoinOperatorDesc", "SliceOperatorDesc",
    "Slice1OperatorDesc", "TileOperatorDesc", "CumulativeSummationOperatorDesc",
    "CumulativeProductOperatorDesc", "compile_operator", "calc_buffer_tensor_size",
    "support_table", "FeatureLevel", "AxisDirection", "TensorDataType", "InvalidArgumentError",
    "show_config", "set_num_threads", "get_num_threads",
]


def test_every_spec_name_is_exported():
    missing = [name for name in SPEC_NAMES if name not in dml.__all__ or not hasattr(dml, name)]
    assert missing == []


def test_every_public_name_has_a_docstring():
    undocumented = [name for name in dml.__all__ if name != "__version__"
                    and not (inspect.getdoc(getattr(dml, name)) or "").strip()]
    assert undocumented == []


def test_keyword_names_mirror_directml_fields():
    assert list(inspect.signature(dml.split).parameters) == [
        "input", "axis", "output_axis_sizes", "outputs", "feature_level"]
    assert list(inspect.signature(dml.slice1).parameters) == [
        "input", "input_window_offsets", "input_window_sizes", "input_window_strides",
        "output_sizes", "out", "feature_level"]
    assert list(inspect.signature(dml.cumulative_product).parameters) == [
        "input", "axis", "axis_direction", "has_exclusive_product", "out", "feature_level"]


def test_enum_values_are_directml_values():
    assert {t.name: int(t) for t in dml.TensorDataType} == {
        "UNKNOWN": 0, "FLOAT32": 1, "FLOAT16": 2, "UINT32": 3, "UINT16": 4, "UINT8": 5,
        "INT32": 6, "INT16": 7, "INT8": 8, "FLOAT64": 9, "UINT64": 10, "INT64": 11}
    assert [int(level) for level in dml.FeatureLevel] == [
        0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000, 0x5100, 0x5200,
        0x6000, 0x6100, 0x6200, 0x6300, 0x6400]
    assert (int(dml.AxisDirection.INCREASING), int(dml.AxisDirection.DECREASING)) == (0, 1)
    assert issubclass(dml.InvalidArgumentError, ValueError)


def test_support_table_matches_spec_section_4():
    table = dml.support_table()
    L = dml.FeatureLevel
    assert set(table) == {"SPLIT", "SLICE", "SLICE1", "JOIN", "TILE", "CUMULATIVE_SUMMATION",
                          "CUMULATIVE_PRODUCT"}
    # spot checks typed from docs/feature-levels.md's table (the full table: test_desc_rules.py)
    assert table["TILE"]["data_types"]["FLOAT64"] is None
    assert table["TILE"]["data_types"]["INT16"] == L.FL_2_1
    assert table["SLICE1"]["data_types"]["FLOAT32"] == L.FL_2_1
    assert table["CUMULATIVE_PRODUCT"]["data_types"]["INT64"] == L.FL_5_0
    assert table["CUMULATIVE_SUMMATION"]["data_types"]["INT8"] is None
    assert table["SPLIT"]["data_types"]["UINT8"] == L.FL_2_1
    assert table["JOIN"]["introduced"] == L.FL_1_0
    assert table["CUMULATIVE_SUMMATION"]["introduced"] == L.FL_2_1
    assert table["JOIN"]["dimension_counts"] == [(L.FL_1_0, 4, 4), (L.FL_3_0, 4, 5),
                                                 (L.FL_3_1, 1, 8)]
    assert table["CUMULATIVE_PRODUCT"]["dimension_counts"] == [(L.FL_3_1, 4, 4), (L.FL_4_0, 1, 8)]


def test_c_core_and_python_agree_on_element_sizes():
    from dmlcpu import _core
    from dmlcpu._types import ELEMENT_SIZES
    assert {t: _core.dtype_size(int(t)) for t in ELEMENT_SIZES} == ELEMENT_SIZES
    assert _core.dtype_size(0) == 0 and _core.dtype_size(12) == 0
