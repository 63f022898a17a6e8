"""The DxDispatch runner's defects of the third hardening round (issue 53), one test each:
the memory bound (``max_bytes`` covers everything a run materializes), writeFile's rule, names,
and hostile .npy headers. Memory is measured with tracemalloc (NumPy and bytearray allocations
are traced), against bounds written out from the model's sizes."""
import io
import json
import os
import struct
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import dmlcpu as dml
from dmlcpu.dxdispatch import _model as _dxdispatch_model
from dmlcpu import ModelError, ModelFileError
from dmlcpu.dxdispatch._json import parse_model_text

from test_dxdispatch import dispatch, model, tensor, values, zeros

pytestmark = pytest.mark.python_layer

MiB = 2**20


class Sink(io.TextIOBase):
    """A stdout that counts characters and keeps none."""

    def __init__(self):
        self.chars = 0

    def write(self, text):
        self.chars += len(text)
        return len(text)


def peak(function):
    """(function's result, the most bytes traced at once while it ran)."""
    tracemalloc.start()
    try:
        result = function()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def refusal(m, **kwargs):
    with pytest.raises(ModelError) as info:
        dml.run_dxdispatch(m, stdout=io.StringIO(), stderr=io.StringIO(), **kwargs)
    return info.value.errors


def npy_file(path, shape_text, payload=b"", descr="<f4"):
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}"
    header = text.encode("latin1").ljust(117) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + payload)
    return path


# ---------------------------------------------------------------- 1, 15: .npy headers

def test_npy_header_claiming_more_than_max_bytes_is_refused_before_allocating(tmp_path):
    npy_file(tmp_path / "big.npy", "(16777216,)")  # 128 bytes claiming 64 MiB
    m = model({"a": {"initialValues": {"sourcePath": "big.npy"}}}, {}, [])
    errors, most = peak(lambda: refusal(m, input_path=str(tmp_path), max_bytes=MiB))
    assert len(errors) == 1 and "max_bytes" in errors[0] and "big.npy" in errors[0], errors
    assert most < MiB // 2, most


def test_npy_header_claiming_more_than_size_in_bytes_is_refused_before_allocating(tmp_path):
    npy_file(tmp_path / "big.npy", "(16777216,)")
    m = model({"a": {"initialValues": {"sourcePath": "big.npy"}, "sizeInBytes": 64}}, {}, [])
    errors, most = peak(lambda: refusal(m, input_path=str(tmp_path)))
    assert len(errors) == 1 and "exceed sizeInBytes (64)" in errors[0], errors
    assert most < MiB // 2, most


@pytest.mark.parametrize("shape", ["(1e999,)", "(" + "9" * 31 + ",)", "(-1,)", "(2.5,)",
                                   "[3]", "(True,)"])
def test_npy_shapes_that_are_not_counts_are_one_model_error(tmp_path, shape):
    npy_file(tmp_path / "odd.npy", shape, b"\0" * 16)
    m = model({"a": {"initialValues": {"sourcePath": "odd.npy"}}}, {}, [])
    errors = refusal(m, input_path=str(tmp_path))
    assert len(errors) == 1 and "odd.npy" in errors[0], errors


def test_npy_header_longer_than_the_limit_is_refused(tmp_path):
    path = tmp_path / "long.npy"
    path.write_bytes(b"\x93NUMPY\x02\x00" + struct.pack("<I", 2**31) + b"{")
    m = model({"a": {"initialValues": {"sourcePath": "long.npy"}}}, {}, [])
    errors, most = peak(lambda: refusal(m, input_path=str(tmp_path)))
    assert "header is 2147483648 bytes long" in errors[0], errors
    assert most < MiB, most


def test_npy_values_still_read_padded_and_swapped(tmp_path):
    npy_file(tmp_path / "short.npy", "(4,)", np.array([1, 2], ">f4").tobytes(), ">f4")
    m = model({"a": {"initialValues": {"sourcePath": "short.npy"}}}, {}, [])
    assert dml.run_dxdispatch(m, input_path=str(tmp_path))["a"].tolist() == [1, 2, 0, 0]


# ---------------------------------------------------------------- 2: print streams

def test_print_is_written_in_blocks_not_built_whole():
    count = 2**18  # 1 MiB of FLOAT32; the whole text is about 3 MB (verbose 7 MB)
    m = model({"a": values({"valueCount": count, "valueStart": 0.5, "valueDelta": 1.25})}, {},
              [{"type": "print", "resource": "a"},
               {"type": "print", "resource": "a", "verbose": True}])
    sink = Sink()
    _, most = peak(lambda: dml.run_dxdispatch(m, stdout=sink))
    assert sink.chars > 9 * count
    assert most < 4 * count + 2 * MiB, most  # the buffer and a block of text


def test_print_text_unchanged_across_blocks():
    m = model({"a": values({"valueCount": 5000, "valueStart": 0, "valueDelta": 1}, "INT16")},
              {}, [{"type": "print", "resource": "a"}])
    out = io.StringIO()
    dml.run_dxdispatch(m, stdout=out)
    assert out.getvalue() == "Resource 'a': " + ", ".join(map(str, range(5000))) + "\n"


# ---------------------------------------------------------------- 3: initialValues in place

@pytest.mark.parametrize("data_type, itemsize, spec", [
    ("INT32", 4, {"valueStart": 7, "valueDelta": -3}),
    ("UINT8", 1, {"valueStart": 250, "valueDelta": 3}),
    ("FLOAT16", 2, {"valueStart": 0, "valueDelta": 0.5}),
    ("FLOAT32", 4, {"valueStart": 0, "valueDelta": 0.1}),
    ("INT64", 8, {"value": 5}),
])
def test_initial_values_are_generated_into_the_buffer(data_type, itemsize, spec):
    count = 2**21
    m = model({"a": values({"valueCount": count, **spec}, data_type)}, {}, [])
    _, most = peak(lambda: dml.run_dxdispatch(m))
    assert most < count * itemsize + MiB, (most, count * itemsize)


@pytest.mark.parametrize("data_type, spec, expected", [
    ("UINT8", {"valueStart": 250, "valueDelta": 3}, [250, 253, 0, 3, 6]),
    ("INT8", {"valueStart": 126, "valueDelta": 1}, [126, 127, -128, -127, -126]),
    ("FLOAT16", {"valueStart": 2040, "valueDelta": 3}, [2040, 2043, 2046, 2048, 2050]),
])
def test_sequences_keep_their_values(data_type, spec, expected):
    m = model({"a": values({"valueCount": 5, **spec}, data_type)}, {}, [])
    assert dml.run_dxdispatch(m)["a"][:5].tolist() == expected


def test_float_sequence_across_blocks_is_the_sequential_walk():
    count = 70000  # past two generation blocks (32768 elements each)
    m = model({"a": values({"valueCount": count, "valueStart": 0.1, "valueDelta": 0.3})}, {}, [])
    expected = np.empty(count, np.float32)
    v = np.float32(0.1)
    for i in range(count):  # v = start; emit v; v += delta, in float32
        expected[i] = v
        v = np.float32(v + np.float32(0.3))
    assert dml.run_dxdispatch(m)["a"][:count].tobytes() == expected.tobytes()


def test_float16_sequence_cycle_fills_the_rest():
    # 1 + 0.0001 truncates back to 1: the walk stays at 1 (a cycle of one value)
    m = model({"a": values({"valueCount": 100001, "valueStart": 1, "valueDelta": 0.0001},
                           "FLOAT16")}, {}, [])
    assert set(dml.run_dxdispatch(m)["a"][:100001].tolist()) == {1.0}


# ---------------------------------------------------------------- 4: OWNED_BY_DML copies

def owned_model(resource_elements, copies=1):
    dispatchables = {f"tile{k}": {"type": "TILE", "bindings": {"InputTensor": "w"}, "desc": {
        "InputTensor": tensor([2], Flags="OWNED_BY_DML"), "OutputTensor": tensor([4]),
        "RepeatsCount": 1, "Repeats": [2]}} for k in range(copies)}
    return model({"w": zeros(resource_elements), "out": zeros(4)}, dispatchables,
                 [dispatch(f"tile{k}", OutputTensor="out") for k in range(copies)])


def test_owned_by_dml_copies_only_the_bound_tensor():
    _, most = peak(lambda: dml.run_dxdispatch(owned_model(2**21)))  # 8 MiB resource
    assert most < 8 * MiB + MiB, most


def test_owned_by_dml_copies_count_against_max_bytes():
    # resources 16 + 16 bytes; three 8-byte copies: 56 bytes in all
    assert dml.run_dxdispatch(owned_model(4, copies=3), max_bytes=56)["out"].tolist() == [0] * 4
    errors = refusal(owned_model(4, copies=3), max_bytes=55)
    assert errors == ["dispatchable 'tile2': its OWNED_BY_DML copies (8 bytes) and the resources "
                      "take more than 55 bytes, the most this run allows (max_bytes)"]


# ---------------------------------------------------------------- 5: the refusal list is capped

def test_refusal_list_is_capped_and_work_stops(monkeypatch):
    calls = []
    real = _dxdispatch_model._resource
    monkeypatch.setattr(_dxdispatch_model, "_resource",
                        lambda *args: calls.append(1) or real(*args))
    m = model({f"r{i}": {"initialValues": []} for i in range(1000)}, {}, [])
    errors = refusal(m)
    assert len(errors) == 101 and len(calls) == 100
    assert errors[0] == "resource 'r0': initialValues must be non-empty"
    assert errors[-1] == "stopped after the first 100 problems; the model may have more"


# ---------------------------------------------------------------- 11: writeFile's targets

def write_model(target):
    return model({"r": values([1, 2])}, {},
                 [{"type": "print", "resource": "r"},
                  {"type": "writeFile", "resource": "r", "targetPath": str(target)}])


@pytest.mark.parametrize("target", ["../escaped.bin", "sub/../../escaped.bin", "ABSOLUTE"])
def test_write_file_outside_the_output_path_is_refused_before_running(tmp_path, target):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    target = str(tmp_path / "escaped.bin") if target == "ABSOLUTE" else target
    stdout = io.StringIO()
    with pytest.raises(ModelError) as info:
        dml.run_dxdispatch(write_model(target), output_path=str(out_dir), stdout=stdout)
    assert "outside the output path" in info.value.errors[0]
    assert stdout.getvalue() == "" and not (tmp_path / "escaped.bin").exists()
    dml.run_dxdispatch(write_model(target), output_path=str(out_dir),
                       allow_outside_output_path=True, stdout=io.StringIO())
    assert (tmp_path / "escaped.bin").read_bytes() == np.float32([1, 2]).tobytes()


def test_write_file_through_a_link_out_of_the_output_path_is_refused(tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    os.symlink(tmp_path, out_dir / "up")
    errors = refusal(write_model("up/x.bin"), output_path=str(out_dir))
    assert "outside the output path" in errors[0] and not (tmp_path / "x.bin").exists()


def test_write_file_never_overwrites_the_model_or_a_source(tmp_path):
    np.save(tmp_path / "in.npy", np.float32([1, 2]))
    m = model({"r": {"initialValues": {"sourcePath": "in.npy"}}}, {},
              [{"type": "writeFile", "resource": "r", "targetPath": "in.npy"},
               {"type": "writeFile", "resource": "r", "targetPath": "model.json"}])
    path = tmp_path / "model.json"
    path.write_text(json.dumps(m))
    before = path.read_bytes(), (tmp_path / "in.npy").read_bytes()
    with pytest.raises(ModelError) as info:
        dml.run_dxdispatch(str(path), output_path=str(tmp_path),
                           allow_outside_output_path=True)
    assert len(info.value.errors) == 2
    assert all("never overwrites" in e for e in info.value.errors), info.value.errors
    assert (path.read_bytes(), (tmp_path / "in.npy").read_bytes()) == before


def test_dispatch_help_states_the_write_file_rule_and_the_memory_bound():
    text = subprocess.run([sys.executable, "-m", "dmlcpu", "dispatch", "--help"],
                          capture_output=True, text=True, check=True).stdout
    flat = " ".join(text.split())
    assert "--allow-outside-output-path" in text
    assert "must stay under it" in flat and "never written" in flat
    assert "not only the resources" in flat


# ---------------------------------------------------------------- 14: names

@pytest.mark.parametrize("where", ["resource", "dispatchable", "target"])
def test_a_name_with_a_lone_surrogate_is_refused_before_running(tmp_path, where):
    bad = "bad\udc80"
    m = model({"A": values([1]), (bad if where == "resource" else "B"): values([2])},
              {(bad if where == "dispatchable" else "t"): {
                  "type": "TILE", "InputTensor": tensor([1]), "OutputTensor": tensor([1]),
                  "RepeatsCount": 1, "Repeats": [1]}},
              [{"type": "print", "resource": "A"},
               {"type": "writeFile", "resource": "A",
                "targetPath": bad if where == "target" else "a.bin"}])
    stdout = io.StringIO()
    with pytest.raises(ModelError) as info:
        dml.run_dxdispatch(m, output_path=str(tmp_path), stdout=stdout)
    assert "lone surrogate" in info.value.errors[0]
    assert stdout.getvalue() == ""


def test_cli_surrogate_name_is_one_line_exit_1(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('{"resources": {"a\\udc80": {"initialValuesDataType": "FLOAT32", '
                    '"initialValues": [1]}}, "dispatchables": {}, "commands": '
                    '[{"type": "print", "resource": "a\\udc80"}]}')
    done = subprocess.run([sys.executable, "-m", "dmlcpu", "dispatch", str(path)],
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.count("\n") == 1 and "lone surrogate" in done.stderr, done.stderr


# ---------------------------------------------------------------- 16: unallocatable max_bytes

def test_unallocatable_buffer_is_one_model_error():
    m = model({"a": {"initialValuesDataType": "UINT8", "initialValues": [1],
                     "sizeInBytes": 2**62}}, {}, [])
    errors = refusal(m, max_bytes=2**63)
    assert errors == ["resource 'a': sizeInBytes 4611686018427387904: the buffer cannot be "
                      "allocated (out of memory)"]


def test_cli_unallocatable_max_bytes_is_one_line(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model({"a": {"initialValuesDataType": "UINT8",
                                            "initialValues": [1], "sizeInBytes": 2**62}},
                                     {}, [])))
    done = subprocess.run([sys.executable, "-m", "dmlcpu", "dispatch", str(path),
                           "--max-bytes", str(2**63)], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.count("\n") == 1 and "cannot be allocated" in done.stderr, done.stderr


# ---------------------------------------------------------------- 22: text after the model

@pytest.mark.parametrize("after", [" trailing", " /* never closed", ' "x', " ]]] // c", ""])
@pytest.mark.parametrize("comment", ["", " /* c */"])
def test_text_after_the_model_is_ignored_with_or_without_comments(comment, after):
    assert parse_model_text('{"a": 1' + comment + "}" + after) == {"a": 1}


def test_an_unclosed_comment_inside_the_model_is_still_named():
    with pytest.raises(ModelFileError, match="character 8 is never closed"):
        parse_model_text('{"a": 1 /* }')


# ---------------------------------------------------------------- reading: no read(limit + 1)

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_stream_source_is_read_without_allocating_max_bytes(tmp_path):
    import threading
    fifo = tmp_path / "in.bin"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as handle:
            handle.write(np.float32([1, 2, 3]).tobytes())
    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    m = model({"a": {"initialValuesDataType": "FLOAT32",
                     "initialValues": {"sourcePath": str(fifo)}}}, {}, [])
    results, most = peak(lambda: dml.run_dxdispatch(m, max_bytes=2**30))
    writer.join(5)
    assert results["a"].tolist() == [1, 2, 3]
    assert most < MiB, most


def test_a_model_file_is_read_without_allocating_the_file_limit(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(model({"a": values([1])}, {}, [])))
    _, most = peak(lambda: dml.run_dxdispatch(str(path)))
    assert most < MiB, most


def test_one_dispatch_with_many_bad_bind_points_stops_at_the_cap():
    m = model({"a": values([1, 2, 3, 4])}, {"t": {
        "type": "TILE", "InputTensor": tensor([4]), "OutputTensor": tensor([4]),
        "RepeatsCount": 1, "Repeats": [1]}},
        [dispatch("t", InputTensor="a", OutputTensor="a", **{f"x{i}": "a" for i in range(10**5)})])
    errors, most = peak(lambda: refusal(m))
    assert len(errors) == 101 and errors[-1].startswith("stopped after the first 100")
    assert most < 2 * MiB, most
