"""python -m dmlcpu validate: output lines and exit status, in a subprocess and in-process."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dmlcpu

from dmlcpu.cli.validate import EXAMPLES, main

pytestmark = pytest.mark.python_layer

ROOT = Path(__file__).resolve().parents[1]

VALID_OUT = "SPLIT: accepted at feature levels 1_0 and later; accepted in extended mode\n"
INVALID_OUT = """\
SPLIT: rejected at every feature level; at 6_4 it breaks 3 rule(s):
  SPLIT: OutputTensors[1].Sizes[3] is 3 but must equal InputTensor.Sizes[3] (2); only Axis 2 may differ
  SPLIT: the sum of OutputTensors[*].Sizes[2] is 10 but must equal InputTensor.Sizes[2] (6)
  SPLIT: OutputTensors[2].TotalTensorSizeInBytes is 16 but must be at least DMLCalcBufferTensorSize (24)
SPLIT: rejected in extended mode too, for the same rule(s)
"""  # noqa: E501


def run_cli(*args, memory_limit=None, stdin=None, input=None):
    """``memory_limit`` bytes of address space: a reader that does not stop fails, not the host.
    Not under the sanitizer suite (tools/run-sanitizers): ASan reserves terabytes of it."""
    # the subprocess imports the same dmlcpu as this test process (installed, or src/ in a checkout)
    package_parent = os.path.dirname(os.path.dirname(dmlcpu.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (package_parent, os.environ.get("PYTHONPATH")) if p))

    def limit():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    return subprocess.run([sys.executable, "-m", "dmlcpu", "validate", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60,
                          stdin=stdin, input=input,
                          preexec_fn=limit if memory_limit and "asan" not in
                          os.environ.get("LD_PRELOAD", "") else None)


def test_subprocess_valid_example():
    result = run_cli(EXAMPLES / "split_valid.json")
    assert (result.returncode, result.stdout, result.stderr) == (0, VALID_OUT, "")


def test_subprocess_invalid_example():
    result = run_cli(EXAMPLES / "split_invalid.json")
    assert (result.returncode, result.stdout, result.stderr) == (1, INVALID_OUT, "")


def test_subprocess_unreadable_file():
    result = run_cli(ROOT / "no-such-file.json")
    assert result.returncode == 2 and result.stdout == ""
    assert "cannot read" in result.stderr and "no-such-file.json" in result.stderr


def write(tmp_path, obj, name="op.json"):
    path = tmp_path / name
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(path)


def run_main(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_main_examples_match_subprocess(capsys):
    assert run_main(capsys, str(EXAMPLES / "split_valid.json")) == (0, VALID_OUT, "")
    assert run_main(capsys, str(EXAMPLES / "split_invalid.json")) == (1, INVALID_OUT, "")


def test_main_at_one_level(capsys):
    path = str(EXAMPLES / "split_valid.json")
    assert run_main(capsys, path, "--feature-level", "1_0") == (
        0, "SPLIT: accepted at feature level 1_0\n", "")
    assert run_main(capsys, path, "--feature-level", "extended") == (
        0, "SPLIT: accepted in extended mode\n", "")


def test_main_rejected_at_one_level(tmp_path, capsys):
    path = write(tmp_path, {
        "operator": "DML_OPERATOR_TILE",
        "input_tensor": {"data_type": "DML_TENSOR_DATA_TYPE_INT32", "sizes": [1, 2, 3]},
        "output_tensor": {"DataType": 6, "Sizes": [1, 2, 6], "Flags": "OWNED_BY_DML"},
        "Repeats": [1, 1, 2]})
    status, out, err = run_main(capsys, path, "--feature-level", "2_1")
    assert status == 1 and err == ""
    assert out.splitlines() == [
        "TILE: rejected at feature level 2_1; it breaks 2 rule(s):",
        "  TILE: InputTensor.DimensionCount is 3 but must be 4 at feature level 2_1",
        "  TILE: OutputTensor.Flags is DML_TENSOR_FLAG_OWNED_BY_DML (1) but must be "
        "DML_TENSOR_FLAG_NONE (0) on an output"]


def test_main_levels_range_from_first_type_level(tmp_path, capsys):
    path = write(tmp_path, {
        "operator": "CUMULATIVE_PRODUCT",
        "InputTensor": {"DataType": "INT64", "Sizes": [3], "Strides": [1]},
        "OutputTensor": {"DataType": "INT64", "Sizes": [3], "TotalTensorSizeInBytes": 32},
        "Axis": 0, "AxisDirection": "DECREASING", "HasExclusiveProduct": True})
    assert run_main(capsys, path) == (
        0, "CUMULATIVE_PRODUCT: accepted at feature levels 5_0 and later; accepted in "
           "extended mode\n", "")


def test_main_only_extended_mode_accepts(tmp_path, capsys):
    path = write(tmp_path, {
        "operator": "CUMULATIVE_SUMMATION",
        "InputTensor": {"DataType": "INT8", "Sizes": [3]},
        "OutputTensor": {"DataType": "INT8", "Sizes": [3]}, "Axis": 0})
    status, out, _ = run_main(capsys, path)
    assert status == 1
    assert out.splitlines() == [
        "CUMULATIVE_SUMMATION: rejected at every feature level; at 6_4 it breaks 1 rule(s):",
        "  CUMULATIVE_SUMMATION: InputTensor.DataType is INT8 but must be one of FLOAT32, "
        "FLOAT16, INT64, INT32, UINT64, UINT32 at feature level 6_4",
        "CUMULATIVE_SUMMATION: accepted in extended mode (dmlcpu's feature_level=None)"]


def test_main_out_of_bounds_slice(tmp_path, capsys):
    path = write(tmp_path, {
        "operator": "SLICE",
        "InputTensor": {"DataType": "INT8", "Sizes": [9]},
        "OutputTensor": {"DataType": "INT8", "Sizes": [2]},
        "Offsets": [8], "Sizes": [2], "Strides": [1]})
    status, out, _ = run_main(capsys, path)
    assert status == 1
    assert out.splitlines() == [
        "SLICE: rejected at every feature level; at 6_4 it breaks 1 rule(s):",
        "  SLICE: Offsets[0] + Strides[0] * (Sizes[0] - 1) is 8 + 1 * 1 = 9 but must be less "
        "than InputTensor.Sizes[0] (9)",
        "SLICE: rejected in extended mode too, for the same rule(s)"]


def test_main_extended_mode_breaks_fewer_rules(tmp_path, capsys):
    path = write(tmp_path, {
        "operator": "CUMULATIVE_SUMMATION",
        "InputTensor": {"DataType": "UINT16", "Sizes": [3]},
        "OutputTensor": {"DataType": "UINT16", "Sizes": [3]}, "Axis": 1})
    status, out, _ = run_main(capsys, path)
    assert status == 1
    assert out.splitlines() == [
        "CUMULATIVE_SUMMATION: rejected at every feature level; at 6_4 it breaks 2 rule(s):",
        "  CUMULATIVE_SUMMATION: InputTensor.DataType is UINT16 but must be one of FLOAT32, "
        "FLOAT16, INT64, INT32, UINT64, UINT32 at feature level 6_4",
        "  CUMULATIVE_SUMMATION: Axis is 1 but must be in [0, 0] (DimensionCount - 1)",
        "CUMULATIVE_SUMMATION: rejected in extended mode too, where it breaks 1 rule(s):",
        "  CUMULATIVE_SUMMATION: Axis is 1 but must be in [0, 0] (DimensionCount - 1)"]


@pytest.mark.parametrize("content,message", [
    ("{not json", "is not valid JSON"),
    ("[1, 2]", "must hold one JSON object"),
    ({"InputTensor": {}}, 'must name its operator once'),
    ({"operator": "GEMM"}, "operator 'GEMM' is not one of SPLIT"),
    ({"operator": "TILE", "InputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
      "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}}, "TILE: field Repeats is missing"),
    ({"operator": "TILE", "InputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
      "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "Repeats": [1], "Repeat": [1]},
     "unknown field 'Repeat' in TILE"),
    ({"operator": "TILE", "InputTensor": {"DataType": "FLOAT32", "Sizes": [2.5]},
      "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "Repeats": [1]},
     "InputTensor.Sizes[0] must be an integer, not 2.5"),
    ({"operator": "TILE", "InputTensor": {"DataType": "FLOAT32", "Sizes": [2],
                                          "DimensionCount": 2},
      "OutputTensor": {"DataType": "FLOAT32", "Sizes": [2]}, "Repeats": [1]},
     "InputTensor.DimensionCount is 2 but Sizes has 1 entries"),
    ({"operator": "SPLIT", "InputTensor": {"DataType": "FLOAT32", "Sizes": [2]},
      "OutputTensors": [{"DataType": "FLOAT32", "Sizes": [2]}], "OutputCount": 2, "Axis": 0},
     "SPLIT: OutputCount is 2 but OutputTensors has 1 entries"),
])
def test_main_malformed_files_exit_2(tmp_path, capsys, content, message):
    status, out, err = run_main(capsys, write(tmp_path, content))
    assert status == 2 and out == ""
    assert message in err


def test_main_bad_usage_exit_2(capsys):
    assert run_main(capsys)[0] == 2
    status, _, err = run_main(capsys, str(EXAMPLES / "split_valid.json"), "--feature-level",
                              "7_0")
    assert status == 2 and "'7_0' is not a DirectML feature level" in err


# ---------------------------------------------------------------- what validate reads

MAX_FILE_BYTES = 4 * 2**20  # the README's limit for validate's input
GIB = 2**30


def one_line_refusal(status, out, err, *words):
    assert status == 2 and out == ""
    assert err.endswith("\n") and err.count("\n") == 1 and "Traceback" not in err
    for word in words:
        assert word in err, err


def test_file_of_the_size_limit_is_read(tmp_path, capsys):
    text = (EXAMPLES / "split_valid.json").read_text()
    path = write(tmp_path, text + " " * (MAX_FILE_BYTES - len(text.encode())))
    assert os.path.getsize(path) == MAX_FILE_BYTES
    assert run_main(capsys, path) == (0, VALID_OUT, "")


def test_file_past_the_size_limit_is_refused(tmp_path, capsys):
    text = (EXAMPLES / "split_valid.json").read_text()
    path = write(tmp_path, text + " " * (MAX_FILE_BYTES + 1 - len(text.encode())))
    one_line_refusal(*run_main(capsys, path), f"more than {MAX_FILE_BYTES} bytes")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this system")
def test_endless_device_is_refused():
    result = run_cli("/dev/zero", memory_limit=2 * GIB)
    one_line_refusal(result.returncode, result.stdout, result.stderr,
                     f"more than {MAX_FILE_BYTES} bytes")


@pytest.mark.skipif(not os.path.exists("/dev/stdin"), reason="no /dev/stdin on this system")
def test_endless_stream_is_refused():
    writer = subprocess.Popen([sys.executable, "-c", "import sys\nwhile True: "
                               "sys.stdout.write(' ' * 65536)"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    try:
        result = run_cli("/dev/stdin", memory_limit=2 * GIB, stdin=writer.stdout)
    finally:
        writer.kill()
        writer.wait()
        writer.stdout.close()
    one_line_refusal(result.returncode, result.stdout, result.stderr,
                     f"more than {MAX_FILE_BYTES} bytes")


@pytest.mark.skipif(not os.path.exists("/dev/stdin"), reason="no /dev/stdin on this system")
def test_a_description_piped_in_is_read_once():
    result = run_cli("/dev/stdin", input=(EXAMPLES / "split_valid.json").read_text())
    assert (result.returncode, result.stdout, result.stderr) == (0, VALID_OUT, "")


@pytest.mark.parametrize("text,reason", [
    ('{"operator": "TILE", "Repeats": [' + "9" * 5000 + "]}", "digits"),
    ("[" * 100_000 + "]" * 100_000, "nested"),
    ('{"operator": "TILE", "Repeats": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested"),
], ids=["5000-digits", "nested-array", "nested-field"])
def test_unreadable_json_exits_2_in_one_line(tmp_path, capsys, text, reason):
    one_line_refusal(*run_main(capsys, write(tmp_path, text)), "unreadable", reason)


def test_a_long_number_is_shown_by_its_length(tmp_path, capsys):
    axis = int("9" * 4000)
    path = write(tmp_path, {"operator": "CUMULATIVE_SUMMATION",
                            "InputTensor": {"DataType": "FLOAT32", "Sizes": [3]},
                            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "Axis": axis})
    status, out, err = run_main(capsys, path, "--feature-level", "extended")
    assert (status, err) == (1, "")
    assert out.splitlines() == [
        "CUMULATIVE_SUMMATION: rejected in extended mode; it breaks 1 rule(s):",
        f"  CUMULATIVE_SUMMATION: Axis is (an integer of {axis.bit_length()} bits) but must be "
        f"in [0, 0] (DimensionCount - 1)"]


def test_an_oversized_sizes_list_is_settled_by_its_count(tmp_path, capsys):
    n = 300_000  # three lists of n ones: under the size limit
    path = write(tmp_path, {"operator": "TILE",
                            "InputTensor": {"DataType": "FLOAT32", "Sizes": [1] * n},
                            "OutputTensor": {"DataType": "FLOAT32", "Sizes": [1] * n},
                            "Repeats": [1] * n})
    status, out, err = run_main(capsys, path)
    assert (status, err) == (1, "")
    assert out.splitlines() == [
        "TILE: rejected at every feature level; at 6_4 it breaks 1 rule(s):",
        f"  TILE: InputTensor.DimensionCount is {n} but must be between 1 and 8 at feature "
        f"level 6_4",
        "TILE: rejected in extended mode too, where it breaks 1 rule(s):",
        f"  TILE: InputTensor.DimensionCount is {n} but must be between 1 and 8 in extended mode"]


# ---------------------------------------------------------------- the shipped examples

def test_the_examples_ship_inside_the_package():
    assert sorted(p.name for p in EXAMPLES.glob("*.json")) == [
        "join_subrange.json", "split_invalid.json", "split_valid.json"]
    assert EXAMPLES.parent == Path(dmlcpu.__file__).parent / "cli"


def test_example_prints_the_shipped_file_and_it_validates_as_documented(capsys, tmp_path):
    assert run_main(capsys, "--example", "split_invalid") == (
        0, (EXAMPLES / "split_invalid.json").read_text(), "")
    copy = tmp_path / "split_invalid.json"
    result = run_cli("--example", "split_invalid")
    assert result.returncode == 0
    copy.write_text(result.stdout)
    assert run_main(capsys, str(copy)) == (1, INVALID_OUT, "")


def test_an_unknown_example_lists_the_known_ones(capsys):
    status, out, err = run_main(capsys, "--example", "nope")
    assert (status, out) == (2, "")
    assert err == ("dmlcpu validate: no example 'nope'; the examples are join_subrange, "
                   "split_invalid, split_valid\n")


def test_neither_file_nor_example_is_a_usage_error(capsys):
    status, out, err = run_main(capsys)
    assert (status, out) == (2, "")
    assert "a FILE (or --example NAME) is required" in err


def test_help_names_the_examples(capsys):
    status, out, _ = run_main(capsys, "--help")
    assert status == 0
    assert "--example NAME" in out and "split_invalid" in out and "join_subrange" in out
