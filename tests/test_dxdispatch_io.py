"""DxDispatch models' data in and out: every initialValues form (lists, mixed lists, constants,
sequences, .npy and raw files), how numbers become bytes (FLOAT16 truncated toward zero), the
text of ``print`` and the files of ``writeFile``."""
import io

import numpy as np
import pytest

import dmlcpu as dml

from test_dxdispatch import dispatch, model, run, tensor, values, zeros


def resource_bytes(spec, **kwargs):
    results, _ = run(model({"r": spec}, {}, []), **kwargs)
    return results["r"].tobytes()


def printed(spec, verbose=False):
    return run(model({"r": spec}, {}, [{"type": "print", "resource": "r",
                                        "verbose": verbose}]))[1]


# ---------------------------------------------------------------- initialValues forms

def test_typed_list_is_padded_to_4_bytes():
    assert resource_bytes(values([1, 2, 3], "INT8")) == bytes([1, 2, 3, 0])
    assert resource_bytes(values([-1, 258], "INT16")) == b"\xff\xff\x02\x01"


def test_mixed_list_packs_without_alignment():
    # FLOAT32 1.0, UINT8 2, INT16 -3, FLOAT32 0.5: 11 bytes, buffer 12 (DxDispatch's own test)
    spec = {"initialValues": [{"type": "FLOAT32", "value": 1}, {"type": "UINT8", "value": 2},
                              {"type": "DML_TENSOR_DATA_TYPE_INT16", "value": -3,
                               "name": "ignored"},
                              {"type": "FLOAT32", "value": 0.5}]}
    assert resource_bytes(spec) == (b"\x00\x00\x80\x3f" + b"\x02" + b"\xfd\xff" +
                                    b"\x00\x00\x00\x3f" + b"\x00")


def test_constant_and_explicit_size():
    spec = values({"valueCount": 3, "value": 7}, "UINT16")
    assert resource_bytes(spec) == b"\x07\x00" * 3 + b"\x00\x00"
    spec["sizeInBytes"] = 10  # an explicit size is not rounded up to 12
    assert resource_bytes(spec) == b"\x07\x00" * 3 + b"\x00" * 4


@pytest.mark.parametrize("data_type, start, delta, expected", [
    ("UINT8", 250, 3, [250, 253, 0, 3]),             # wraps modulo 2^8
    ("INT8", -127, -1, [-127, -128, 127, 126]),
    ("INT64", 2**63 - 2, 1, [2**63 - 2, 2**63 - 1, -2**63, -2**63 + 1]),
    ("FLOAT64", 0.5, -0.25, [0.5, 0.25, 0.0, -0.25]),
])
def test_sequences_add_in_the_element_type(data_type, start, delta, expected):
    spec = values({"valueCount": 4, "valueStart": start, "valueDelta": delta}, data_type)
    assert run(model({"r": spec}, {}, []))[0]["r"][:4].tolist() == expected


def test_float32_sequence_accumulates_float_rounding():
    spec = values({"valueCount": 4, "valueStart": 0.1, "valueDelta": 0.1})
    got = np.frombuffer(resource_bytes(spec), np.float32)
    want, v = [], np.float32(0.1)
    for _ in range(4):  # v += 0.1f, one float add after another
        want.append(v)
        v = np.float32(v + np.float32(0.1))
    assert got.tolist() == np.array(want, np.float32).tolist()


# FLOAT16 literals: parsed as FLOAT32, then truncated toward zero (half_float's default).
@pytest.mark.parametrize("literal, bits", [
    (0.3, 0x34CC),        # round-to-nearest would give 0x34CD
    (2051, 0x6801),       # 2050; nearest gives 2052
    (65519, 0x7BFF),      # nearest gives inf from 65520
    (65535.9, 0x7BFF),
    (65536, 0x7C00),
    (-70000, 0xFC00),
    ("nan", 0x7E00),
    ("-INF", 0xFC00),
    (-0.0, 0x8000),
    (3e-5, 0x01F7),       # subnormal: 503.3 units of 2^-24 -> 503
    (5e-8, 0x0000),       # below the smallest subnormal
])
def test_float16_literals_truncate(literal, bits):
    got = np.frombuffer(resource_bytes(values([literal], "FLOAT16")), np.uint16)[0]
    assert hex(got) == hex(bits)
    # with a string beside it the list takes the element-wise path: the same bits
    got = np.frombuffer(resource_bytes(values([literal, "inf"], "FLOAT16")), np.uint16)[0]
    assert hex(got) == hex(bits)


def test_float16_sequence_truncates_each_step_and_sticks():
    # 2046 + 1 = 2047, 2048, then 2049 truncates to 2048 (FLOAT16 spacing is 2 there)
    spec = values({"valueCount": 70000, "valueStart": 2046, "valueDelta": 1}, "FLOAT16")
    got = run(model({"r": spec}, {}, []))[0]["r"]
    assert got[:5].tolist() == [2046, 2047, 2048, 2048, 2048]
    assert (got[2:70000] == 2048).all()
    # 0.1 in FLOAT16 is 0x2E66; the sum walks 0x2E66, 0x3266, 0x34CC (truncated each time)
    spec = values({"valueCount": 4, "valueStart": 0, "valueDelta": 0.1}, "FLOAT16")
    assert np.frombuffer(resource_bytes(spec), np.uint16).tolist() == [0, 0x2E66, 0x3266, 0x34CC]


def test_npy_source_types_itself_and_keeps_every_byte(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(5, dtype=np.int16).reshape(1, 5))
    spec = {"initialValues": {"sourcePath": "x.npy"}}
    results = dml.run_dxdispatch(model({"r": spec}, {}, []), input_path=str(tmp_path))
    assert results["r"].dtype == np.int16 and results["r"].tolist() == [0, 1, 2, 3, 4, 0]
    spec["initialValuesDataType"] = "INT16"
    assert dml.run_dxdispatch(model({"r": spec}, {}, []), input_path=str(tmp_path))[
        "r"].tolist() == [0, 1, 2, 3, 4, 0]


def test_npy_header_versions_short_and_long_files(tmp_path):
    array = np.array([1.5, -2.5, 3.5], np.float64)
    for version in [(1, 0), (2, 0), (3, 0)]:
        with open(tmp_path / f"v{version[0]}.npy", "wb") as handle:
            np.lib.format.write_array(handle, array, version=version)
    whole = (tmp_path / "v1.npy").read_bytes()
    (tmp_path / "short.npy").write_bytes(whole[:-8])            # last element missing
    (tmp_path / "long.npy").write_bytes(whole + b"\x00" * 7 + b"\x40")  # one more: 2.0
    m = model({name: {"initialValues": {"sourcePath": f"{name}.npy"}}
               for name in ("v1", "v2", "v3", "short", "long")}, {}, [])
    results = dml.run_dxdispatch(m, input_path=str(tmp_path))
    for name in ("v1", "v2", "v3"):
        assert results[name].tolist() == [1.5, -2.5, 3.5]
    assert results["short"].tolist() == [1.5, -2.5, 0.0]   # zero-padded to the shape
    assert results["long"].tolist() == [1.5, -2.5, 3.5, 2.0]  # every byte kept


def test_npy_bool_reads_as_int8_and_big_endian_is_swapped_per_element(tmp_path):
    np.save(tmp_path / "b.npy", np.array([True, False, True]))
    np.save(tmp_path / "be.npy", np.array([1.0, 2.0], dtype=">f4"))
    m = model({"b": {"initialValues": {"sourcePath": str(tmp_path / "b.npy")}},
               "be": {"initialValues": {"sourcePath": str(tmp_path / "be.npy")}}}, {}, [])
    results, _ = run(m)
    assert results["b"].dtype == np.int8 and results["b"][:3].tolist() == [1, 0, 1]
    assert results["be"].dtype == np.float32 and results["be"].tolist() == [1.0, 2.0]


def test_raw_source_file_model_relative(tmp_path):
    (tmp_path / "data.bin").write_bytes(np.array([3, 4, 5], np.uint32).tobytes())
    path = tmp_path / "m.json"
    path.write_text('{"resources": {"r": {"initialValuesDataType": "UINT32", '
                    '"initialValues": {"sourcePath": "data.bin"}}}, "dispatchables": {}, '
                    '"commands": [{"type": "print", "resource": "r"}]}')
    out = io.StringIO()
    assert dml.run_dxdispatch(path, stdout=out)["r"].tolist() == [3, 4, 5]
    assert out.getvalue() == "Resource 'r': 3, 4, 5\n"


# ---------------------------------------------------------------- print text

@pytest.mark.parametrize("data_type, data, text", [
    ("FLOAT32", [0.1, 1234567, 1e-05, -0.0, 100000, 1e16, "inf", "-inf", "nan"],
     "0.1, 1.23457e+06, 1e-05, -0, 100000, 1e+16, inf, -inf, nan"),
    ("FLOAT16", [0.3, 2051], "0.299805, 2050"),
    ("FLOAT64", [1 / 3, 2.5e-300], "0.333333, 2.5e-300"),
    ("INT64", [-2**63, 2**63 - 1], "-9223372036854775808, 9223372036854775807"),
    ("UINT64", [2**64 - 1], "18446744073709551615"),
    ("INT8", [-5, 65], "-5, 65"),        # DxDispatch would write characters here
    ("UINT8", [0, 255], "0, 255"),
])
def test_print_numbers_as_cpp_streams_write_them(data_type, data, text):
    assert printed(values(data, data_type)) == f"Resource 'r': {text}\n"


def test_print_nan_spellings_of_the_microsoft_c_runtime(tmp_path):
    bits = np.array([0x7FC00000, 0xFFC00000, 0xFFC00001], np.uint32)  # nan, default NaN, other
    np.save(tmp_path / "n.npy", bits.view(np.float32))
    signaling = np.array([0x7FF0000000000001], np.uint64).view(np.float64)
    np.save(tmp_path / "s.npy", signaling)
    assert printed({"initialValues": {"sourcePath": str(tmp_path / "n.npy")}}) == \
        "Resource 'r': nan, -nan(ind), -nan\n"
    assert printed({"initialValues": {"sourcePath": str(tmp_path / "s.npy")}}) == \
        "Resource 'r': nan(snan)\n"


def test_verbose_print_pads_index_and_hex_with_spaces():
    text = printed(values({"valueCount": 11, "valueStart": -5, "valueDelta": 1}, "INT16"),
                   verbose=True)
    lines = text.split("\n")
    assert lines[0] == "Resource 'r':"
    assert lines[1] == "[ 0] -5 (0xFFFB)"
    assert lines[6] == "[ 5] 0 (0x   0)"
    assert lines[11] == "[10] 5 (0x   5)"
    assert lines[12:] == ["", ""]  # the last element's newline, then an empty line
    assert printed(values([10], "UINT8"), verbose=True) == "Resource 'r':\n[0] 10 (0x A)\n\n"


# ---------------------------------------------------------------- writeFile

def test_write_file_npy_is_dxdispatchs_file_byte_for_byte(tmp_path):
    m = model({"r": values([1, 2, 3, 4, 5, 6], "INT8")}, {},
              [{"type": "writeFile", "resource": "r", "targetPath": "sub/dir/r.npy",
                "dimensions": [2, 3]},
               {"type": "writeFile", "resource": "r", "targetPath": "flat.npy"},
               {"type": "writeFile", "resource": "r", "targetPath": "raw.bin"}])
    _, text = run(m, output_path=str(tmp_path))
    data = (tmp_path / "sub" / "dir" / "r.npy").read_bytes()
    header = b"{'descr':'<i1', 'fortran_order':False, 'shape':(2,3,), }"
    assert data[:10] == b"\x93NUMPY\x01\x00\x76\x00"   # version 1.0, header length 118
    assert data[10:128] == header + b" " * (117 - len(header)) + b"\n"
    assert data[128:] == bytes([1, 2, 3, 4, 5, 6, 0, 0])   # the whole buffer, padding too
    assert np.load(tmp_path / "sub" / "dir" / "r.npy").tolist() == [[1, 2, 3], [4, 5, 6]]
    assert np.load(tmp_path / "flat.npy").tolist() == [1, 2, 3, 4, 5, 6, 0, 0]
    assert (tmp_path / "raw.bin").read_bytes() == bytes([1, 2, 3, 4, 5, 6, 0, 0])
    assert text == ("Resource 'r' written to 'sub/dir/r.npy'\n"
                    "Resource 'r' written to 'flat.npy'\nResource 'r' written to 'raw.bin'\n")


def test_write_file_failure_is_reported_and_the_run_goes_on(tmp_path):
    (tmp_path / "taken").mkdir()
    m = model({"r": values([1])}, {},
              [{"type": "writeFile", "resource": "r", "targetPath": "taken"},
               {"type": "writeFile", "resource": "r", "targetPath": "nul\0.bin"},
               {"type": "print", "resource": "r"}])
    err = io.StringIO()
    _, text = run(m, output_path=str(tmp_path), stderr=err)
    assert text == "Resource 'r': 1\n"
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("Failed to write resource to file 'taken': ")
    assert lines[1].startswith("Failed to write resource to file 'nul\0.bin': ")
    assert len(lines) == 2


def test_npy_round_trip_through_a_dispatch(tmp_path):
    source = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.save(tmp_path / "in.npy", source)
    m = model({"in": {"initialValues": {"sourcePath": "in.npy"}}, "out": zeros(24)},
              {"scan": {"type": "CUMULATIVE_SUMMATION", "Axis": 1, "HasExclusiveSum": False,
                        "AxisDirection": "INCREASING", "InputTensor": tensor([2, 3, 4]),
                        "OutputTensor": tensor([2, 3, 4])}},
              [dispatch("scan", InputTensor="in", OutputTensor="out"),
               {"type": "writeFile", "resource": "out", "targetPath": "out.npy",
                "dimensions": [2, 3, 4]}])
    run(m, input_path=str(tmp_path), output_path=str(tmp_path))
    assert np.load(tmp_path / "out.npy").tobytes() == \
        dml.cumulative_summation(source, axis=1).tobytes()
