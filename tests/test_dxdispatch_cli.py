"""python -m dmlcpu dispatch MODEL.json: stdout as DxDispatch prints it, one line per problem on
stderr, exit status 0 (ran), 1 (refused, nothing printed) or 2 (unreadable file, bad usage)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dmlcpu

from dmlcpu.cli.dispatch import main
from dmlcpu.cli.validate import EXAMPLES
from dmlcpu.dxdispatch._json import parse_model_text

pytestmark = pytest.mark.python_layer

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "dxdispatch"

SPLIT_OUT = """\
Resource 'out0': 1, 2, 3, 4
Resource 'out1': 5, 6
Resource 'out2':
[0] 7 (0x40E00000)
[1] 8 (0x41000000)
[2] 9 (0x41100000)
[3] 10 (0x41200000)
[4] 11 (0x41300000)
[5] 12 (0x41400000)

"""
REFUSED = "tests/data/dxdispatch/refused.json"
REFUSED_ERR = f"""\
dmlcpu dispatch: {REFUSED}: dispatchable 'split': SPLIT: the sum of OutputTensors[*].Sizes[2] is 3 but must equal InputTensor.Sizes[2] (2)
dmlcpu dispatch: {REFUSED}: commands[1] (dispatch 'tile'): bindings.Input: 'Input' is not a bind point of this operator (DxDispatch would ignore it); the bind points are InputTensor, OutputTensor
dmlcpu dispatch: {REFUSED}: commands[1] (dispatch 'tile'): bindings.InputTensor is missing: every bind point must be bound
dmlcpu dispatch: {REFUSED}: commands[1] (dispatch 'tile'): bindings.OutputTensor starts at byte 4 of resource 'B', but DirectML needs buffer bindings aligned to 16 bytes
"""  # noqa: E501


def run_cli(*args):
    # the subprocess imports the same dmlcpu as this test process (installed, or src/ in a checkout)
    package_parent = os.path.dirname(os.path.dirname(dmlcpu.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (package_parent, os.environ.get("PYTHONPATH")) if p))
    return subprocess.run([sys.executable, "-m", "dmlcpu", "dispatch", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


def test_subprocess_runs_a_model():
    result = run_cli(DATA / "split.json")
    assert (result.returncode, result.stdout, result.stderr) == (0, SPLIT_OUT, "")


def test_subprocess_refused_model_prints_nothing():
    result = run_cli(REFUSED)
    assert (result.returncode, result.stdout, result.stderr) == (1, "", REFUSED_ERR)


def test_subprocess_malformed_json_is_one_line():
    result = run_cli(DATA / "malformed.json")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("dmlcpu dispatch: ") and "not valid JSON" in result.stderr


def test_readme_examples(capsys, monkeypatch):
    assert cli(capsys, EXAMPLES / "join_subrange.json") == (
        0, "Resource 'output': 1, 2, 3, 7, 8, 9, 10, 4, 5, 6, 11, 12, 13, 14\n", "")
    monkeypatch.chdir(DATA)
    assert cli(capsys, "refused.json") == (1, "", REFUSED_ERR.replace(REFUSED, "refused.json"))


def cli(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def write(tmp_path, text, name="m.json"):
    path = tmp_path / name
    path.write_text(text)
    return path


MINIMAL = ('{"resources": {"r": {"initialValuesDataType": "INT32", "initialValues": [7]}},'
           ' "dispatchables": {}, "commands": [{"type": "PRINT", "resource": "r"}]}')


@pytest.mark.parametrize("text", [
    MINIMAL,
    "// a comment\n" + MINIMAL.replace("[7]", "[7, /* seven */]") + " anything after the value",
    MINIMAL.replace('"commands"', '"$schema": "x", "commands"').replace("}]}", "},]}"),
])
def test_dxdispatch_json_dialect(capsys, tmp_path, text):
    assert cli(capsys, write(tmp_path, text)) == (0, "Resource 'r': 7\n", "")


@pytest.mark.parametrize("text, value", [
    ('{"a": "x,]// /*", // c }\n "b": [1, 2, /* z */ ], } trailing', {"a": "x,]// /*",
                                                                       "b": [1, 2]}),
    ("[1, // a } in a comment is no bracket\n 2]", [1, 2]),
    ("[1, /* a */ 2 /* ] */ ]", [1, 2]),
    ("[1, /* , ] */ 2,\n // end\n]", [1, 2]),
])
def test_comments_and_trailing_commas(text, value):
    assert parse_model_text(text) == value


@pytest.mark.parametrize("text, reason", [
    ("{", "not valid JSON: Expecting property name"),
    (MINIMAL.replace("[7]", "[NaN]"), "NaN is not JSON"),
    (MINIMAL.replace("[7]", "[-1e400]"), "-1e400 is too big to be stored in a double"),
    (MINIMAL.replace("[7]", "[" + "9" * 5000 + "]"), "not valid JSON"),
    ("[" * 100000 + "]" * 100000, "nested too deeply"),
    (MINIMAL.replace('"dispatchables": {}', '"dispatchables": {}, "dispatchables": {}'),
     "key 'dispatchables' appears twice"),
    ("/* never closed", "is never closed"),
])
def test_unreadable_models_exit_2_with_one_line(capsys, tmp_path, text, reason):
    status, out, err = cli(capsys, write(tmp_path, text))
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and reason in err, err


def test_unreadable_files_exit_2(capsys, tmp_path):
    status, out, err = cli(capsys, tmp_path / "missing.json")
    assert (status, out) == (2, "") and "cannot read" in err
    status, out, err = cli(capsys, write(tmp_path, MINIMAL, "model.txt"))
    assert (status, out) == (2, "") and "must end in .json" in err
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe{}")
    assert cli(capsys, tmp_path / "bin.json")[0] == 2


def test_usage(capsys, tmp_path):
    assert cli(capsys, "--help")[0] == 0
    assert cli(capsys)[0] == 2
    status, _, err = cli(capsys, write(tmp_path, MINIMAL), "--feature-level", "9_9")
    assert status == 2 and "not a DirectML feature level" in err
    assert cli(capsys, write(tmp_path, MINIMAL), "-i", "0")[0] == 2


def test_options(capsys, tmp_path):
    model = (EXAMPLES / "join_subrange.json").read_text().replace(
        '"type": "print", "resource": "output"',
        '"type": "writeFile", "resource": "output", "targetPath": "o.bin"')
    path = write(tmp_path, model)
    out_dir = tmp_path / "out"
    status, out, err = cli(capsys, path, "--output-path", out_dir, "-i", "2",
                           "--feature-level", "3_1")
    assert (status, out, err) == (0, "Resource 'output' written to 'o.bin'\n", "")
    assert (out_dir / "o.bin").stat().st_size == 56
    status, _, err = cli(capsys, path, "--max-bytes", "100")
    assert status == 1 and "more than" in err


def test_validate_reports_every_dispatchable(capsys, monkeypatch):
    from dmlcpu.cli.validate import main as validate
    monkeypatch.chdir(DATA)
    assert validate(["refused.json"]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("""\
dispatchable 'split': SPLIT: rejected at every feature level; at 6_4 it breaks 1 rule(s):
  SPLIT: the sum of OutputTensors[*].Sizes[2] is 3 but must equal InputTensor.Sizes[2] (2)
dispatchable 'split': SPLIT: rejected in extended mode too, for the same rule(s)
dispatchable 'tile': TILE: accepted at feature levels 1_0 and later; accepted in extended mode
""", "")
    assert validate(["split.json", "--feature-level", "1_0"]) == 0
    assert capsys.readouterr() == ("dispatchable 'split': SPLIT: accepted at feature level 1_0\n",
                                   "")


def test_validate_malformed_dispatchable_exits_2(capsys, tmp_path):
    from dmlcpu.cli.validate import main as validate
    path = write(tmp_path, '{"resources": {}, "commands": [], "dispatchables": {'
                           '"d": {"type": "TILE", "InputTensor": {"DataType": "FLOAT32", '
                           '"Sizes": [2]}}, "h": {"type": "hlsl"}}}')
    assert validate([str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        f"dmlcpu validate: {path}: dispatchable 'd': OutputTensor is missing",
        f"dmlcpu validate: {path}: dispatchable 'h': type 'hlsl': dmlcpu runs DirectML "
        f"operators, not HLSL shaders"]
