"""Every operator on buffers flush against inaccessible pages: no read or write strays outside.

The calls run in a subprocess (guard_pages_run.py) so that a fault is a failed test here, not a
dead test run.
"""
import os
import subprocess
import sys

import pytest

from dmlcpu import _core

HERE = os.path.dirname(os.path.abspath(__file__))

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="mmap guard pages need POSIX")


def run_guarded(env_extra):
    env = dict(os.environ, **env_extra)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (HERE, env.get("PYTHONPATH")) if p)
    result = subprocess.run([sys.executable, os.path.join(HERE, "guard_pages_run.py")],
                            capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, (
        f"guarded run died (status {result.returncode}: a negative status is the signal that "
        f"killed it, -11 = a stray access)\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
    return result.stdout


@pytest.mark.parametrize("isa", _core._config()["usable_isas"])
def test_every_operator_stays_inside_its_buffers(isa):
    """Once per ISA this machine can run (the core says which): DMLCPU_FORCE_ISA picks the
    kernels."""
    out = run_guarded({"DMLCPU_FORCE_ISA": isa})
    assert "guarded calls:" in out
    assert int(out.split("guarded calls:")[1]) > 3500
