"""The CPUs the process may use (csrc/cpus.c): the cgroup quota read from fixture files as the
kernel lays them out, a real cgroup with a one-CPU quota where the test runs as root, and what
show_config says about the thread count."""
import os
import subprocess
import sys
import uuid

import pytest

import dmlcpu
from dmlcpu import _core

from thread_pool import needs_pool

SRC = os.path.dirname(os.path.dirname(dmlcpu.__file__))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def hierarchy(tmp_path, cgroup_lines, mounts, files):
    """Fixture /proc/self/cgroup and mountinfo files; mounts: (fstype, root, dir, super
    options); files: {path under tmp_path: content}. Returns the two file paths."""
    for rel, text in files.items():
        write(str(tmp_path / rel), text + "\n")
    lines = ["%d 25 0:%d %s %s rw,nosuid - %s %s %s" % (30 + i, 26 + i, root, tmp_path / d,
                                                          fstype, fstype, opts)
             for i, (fstype, root, d, opts) in enumerate(mounts)]
    lines.insert(0, "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw")
    write(str(tmp_path / "mountinfo"), "\n".join(lines) + "\n")
    write(str(tmp_path / "cgroup"), "\n".join(cgroup_lines) + "\n")
    return str(tmp_path / "cgroup"), str(tmp_path / "mountinfo")


V2 = ("cgroup2", "/", "cg2", "rw")
V1 = ("cgroup", "/", "cpu", "rw,cpu,cpuacct")

# (name, /proc/self/cgroup lines, mounts, files, expected (CPUs, version))
CASES = [
    ("v2 one CPU", ["0::/a/b"], [V2], {"cg2/a/b/cpu.max": "100000 100000"}, (1.0, 2)),
    ("v2 half a CPU", ["0::/a/b"], [V2], {"cg2/a/b/cpu.max": "50000 100000"}, (0.5, 2)),
    ("v2 no limit", ["0::/a/b"], [V2], {"cg2/a/b/cpu.max": "max 100000"}, (None, 0)),
    ("v2 the parent's limit", ["0::/a/b"], [V2],
     {"cg2/a/b/cpu.max": "max 100000", "cg2/a/cpu.max": "150000 100000"}, (1.5, 2)),
    ("v2 the tightest on the way up", ["0::/a/b"], [V2],
     {"cg2/a/b/cpu.max": "400000 100000", "cg2/a/cpu.max": "200000 100000",
      "cg2/cpu.max": "300000 100000"}, (2.0, 2)),
    ("v2 the leaf tighter than its parent", ["0::/a/b"], [V2],
     {"cg2/a/b/cpu.max": "25000 100000", "cg2/a/cpu.max": "200000 100000"}, (0.25, 2)),
    ("v2 no cpu.max anywhere (controller off)", ["0::/a/b"], [V2], {"cg2/a/b/x": ""},
     (None, 0)),
    ("v2 malformed quota", ["0::/a"], [V2], {"cg2/a/cpu.max": "lots 100000"}, (None, 0)),
    ("v2 no period", ["0::/a"], [V2], {"cg2/a/cpu.max": "100000"}, (None, 0)),
    ("v2 zero period", ["0::/a"], [V2], {"cg2/a/cpu.max": "100000 0"}, (None, 0)),
    ("v2 container: mount root is the cgroup", ["0::/kubepods/pod1/c1"],
     [("cgroup2", "/kubepods/pod1", "cg2", "rw")], {"cg2/c1/cpu.max": "300000 100000"},
     (3.0, 2)),
    ("v2 host path outside the mount's root: the mount itself", ["0::/system.slice/x"],
     [("cgroup2", "/kubepods/pod1", "cg2", "rw")], {"cg2/cpu.max": "200000 100000"}, (2.0, 2)),
    ("v1 two CPUs", ["4:memory:/m", "3:cpu,cpuacct:/docker/abc"], [V1],
     {"cpu/docker/abc/cpu.cfs_quota_us": "200000", "cpu/docker/abc/cpu.cfs_period_us": "100000"},
     (2.0, 1)),
    ("v1 no quota (-1)", ["3:cpu,cpuacct:/x"], [V1],
     {"cpu/x/cpu.cfs_quota_us": "-1", "cpu/x/cpu.cfs_period_us": "100000"}, (None, 0)),
    ("v1 quota without its period", ["3:cpu,cpuacct:/x"], [V1],
     {"cpu/x/cpu.cfs_quota_us": "50000"}, (None, 0)),
    ("v1 controller cpuacct alone is not cpu", ["3:cpuacct:/x"],
     [("cgroup", "/", "cpu", "rw,cpuacct")],
     {"cpu/x/cpu.cfs_quota_us": "100000", "cpu/x/cpu.cfs_period_us": "100000"}, (None, 0)),
    ("v1 cpuset is not cpu", ["3:cpuset:/x"], [("cgroup", "/", "cpu", "rw,cpuset")],
     {"cpu/x/cpu.cfs_quota_us": "100000", "cpu/x/cpu.cfs_period_us": "100000"}, (None, 0)),
    ("v1 and v2 both limit: the tighter", ["0::/a", "3:cpu:/b"],
     [V2, ("cgroup", "/", "cpu", "rw,cpu")],
     {"cg2/a/cpu.max": "300000 100000", "cpu/b/cpu.cfs_quota_us": "150000",
      "cpu/b/cpu.cfs_period_us": "100000"}, (1.5, 1)),
    ("hybrid: v2 without cpu, v1 cpu at the root unlimited", ["0::/", "1:cpu:/"],
     [V2, ("cgroup", "/", "cpu", "rw,cpu")],
     {"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}, (None, 0)),
    ("no cgroup mounted", ["0::/a"], [], {}, (None, 0)),
    ("a tiny quota is at least a thousandth", ["0::/a"], [V2], {"cg2/a/cpu.max": "1 1000000"},
     (0.001, 2)),
]


@pytest.mark.parametrize("name, cgroup, mounts, files, expected", CASES,
                         ids=[c[0] for c in CASES])
def test_cgroup_quota_from_files(tmp_path, name, cgroup, mounts, files, expected):
    assert _core._cgroup_quota(*hierarchy(tmp_path, cgroup, mounts, files)) == expected


def test_cgroup_quota_missing_files(tmp_path):
    assert _core._cgroup_quota(str(tmp_path / "none"), str(tmp_path / "none")) == (None, 0)


def test_cpus_are_consistent():
    c = _core._cpus()
    assert 1 <= c["cores"] <= c["affinity"]
    assert 1 <= c["usable"] <= c["affinity"]
    assert c["threads"] == min(c["cores"], c["usable"])
    if c["quota"] is None:
        assert c["usable"] == c["affinity"] and c["quota_source"] is None


def run_child(code, env_extra=None):
    env = dict(os.environ, PYTHONPATH=SRC)
    env.pop("DMLCPU_NUM_THREADS", None)
    env.update(env_extra or {})
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def threads_line(text):
    return [line for line in text.splitlines() if line.startswith("threads:")][0]


@needs_pool
def test_show_config_says_where_the_count_came_from():
    code = "import dmlcpu; dmlcpu.show_config()"
    assert "(DMLCPU_NUM_THREADS)" in threads_line(run_child(code, {"DMLCPU_NUM_THREADS": "3"}))
    code = "import dmlcpu; dmlcpu.set_num_threads(2); dmlcpu.show_config()"
    assert threads_line(run_child(code)) == "threads:       2 (set_num_threads)"
    default = threads_line(run_child("import dmlcpu; dmlcpu.show_config()"))
    assert any(w in default for w in ("affinity", "quota", "physical cores")), default


def real_cgroup_dir():
    """A new child cgroup with the cpu controller (v2 first, then v1), or None where this
    process may not make one (not root, no writable cgroup mount)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not sys.platform.startswith("linux"):
        return None
    name = "dmlcpu-test-" + uuid.uuid4().hex[:8]
    with open("/proc/self/mountinfo") as f:
        mounts = [line.split(" - ") for line in f.read().splitlines() if " - " in line]
    for head, tail in mounts:
        fstype, _, opts = (tail.split(" ") + ["", ""])[:3]
        point = head.split(" ")[4]
        wanted = (fstype == "cgroup2" and "cpu" in open_words(os.path.join(point,
                                                                          "cgroup.controllers"))
                  or fstype == "cgroup" and "cpu" in opts.split(","))
        if not wanted:
            continue
        path = os.path.join(point, name)
        try:
            os.mkdir(path)
        except OSError:
            continue
        return path, fstype == "cgroup2"
    return None


def open_words(path):
    try:
        with open(path) as f:
            return f.read().split()
    except OSError:
        return []


@needs_pool
def test_real_cgroup_with_one_cpu_quota():
    """A child process moved into a cgroup with a quota of one CPU gets one thread by default,
    and show_config says why."""
    found = real_cgroup_dir()
    if found is None:
        pytest.skip("needs root and a writable cgroup hierarchy with the cpu controller "
                    "(the parsed-files tests above always run)")
    path, v2 = found
    try:
        if v2:
            write(os.path.join(path, "cpu.max"), "100000 100000")
        else:
            write(os.path.join(path, "cpu.cfs_period_us"), "100000")
            write(os.path.join(path, "cpu.cfs_quota_us"), "100000")
        code = ("import os\n"
                "open(%r, 'w').write(str(os.getpid()))\n"
                "import dmlcpu\n"
                "print(dmlcpu.get_num_threads(), len(os.sched_getaffinity(0)))\n"
                "dmlcpu.show_config()\n" % os.path.join(path, "cgroup.procs"))
        out = run_child(code)
    finally:
        os.rmdir(path)
    threads, affinity = map(int, out.splitlines()[0].split())
    assert threads == 1
    if affinity > 1:
        assert "quota 1.0 CPU of %d" % affinity in threads_line(out), out
