"""The package's shape: ``import dmlcpu`` loads the library only (the DxDispatch runner, the
bench and the commands load when used), and the library's modules fit in one screen."""
import os
import subprocess
import sys

import pytest

import dmlcpu

pytestmark = pytest.mark.python_layer

SRC = os.path.dirname(os.path.dirname(os.path.abspath(dmlcpu.__file__)))
FEATURES = ("bench", "cli", "dask", "dxdispatch")  # matched anywhere in a dmlcpu module's name


def run_python(code, *args):
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, *args] + (["-c", code] if code else []), env=env,
                          capture_output=True, text=True, timeout=120)


def loaded_features(code):
    """The dmlcpu modules of a feature that a fresh interpreter has loaded after running code."""
    probe = code + "\nimport sys\nprint(*sorted(m for m in sys.modules if m.startswith('dmlcpu')))"
    done = run_python(probe)
    assert done.returncode == 0, done.stderr
    return [m for m in done.stdout.split() if any(f in m for f in FEATURES)]


def test_import_dmlcpu_loads_no_feature_subpackage():
    assert loaded_features("import dmlcpu") == []


def test_run_dxdispatch_loads_the_runner_when_first_named():
    loaded = loaded_features("import dmlcpu\nassert callable(dmlcpu.run_dxdispatch)")
    assert "dmlcpu.dxdispatch._runner" in loaded
    assert not any(m.startswith(("dmlcpu.bench", "dmlcpu.cli")) for m in loaded)


def test_run_dxdispatch_is_the_subpackage_function():
    from dmlcpu.dxdispatch import run_dxdispatch
    assert dmlcpu.run_dxdispatch is run_dxdispatch
    assert "run_dxdispatch" in dmlcpu.__all__


def test_an_unknown_attribute_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        dmlcpu.no_such_name


def test_at_most_twenty_modules_sit_at_the_top():
    top = os.path.join(SRC, "dmlcpu")
    modules = [n for n in os.listdir(top) if n.endswith((".py", ".pyx"))]
    assert len(modules) <= 20, sorted(modules)


@pytest.mark.parametrize("command", ["bench", "dispatch", "info", "validate"])
def test_python_m_dmlcpu_lists_and_reaches_each_command(command):
    listed = run_python(None, "-m", "dmlcpu", "--help")
    assert listed.returncode == 0 and command in listed.stdout
    done = run_python(None, "-m", "dmlcpu", command, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
