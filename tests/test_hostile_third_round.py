"""Defects of the third hardening round (issue 53) outside the DxDispatch runner's memory bound
(that is tests/test_dxdispatch_third_round.py), one test each: ``validate``'s reading, the eager
API's exotic inputs (negative-bit tensors, masked arrays, sets, suboffsets), dask with zero-size
chunks and masked arrays, and the bench's output files. Expected values are written out or come
from NumPy, never from the code under test."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import dmlcpu as dml
from dmlcpu.bench import _main as _bench
from dmlcpu.cli.validate import MAX_FILE_BYTES

from test_cli_validate import EXAMPLES, VALID_OUT, run_cli, run_main

SPLIT = (EXAMPLES / "split_valid.json").read_text()
MODEL = """{
  // a comment: the strict JSON reader fails, the model reader reads it
  "resources": {"A": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2]}},
  "dispatchables": {"tile": {"type": "TILE", "InputTensor": {"DataType": "FLOAT32",
      "Sizes": [2]}, "OutputTensor": {"DataType": "FLOAT32", "Sizes": [4]},
      "RepeatsCount": 1, "Repeats": [2]}},
  "commands": []
}"""
MODEL_OUT = "dispatchable 'tile': TILE: accepted at feature levels 3_1 and later; " \
            "accepted in extended mode\n"


def write(tmp_path, text, name="op.json", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return str(path)


# ---------------------------------------------------------------- validate: 10, 13, 19, 21

@pytest.mark.parametrize("text, key", [
    (SPLIT.replace('"Axis": 2', '"Axis": 2, "Axis": 3'), "Axis"),
    (SPLIT.replace('"DataType": "FLOAT32",', '"DataType": "FLOAT32", "DataType": "INT8",', 1),
     "DataType"),
    (MODEL.replace('"commands": []', '"commands": [], "commands": []'), "commands"),
], ids=["operator", "tensor", "model"])
def test_validate_refuses_a_duplicate_key_naming_it(tmp_path, capsys, text, key):
    status, out, err = run_main(capsys, write(tmp_path, text))
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert f"key {key!r} appears twice in one object" in err, err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("text, expected", [(MODEL, MODEL_OUT), (SPLIT, VALID_OUT)],
                         ids=["model", "operator"])
def test_validate_reads_a_fifo_once(tmp_path, text, expected):
    fifo = tmp_path / "model.json"
    os.mkfifo(fifo)

    def feed():  # one writer: a second open by the reader would wait forever
        with open(fifo, "w") as handle:
            handle.write(text)
    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        result = run_cli(fifo)  # run_cli's timeout (60 s) turns a hang into a failure
    finally:
        if writer.is_alive():  # unblock the writer if the reader never opened the FIFO
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        writer.join(5)
    assert (result.returncode, result.stdout, result.stderr) == (0, expected, "")


def test_validate_limit_applies_to_models_too(tmp_path, capsys):
    text = MODEL + " " * (MAX_FILE_BYTES + 1 - len(MODEL))
    status, out, err = run_main(capsys, write(tmp_path, text))
    assert (status, out) == (2, "") and err.count("\n") == 1
    assert f"more than {MAX_FILE_BYTES} bytes" in err, err


@pytest.mark.parametrize("text, expected", [(SPLIT, VALID_OUT), (MODEL, MODEL_OUT)],
                         ids=["operator", "model"])
def test_validate_accepts_a_byte_order_mark(tmp_path, capsys, text, expected):
    assert run_main(capsys, write(tmp_path, text, encoding="utf-8-sig")) == (0, expected, "")


def test_dispatch_accepts_a_byte_order_mark(tmp_path):
    path = write(tmp_path, MODEL.replace('"commands": []',
                                         '"commands": [{"type": "print", "resource": "A"}]'),
                 encoding="utf-8-sig")
    done = subprocess.run([sys.executable, "-m", "dmlcpu", "dispatch", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, "Resource 'A': 1, 2\n", "")


# ---------------------------------------------------------------- 7: the negative bit

def negative_view():
    """A float32 tensor whose negative bit is set: it reads [-2, -4] with memory [2, 4]."""
    torch = pytest.importorskip("torch")  # not a test dependency: these tests skip without it
    z = torch.tensor([1 + 2j, 3 + 4j], dtype=torch.complex64)
    view = z.conj().imag
    assert view.is_neg() and view.tolist() == [-2.0, -4.0]
    return view


def test_negative_bit_input_is_refused_or_read_with_its_sign():
    try:
        result = dml.tile(negative_view(), repeats=[2])
    except TypeError as error:
        assert "input_tensor" in str(error).lower() or "InputTensor" in str(error)
        assert "resolve_neg()" in str(error)
    else:
        assert result.tolist() == [-2.0, -4.0, -2.0, -4.0]


def test_negative_bit_output_is_refused_and_left_unchanged():
    out = negative_view()
    with pytest.raises(TypeError, match="resolve_neg"):
        dml.tile(np.float32([5, 6]), repeats=[1], out=out)
    assert out.tolist() == [-2.0, -4.0]


def test_negative_bit_refused_among_join_inputs():
    with pytest.raises(TypeError, match=r"InputTensors\[1\].*resolve_neg"):
        dml.join([np.float32([1, 2]), negative_view()], axis=0)


# ---------------------------------------------------------------- 8: masked arrays

MASKED = np.ma.masked_array(np.float32([1, 2, 3]), mask=[0, 1, 0])


@pytest.mark.parametrize("call", [
    lambda: dml.tile(MASKED, repeats=[2]),
    lambda: dml.cumulative_summation(MASKED, axis=0),
    lambda: dml.join([np.float32([0]), MASKED], axis=0),
    lambda: dml.slice(np.float32([1, 2, 3]), offsets=[0], sizes=[3], strides=[1],
                      out=np.ma.masked_array(np.zeros(3, np.float32))),
])
def test_masked_arrays_are_refused_in_the_eager_api(call):
    with pytest.raises(TypeError, match=r"masked array.*np\.ma\.getdata\(x\).*filled"):
        call()


# ---------------------------------------------------------------- 9: join takes ordered inputs

@pytest.mark.parametrize("inputs", [{b"ab", b"cd"}, frozenset({b"ab"}), {b"ab": 1}.keys(),
                                    {b"ab": 1}, {b"ab": 1}.items()],
                         ids=["set", "frozenset", "keys", "dict", "items"])
def test_join_refuses_unordered_inputs(inputs):
    with pytest.raises(TypeError, match="inputs must be an ordered sequence"):
        dml.join(inputs, axis=0)


def test_join_still_takes_ordered_iterables():
    parts = [np.uint8([1]), np.uint8([2, 3])]
    for inputs in (parts, tuple(parts), iter(parts), {0: parts[0], 1: parts[1]}.values()):
        assert dml.join(inputs, axis=0).tolist() == [1, 2, 3]


# ---------------------------------------------------------------- 18: suboffsets

def test_a_buffer_with_suboffsets_is_a_type_error_naming_the_argument():
    testbuffer = pytest.importorskip("_testbuffer")
    x = testbuffer.ndarray(list(range(6)), shape=[2, 3], format="B", flags=testbuffer.ND_PIL)
    assert memoryview(x).suboffsets
    with pytest.raises(TypeError, match="InputTensor.*suboffsets"):
        dml.tile(x, repeats=[1, 1])
    with pytest.raises(TypeError, match=r"InputTensors\[1\].*suboffsets"):
        dml.join([np.uint8([[1, 2, 3]]), x], axis=0)


# ---------------------------------------------------------------- dask: 6 and 8

da = pytest.importorskip("dask.array")  # a test dependency ([test] extra)
import dmlcpu.dask as dd  # noqa: E402 - after the skip


def chunkings(n):
    """Chunkings of n elements with zero-size chunks among them (as boolean masking leaves)."""
    yield (0, n)
    yield (n, 0)
    yield (0, 1, 0, n - 1, 0)
    yield (2, 0, 0, n - 3, 1, 0)
    yield (1,) * n + (0,)


@pytest.mark.parametrize("chunks", list(chunkings(6)), ids=str)
@pytest.mark.parametrize("offset, size, stride", [(0, 6, -1), (4, 1, -2), (0, 2, -2), (0, 3, -3),
                                                  (1, 5, -2), (0, 6, 2), (2, 3, 1)])
def test_dask_slice1_with_zero_size_chunks_equals_the_eager_api(chunks, offset, size, stride):
    x = np.arange(6, dtype=np.float32)
    fields = dict(input_window_offsets=[offset], input_window_sizes=[size],
                  input_window_strides=[stride])
    expected = dml.slice1(x, **fields)
    got = dd.slice1(da.from_array(x, chunks=(chunks,)), **fields).compute()
    assert got.tobytes() == expected.tobytes() and got.shape == expected.shape


@pytest.mark.parametrize("chunks", list(chunkings(6)), ids=str)
@pytest.mark.parametrize("offset, size, stride", [(1, 3, 0), (0, 1, 0), (0, 3, 2), (5, 1, 1)])
def test_dask_slice_with_zero_size_chunks_equals_the_eager_api(chunks, offset, size, stride):
    x = np.arange(6, dtype=np.float32)
    fields = dict(offsets=[offset], sizes=[size], strides=[stride])
    got = dd.slice(da.from_array(x, chunks=(chunks,)), **fields).compute()
    assert got.tobytes() == dml.slice(x, **fields).tobytes()


def test_dask_split_with_zero_size_chunks_equals_the_eager_api():
    x = np.arange(12, dtype=np.int16).reshape(2, 6)
    parts = dd.split(da.from_array(x, chunks=((1, 0, 1), (0, 3, 0, 3))), axis=1,
                     output_axis_sizes=[2, 4])
    assert [p.compute().tobytes() for p in parts] == [x[:, :2].tobytes(), x[:, 2:].tobytes()]


@pytest.mark.parametrize("call", [
    lambda x: dd.cumulative_summation(x, axis=0),
    lambda x: dd.cumulative_product(x, axis=0),
    lambda x: dd.tile(x, repeats=[2]),
    lambda x: dd.slice1(x, input_window_offsets=[0], input_window_sizes=[3],
                        input_window_strides=[-1]),
    lambda x: dd.join([x, x], axis=0),
])
@pytest.mark.parametrize("wrap", [lambda m: m, lambda m: da.from_array(m, chunks=2)],
                         ids=["masked", "dask-of-masked"])
def test_dask_refuses_masked_arrays_when_called(call, wrap):
    with pytest.raises(TypeError, match=r"masked array.*np\.ma\.getdata\(x\)"):
        call(wrap(MASKED))


# ---------------------------------------------------------------- bench: 12, 17

TINY = ["--filter", "SPLIT axis 1 into 4", "--widths", "1", "--sizes", "512K", "--threads", "1",
        "--budget", "0.01"]


def saved_run(tmp_path):
    path = tmp_path / "run.json"
    assert _bench.main(TINY + ["--json", str(path)]) == 0
    return path


def test_bench_json_writes_only_the_file_named(tmp_path):
    neighbour = tmp_path / "run.md"
    neighbour.write_text("mine\n")
    saved_run(tmp_path)
    assert neighbour.read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json", "run.md"]


def test_bench_full_table_only_where_named(tmp_path):
    source = saved_run(tmp_path)
    table = tmp_path / "table.md"
    assert _bench.main(["--from", str(source), "--table", str(table)]) == 0
    assert table.read_text().count("| SPLIT axis 1 into 4") == 2


@pytest.mark.parametrize("flags", [
    ["--json", "X", "--table", "X"],
    ["--json", "X", "--markdown-into", "X"],
    ["--table", "X", "--markdown-into", "X"],
    ["--json", "X", "--from", "X"],
])
def test_bench_refuses_colliding_names(tmp_path, capsys, flags):
    readme = tmp_path / "X"
    readme.write_text("<!-- bench:begin -->\n<!-- bench:end -->\n")
    before = readme.read_text()
    flags = [str(readme) if f == "X" else f for f in flags]
    assert _bench.main(["--quick"] + flags) == 2
    assert "names the same file" in capsys.readouterr().err
    assert readme.read_text() == before


@pytest.mark.parametrize("content", ["not json", "[]", '{"rows": 3}', '{"rows": [{}]}',
                                     '{"machine": {}, "rows": [{"seconds": 1}]}', "\xff"])
def test_bench_malformed_from_is_one_line(tmp_path, capsys, content):
    path = tmp_path / "bad.json"
    path.write_bytes(content.encode("latin1"))
    out_path = tmp_path / "out.json"
    assert _bench.main(["--from", str(path), "--markdown", "--json", str(out_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--from" in err and "Traceback" not in err, err
    assert not out_path.exists()


@pytest.mark.parametrize("dtype", ["float32", "int32"])  # the float walk and the integer totals
def test_dask_scan_refuses_masked_blocks_its_meta_hid(dtype):
    x = da.from_array(np.arange(4, dtype=dtype), chunks=2)
    hidden = x.map_blocks(lambda b: np.ma.masked_array(b, mask=b % 2 == 1),
                          meta=np.empty(0, dtype))
    with pytest.raises(TypeError, match="masked array"):
        dd.cumulative_summation(hidden, axis=0).compute(scheduler="sync")
