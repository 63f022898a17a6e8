"""Random DxDispatch models and .npy files, and the oracle that judges a run of them; shared by
tests/test_fuzz.py (hypothesis) and tests/fuzz/fuzz_dmlcpu.py (atheris), like cases.py.

A case starts from a small valid model (a JOIN of a list, a sequence and a .npy file, a print
and a writeFile) and then, often, makes one part hostile: a valueCount or sizeInBytes past the
run's ``max_bytes``, a .npy file whose header claims a huge or malformed shape (``1e999``, 31
digits, negative, floats), is truncated, big-endian or random bytes, an OWNED_BY_DML binding, a
writeFile target leading out of the output folder or onto the model or its .npy file, a name
with a lone surrogate, and text, comments or a byte-order mark around the JSON.

The oracle (``check_model``) accepts exactly two outcomes: a run, or ModelError / ModelFileError
before anything is printed or written. Either way the most bytes traced at once stay under the
run's ``max_bytes`` plus a fixed allowance (the interpreter, the parsed model), nothing is
written outside the output folder, and the model and .npy files are unchanged. On a run, a
.npy input that NumPy reads gives exactly NumPy's values (little-endian) at byte 0.
"""
import io
import json
import os
import struct
import tempfile
import tracemalloc

import numpy as np

from dmlcpu import run_dxdispatch
from dmlcpu import ModelError, ModelFileError

MAX_BYTES = 1 << 20          # the run's bound
ALLOWANCE = 3 << 20          # what else a run may trace: the parsed model, a block of text
HUGE = [2**20 + 4, 2**31, 2**32 - 1, 2**40, 2**63, 2**64 - 1]
SHAPES = ["(3,)", "(2, 2)", "()", "(0,)", "(1e999,)", "(" + "9" * 31 + ",)", "(-1,)",
          "(2.5,)", "[3]", "(2**70,)", "(1, 1048577)", "'x'", "(3,", "{'a': 1}"]
DESCRS = ["<f4", ">f4", "<i2", ">i8", "|u1", "|b1", "<c8", "<f2", "O", "<U3", "zz"]
TARGETS = ["out.npy", "sub/out.bin", "../escape.bin", "/tmp/escape-dmlcpu-fuzz.bin",
           "model.json", "in.npy", "out\0.bin", "bad\udc80.bin", "sub/../../escape.bin"]


class Sink(io.TextIOBase):
    """A stdout that counts what it is given and keeps nothing."""

    chars = 0

    def write(self, text):
        self.chars += len(text)
        return len(text)


def draw_npy(ch):
    """(the bytes of a .npy file, NumPy's array of it or None): half of them the four float32
    values the model's "npy" resource expects, so that successes stay common."""
    if ch.boolean():
        array = np.arange(4).astype(ch.choice(["<f4", ">f4"]))
        buffer = io.BytesIO()
        np.save(buffer, array)
        return buffer.getvalue(), array
    kind = ch.integer(0, 3)
    if kind == 0:  # a real one
        dtype = ch.choice(["<f4", ">f4", "<i2", ">u8", "|b1", "<f2"])
        array = np.arange(ch.integer(1, 6)).astype(dtype)
        buffer = io.BytesIO()
        np.save(buffer, array)
        data = buffer.getvalue()
        cut = ch.integer(0, 2)  # keep it whole, or drop trailing bytes (DxDispatch pads)
        return (data, array) if cut == 0 else (data[:len(data) - cut], None)
    if kind == 3:
        return bytes(ch.integer(0, 255) for _ in range(ch.integer(0, 24))), None
    text = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        ch.choice(DESCRS), ch.choice(["False", "True", "0"]), ch.choice(SHAPES))
    header = text.encode("latin1").ljust(117) + b"\n"
    version = ch.choice([1, 2, 3, 0, 4])
    length = struct.pack("<H", len(header)) if version == 1 else struct.pack(
        "<I", ch.choice([len(header), 2**31, 2**32 - 1]))
    payload = bytes(ch.integer(0, 255) for _ in range(ch.integer(0, 16)))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header + payload, None


def draw_model(ch):
    """(the model as a dict, its text wrapping) with one part often made hostile."""
    join = {"type": "JOIN", "InputCount": 3, "Axis": 0,
            "InputTensors": [{"DataType": "FLOAT32", "Sizes": [4]}] * 3,
            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [12]}}
    model = {
        "resources": {
            "list": {"initialValuesDataType": "FLOAT32", "initialValues": [1, 2, 3, 4]},
            "seq": {"initialValuesDataType": "FLOAT32",
                    "initialValues": {"valueCount": 4, "valueStart": 0.5, "valueDelta": 1}},
            "npy": {"initialValues": {"sourcePath": "in.npy"}, "sizeInBytes": 16},
            "out": {"initialValuesDataType": "FLOAT32",
                    "initialValues": {"valueCount": 12, "value": 0}}},
        "dispatchables": {"join": join},
        "commands": [{"type": "dispatch", "dispatchable": "join",
                      "bindings": {"InputTensors": ["list", "seq", "npy"],
                                   "OutputTensor": "out"}},
                     {"type": "print", "resource": "out", "verbose": ch.boolean()},
                     {"type": "writeFile", "resource": "out", "targetPath": "out.npy"}]}
    hostile = ch.integer(0, 9)
    resources = model["resources"]
    if hostile == 1:
        resources["seq"]["initialValues"]["valueCount"] = ch.choice(HUGE)
        resources["seq"]["initialValuesDataType"] = ch.choice(["FLOAT16", "INT8", "UINT64"])
    elif hostile == 2:
        resources[ch.choice(["list", "out", "npy"])]["sizeInBytes"] = ch.choice(HUGE + [0, 3])
    elif hostile == 3:
        del resources["npy"]["sizeInBytes"]
    elif hostile == 4:
        model["commands"][2]["targetPath"] = ch.choice(TARGETS)
    elif hostile == 5:
        name = ch.choice(["list", "out"])
        resources["bad\udc80"] = resources.pop(name)
    elif hostile == 6:  # the JOIN's first input OWNED_BY_DML, bound at initialization
        join["InputTensors"] = [dict(join["InputTensors"][0], Flags="OWNED_BY_DML")] * 3
        join["bindings"] = {"InputTensors": ["list", "seq", "npy"]}
        del model["commands"][0]["bindings"]["InputTensors"]
    elif hostile == 7:
        model["commands"] = model["commands"][1:2] * ch.integer(1, 3)  # long prints
        resources["out"]["initialValues"]["valueCount"] = ch.choice([12, 2**16])
    elif hostile == 8:  # many problems: the refusal list is capped
        for i in range(ch.integer(1, 400)):
            resources[f"empty{i}"] = {"initialValues": []}
    wrap = ch.choice(["", "\ufeff", "// c\n"]), ch.choice(["", " trailing", " /* open", ' "x'])
    return model, wrap


def _listing(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder)
                  for d, _, files in os.walk(folder) for f in files)


def check_model(ch):
    """Draws a model and a .npy file, runs them, judges the outcome; "ok" or "refused"."""
    npy, array = draw_npy(ch)
    model, (before, after) = draw_model(ch)
    with tempfile.TemporaryDirectory() as root:
        work = os.path.join(root, "work")
        os.mkdir(work)
        with open(os.path.join(work, "in.npy"), "wb") as f:
            f.write(npy)
        path = os.path.join(work, "model.json")
        text = before + json.dumps(model, ensure_ascii=True) + after
        with open(path, "wb") as f:
            f.write(text.encode("utf-8"))
        escape = "/tmp/escape-dmlcpu-fuzz.bin"
        existed = os.path.exists(escape)
        sink = Sink()
        tracemalloc.start()
        try:
            results = run_dxdispatch(path, output_path=work, max_bytes=MAX_BYTES, stdout=sink,
                                     stderr=io.StringIO())
            outcome = "ok"
        except (ModelError, ModelFileError) as error:
            assert sink.chars == 0, "a refused model printed"
            assert str(error) and all(isinstance(e, str) and e for e in
                                      getattr(error, "errors", [str(error)]))
            assert len(getattr(error, "errors", [])) <= 101
            outcome, results = "refused", None
        finally:
            most = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        assert most <= MAX_BYTES + ALLOWANCE, f"traced {most} bytes"
        with open(os.path.join(work, "in.npy"), "rb") as f:
            assert f.read() == npy, "the .npy input was written"
        with open(path, "rb") as f:
            assert f.read() == text.encode("utf-8"), "the model was written"
        written = _listing(root)
        assert all(p.startswith("work" + os.sep) for p in written), written
        if outcome == "refused":
            assert written == ["work/in.npy", "work/model.json"], written
        assert existed or not os.path.exists(escape), "writeFile escaped the output folder"
        if outcome == "ok" and array is not None and "npy" in results:
            want = array.astype(array.dtype.newbyteorder("<")).tobytes()
            assert results["npy"].tobytes()[:len(want)] == want
    return outcome
