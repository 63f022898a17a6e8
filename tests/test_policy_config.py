"""The machine model as detected, the tuning in force with its sources, DMLCPU_TUNE and the
DMLCPU_STREAM_THRESHOLD alias, and what show_config / `python -m dmlcpu info --json` print."""
import json
import os
import subprocess
import sys

import pytest

import dmlcpu
from dmlcpu import _core

MiB = 1 << 20
CONFIG = _core._config()


def config_with_env(**env):
    code = "import json, dmlcpu._core as c; print(json.dumps(c._config()))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=dict(os.environ, **env), timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _sysfs(index, field):
    with open("/sys/devices/system/cpu/cpu0/cache/index%d/%s" % (index, field)) as f:
        return f.read().strip()


@pytest.mark.skipif(not os.path.isdir("/sys/devices/system/cpu/cpu0/cache/index0"),
                    reason="no Linux sysfs cache description here")
def test_linux_model_is_what_sysfs_says():
    m = CONFIG["machine"]
    assert m["caches_detected"] == 1
    seen = {}
    index = 0
    while os.path.isdir("/sys/devices/system/cpu/cpu0/cache/index%d" % index):
        if _sysfs(index, "type") != "Instruction":
            seen[int(_sysfs(index, "level"))] = _sysfs(index, "size")
        index += 1
    units = {"K": 1 << 10, "M": 1 << 20}
    for level, key in ((1, "l1d_bytes"), (2, "l2_bytes"), (3, "l3_bytes")):
        if level in seen:
            text = seen[level]
            assert m[key] == int(text[:-1]) * units[text[-1]], (level, text)
    assert m["line_bytes"] == int(_sysfs(0, "coherency_line_size"))
    assert m["page_bytes"] == os.sysconf("SC_PAGE_SIZE")
    # the CPUs this process may use: its affinity (no CPU quota where the suite runs)
    assert m["logical_cpus"] == len(os.sched_getaffinity(0))


def test_every_value_has_a_source():
    sources = {name: source for name, (_, source) in CONFIG["tuning"].items()}
    assert set(sources.values()) <= {"default", "detected", "derived", "DMLCPU_TUNE"}
    for name in ("stream_threshold", "cache_share", "string_copy_bytes", "parallel_chunk",
                 "l2_bytes", "share_cap"):
        assert name in sources


def test_the_model_given_as_data_derives_the_tuning_in_force():
    if "DMLCPU_TUNE" in os.environ or "DMLCPU_STREAM_THRESHOLD" in os.environ:
        pytest.skip("the environment overrides the tuning")
    assert _core._derive(CONFIG["machine"]) == CONFIG["tuning"]


@pytest.mark.parametrize("text, name, expected", [
    ("stream_threshold=123456", "stream_threshold", 123456),
    ("long_run=64K", "long_run", 64 << 10),
    ("share_cap=3m,parallel_chunk=1M", "parallel_chunk", 1 << 20),
    ("tile_block=0", "tile_block", 0),
    ("string_copy_bytes=1G,", "string_copy_bytes", 1 << 30)])
def test_dmlcpu_tune_sets_any_value(text, name, expected):
    config = config_with_env(DMLCPU_TUNE=text)
    assert config["tuning"][name] == [expected, "DMLCPU_TUNE"]
    assert config["tune_ignored"] == 0


def test_dmlcpu_tune_feeds_the_values_derived_after_it():
    config = config_with_env(DMLCPU_TUNE="cache_share=8M")
    assert config["tuning"]["cache_share"] == [8 * MiB, "DMLCPU_TUNE"]
    assert config["tuning"]["stream_thread_bytes"] == [6 * MiB, "derived"]


@pytest.mark.parametrize("text, expected", [("123456", 123456), ("64K", 64 << 10),
                                            ("3m", 3 * MiB), ("1G", 1 << 30), ("0", 0)])
def test_stream_threshold_variable_is_an_alias(text, expected):
    config = config_with_env(DMLCPU_STREAM_THRESHOLD=text)
    assert config["tuning"]["stream_threshold"] == [expected, "DMLCPU_TUNE"]
    assert config["tuning"]["stream_thread_bytes"] == [expected, "DMLCPU_TUNE"]


@pytest.mark.parametrize("env", [{"DMLCPU_STREAM_THRESHOLD": "12x"},
                                 {"DMLCPU_TUNE": "no_such_value=1"},
                                 {"DMLCPU_TUNE": "long_run=1.5M"},
                                 {"DMLCPU_TUNE": "long_run"},
                                 {"DMLCPU_TUNE": "long_run=-1"},
                                 {"DMLCPU_TUNE": "long_run=99999999999G"}])
def test_malformed_entries_are_ignored_and_counted(env):
    config = config_with_env(**env)
    assert config["tune_ignored"] == 1
    assert config["tuning"] == {name: list(v) for name, v in CONFIG["tuning"].items()}


def test_show_config_prints_the_model_and_every_value(capsys):
    dmlcpu.show_config()
    out = capsys.readouterr().out
    m = CONFIG["machine"]
    assert "L2 %d KiB" % (m["l2_bytes"] // 1024) in out
    for name, (value, source) in _core._config()["tuning"].items():  # as in force now
        assert any(line.split() == [name, str(value), source] for line in out.splitlines()), name


def test_info_json_carries_the_model_and_the_tuning():
    result = subprocess.run([sys.executable, "-m", "dmlcpu", "info", "--json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["machine"] == CONFIG["machine"]
    assert info["tuning"]["stream_threshold"] == list(CONFIG["tuning"]["stream_threshold"])


def test_set_tune_returns_the_override_and_restores():
    before = _core._set_tune("long_run", 12345)
    try:
        assert before == -1
        assert _core._tuning()["long_run"] == (12345, "DMLCPU_TUNE")
    finally:
        assert _core._set_tune("long_run", -1) == 12345
    assert _core._tuning()["long_run"] == tuple(CONFIG["tuning"]["long_run"])
    with pytest.raises(ValueError, match="unknown tuning value"):
        _core._set_tune("nothing", 1)


@pytest.mark.parametrize("text", ["parallel_chunk=0,chunks_per_thread=4G",
                                  "scan_strip=0,tile_block=0,long_run=0,string_row=0",
                                  "stream_threshold=0,stream_thread_bytes=0,l2_bytes=0"])
def test_extreme_tuning_never_crashes_nor_changes_a_result(text):
    """Any value DMLCPU_TUNE can set, at its extremes: every operator still exact."""
    code = """if True:
        import numpy as np, dmlcpu
        x = np.arange(2 * 300 * 1030, dtype=np.float32).reshape(2, 300, 1030) % 251
        dmlcpu.set_num_threads(2)
        assert (dmlcpu.slice(x, offsets=[0, 3, 1], sizes=[2, 290, 1020],
                             strides=[1, 1, 1]) == x[:, 3:293, 1:1021]).all()
        assert (dmlcpu.join([x, x], axis=2) == np.concatenate([x, x], axis=2)).all()
        assert (dmlcpu.tile(x[:, :4, :8], repeats=[2, 50, 60]) ==
                np.tile(x[:, :4, :8], [2, 50, 60])).all()
        assert (dmlcpu.cumulative_summation(x, axis=0) == np.cumsum(x, axis=0)).all()
        print("ok")
    """
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=dict(os.environ, DMLCPU_TUNE=text), timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


@pytest.mark.parametrize("text, expected", [("pool_spin_ns=0", 0), ("pool_spin_ns=20000", 20000)])
def test_dmlcpu_tune_sets_the_pool_spin(text, expected):
    """The pool's spin is a DMLCPU_TUNE entry too: 0 turns spinning off."""
    code = "import dmlcpu._core as c; print(c._set_pool_spin_ns(-1))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=dict(os.environ, DMLCPU_TUNE=text), timeout=120)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == expected


def test_a_call_runs_on_no_more_threads_than_the_cpus():
    """32 pool threads on this machine: a 64 MiB call gets the CPUs the process may use."""
    code = ("import json, dmlcpu, dmlcpu._core as c; dmlcpu.set_num_threads(32); "
            "t = c._config()['tuning']; "
            "print(json.dumps([t['call_threads'], c._decide(t, 'threads', 64 << 20, 32)]))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    cpus = len(os.sched_getaffinity(0))
    assert json.loads(result.stdout) == [[cpus, "detected"], min(cpus, 32)]
