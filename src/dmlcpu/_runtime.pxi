# Runtime configuration (ISA dispatch, threads), included by _core.pyx.
# The C core detects the CPU and fills its kernel table once; doing it at import keeps the first
# operator call from paying for it and makes the environment variables take effect at import.
from libc.stdint cimport int32_t, int64_t, uint32_t

import operator as _operator
import os as _os
import sys as _sys

dmlcpu_init()


cdef list _isas_in(uint32_t mask):
    return [dmlcpu_isa_name(i).decode() for i in range(DMLCPU_ISA_COUNT) if mask & (1u << i)]


def _config():
    """The runtime configuration as a dict (what show_config prints)."""
    cdef uint32_t features = dmlcpu_cpu_features()
    cdef int slot, isa
    kernels = {}
    for slot in range(dmlcpu_kernel_slot_count()):
        isa = dmlcpu_kernel_slot_isa(slot)
        kernels[dmlcpu_kernel_slot_name(slot).decode()] = (
            dmlcpu_isa_name(isa).decode() if isa >= 0 else None)
    return {
        "cpu_features": [dmlcpu_cpu_feature_name(i).decode()
                         for i in range(DMLCPU_CPU_FEATURE_COUNT) if features & (1u << i)],
        "compiled_isas": _isas_in(dmlcpu_compiled_isas()),
        "usable_isas": _isas_in(dmlcpu_usable_isas()),
        "active_isa": dmlcpu_isa_name(dmlcpu_active_isa()).decode(),
        "kernels": kernels,
        "num_threads": dmlcpu_get_num_threads(),
        "threads_source": _threads_source(),
        "threads_reason": _threads_reason(),
        "cpus": _cpus(),
        "pool_spin_ns": dmlcpu_pool_spin_ns(),
        "thread_pool": bool(dmlcpu_threads_compiled()),
        # the note quotes the environment, cut to a fixed length (maybe mid-character)
        "note": dmlcpu_config_note().decode("utf-8", "replace"),
        "machine": _machine(),
        "tuning": _tuning(),
        "tune_ignored": dmlcpu_tune_ignored(),
    }


# The machine model's fields, in dmlcpu_machine_info's order.
MACHINE_FIELDS = ("l1d_bytes", "l1d_sharing", "l2_bytes", "l2_sharing", "l3_bytes", "l3_sharing",
                  "line_bytes", "page_bytes", "logical_cpus", "hypervisor", "caches_detected")
TUNE_SOURCES = ("default", "detected", "derived", "DMLCPU_TUNE")
# The policy's questions (dmlcpu_policy_decide) and the names of the ways they answer with.
_QUESTIONS = {"threads": 0, "chunks": 1, "streams": 2, "copy_store": 3, "group_streams": 4,
              "tile": 5, "scan_strip": 6, "scan_streams": 7}
COPY_STORES = ("runs", "stream", "string", "rows_aligned", "rows_string", "rows_stream")
TILE_WAYS = ("blocks", "straight", "blocks_streamed", "slabs")


def _machine():
    """The machine model detected at initialization, as a dict."""
    cdef int64_t out[DMLCPU_MACHINE_FIELDS]
    dmlcpu_machine_info(out)
    return {name: out[i] for i, name in enumerate(MACHINE_FIELDS)}


def _tuning():
    """Every tuning value in force: name -> (value, source)."""
    cdef int32_t source = 0
    cdef int64_t value
    result = {}
    for i in range(dmlcpu_tune_count()):
        value = dmlcpu_tune_value(i, &source)
        result[dmlcpu_tune_name(i).decode()] = (value, TUNE_SOURCES[source])
    return result


def _tune_id(name):
    for i in range(dmlcpu_tune_count()):
        if dmlcpu_tune_name(i).decode() == name:
            return i
    raise ValueError("unknown tuning value %r" % (name,))


def _set_tune(name, value):
    """Benchmarks and tests, between calls: tuning value `name` from now on (-1: derived again).
    Returns the override before (-1: none)."""
    return dmlcpu_tune_set(_tune_id(name), _operator.index(value))


def _derive(machine, overrides=None):
    """Tests: the tuning derived from a machine model given as a dict (MACHINE_FIELDS) with
    overrides {name: value}: name -> (value, source). Pure: nothing in force changes."""
    cdef int64_t fields[DMLCPU_MACHINE_FIELDS]
    cdef int64_t over[64]
    cdef int64_t values[64]
    cdef int32_t sources[64]
    cdef int count = dmlcpu_tune_count()
    if count > 64:
        raise RuntimeError("more tuning values than this hook holds")
    for i, name in enumerate(MACHINE_FIELDS):
        fields[i] = _operator.index(machine[name])
    for i in range(count):
        over[i] = -1
    for name, value in (overrides or {}).items():
        over[_tune_id(name)] = _operator.index(value)
    dmlcpu_tune_derive(fields, over, values, sources)
    return {dmlcpu_tune_name(i).decode(): (values[i], TUNE_SOURCES[sources[i]])
            for i in range(count)}


def _decide(tuning, question, *facts):
    """Tests: the policy's answer to `question` (see dmlcpu_policy_decide) for a tuning as
    _derive returns it and the call's facts (numbers). Pure."""
    cdef int64_t values[64]
    cdef int64_t f[16]
    cdef int count = dmlcpu_tune_count()
    for i in range(count):
        values[i] = _operator.index(tuning[dmlcpu_tune_name(i).decode()][0])
    if len(facts) > 16:
        raise ValueError("too many facts")
    for i, v in enumerate(facts):
        f[i] = _operator.index(v)
    return dmlcpu_policy_decide(values, _QUESTIONS[question], f)


def show_config(file=None):
    """Prints the CPU features, the compiled and usable ISAs, the ISA chosen for each kernel
    family and the thread count (``python -m dmlcpu info`` prints the same)."""
    c = _config()
    by_isa = {}
    for name, isa in c["kernels"].items():
        by_isa.setdefault(isa or "none", []).append(name)
    lines = [
        "cpu features:  " + (" ".join(c["cpu_features"]) or "(none detected)"),
        "compiled ISAs: " + " ".join(c["compiled_isas"]),
        "usable ISAs:   " + " ".join(c["usable_isas"]),
        "active ISA:    " + c["active_isa"],
        "threads:       %d (%s)" % (c["num_threads"], c["threads_reason"] if c["thread_pool"]
                                    else "no pool in this build"),
    ]
    m = c["machine"]
    lines.append("machine:       L1d %d KiB / %d, L2 %d KiB / %d, L3 %s, line %d B, page %d B, "
                 "%d logical CPU(s)%s%s" % (
                     m["l1d_bytes"] // 1024, m["l1d_sharing"], m["l2_bytes"] // 1024,
                     m["l2_sharing"],
                     "%d KiB / %d" % (m["l3_bytes"] // 1024, m["l3_sharing"])
                     if m["l3_bytes"] else "none",
                     m["line_bytes"], m["page_bytes"], m["logical_cpus"],
                     ", hypervisor" if m["hypervisor"] else "",
                     "" if m["caches_detected"] else " (caches assumed: none detected)"))
    lines.append("tuning (docs/decisions.md; DMLCPU_TUNE=\"name=value,...\" overrides):")
    lines += ["  %-20s %12d  %s" % (name, value, source)
              for name, (value, source) in c["tuning"].items()]
    if c["tune_ignored"]:
        lines.append("  (%d malformed DMLCPU_TUNE / DMLCPU_STREAM_THRESHOLD entries ignored)"
                     % c["tune_ignored"])
    lines.append("kernels:")
    lines += ["  %-7s %s" % (isa, " ".join(names)) for isa, names in by_isa.items()]
    if c["note"]:
        lines.append("note:          " + c["note"])
    print("\n".join(lines), file=file if file is not None else _sys.stdout)


def _set_stream_threshold(n):
    """Benchmarks and tests: copies moving at least n bytes a thread stream from now on, as
    DMLCPU_STREAM_THRESHOLD sets it (-1: derived again). Returns the override before (-1:
    none), which restores it."""
    n = _operator.index(n)
    _set_tune("stream_thread_bytes", n)
    return _set_tune("stream_threshold", n)


def _set_tile_limit(n):
    """Tests: TILE input runs of n bytes or more go straight into every tile, packed or not;
    otherwise blocks of at most n bytes, those up to half of it doubled in every dim (-1: the
    built-in rule again)."""
    dmlcpu_set_tile_limit(_operator.index(n))


def set_num_threads(n):
    """Threads one large call may use (1 .. 256); the default is DMLCPU_NUM_THREADS or the CPUs
    this process may really use (its affinity mask, capped by a cgroup or job-object CPU quota,
    physical cores rather than their SMT siblings). Results never depend on it."""
    n = _operator.index(n)
    if n < 1 or n > DMLCPU_MAX_THREADS or dmlcpu_set_num_threads(<int>n) != DMLCPU_OK:
        raise ValueError("set_num_threads: n is %d but must be between 1 and %d%s" % (
            n, DMLCPU_MAX_THREADS if dmlcpu_threads_compiled() else 1,
            "" if dmlcpu_threads_compiled() else " (this build has no thread pool)"))


def get_num_threads():
    """Threads one large call may use."""
    return dmlcpu_get_num_threads()


_SOURCES = {DMLCPU_THREADS_FROM_CPUS: "cpus", DMLCPU_THREADS_FROM_ENV: "DMLCPU_NUM_THREADS",
            DMLCPU_THREADS_FROM_SET: "set_num_threads", DMLCPU_THREADS_FROM_DASK: "dmlcpu.dask"}
_SOURCE_CODES = {name: code for code, name in _SOURCES.items()}
_QUOTAS = {DMLCPU_QUOTA_NONE: None, DMLCPU_QUOTA_CGROUP2: "cgroup v2",
           DMLCPU_QUOTA_CGROUP1: "cgroup v1", DMLCPU_QUOTA_JOB: "job object"}


def _threads_source():
    """Who set the thread count: "cpus" (nobody: the CPUs detected), "DMLCPU_NUM_THREADS",
    "set_num_threads" or "dmlcpu.dask"."""
    return _SOURCES[dmlcpu_threads_source()]


def _cpus():
    """The CPUs detected at import: affinity, physical cores, quota (CPUs, or None), what set
    the quota, usable CPUs, the default thread count."""
    cdef const dmlcpu_cpu_budget *c = dmlcpu_cpus()
    return {"affinity": c.affinity, "cores": c.cores,
            "quota": c.quota_milli / 1000.0 if c.quota_milli else None,
            "quota_source": _QUOTAS[c.quota_source], "usable": c.usable, "threads": c.threads}


def _threads_reason():
    """Why the thread count is what it is, in a few words (show_config)."""
    source = _threads_source()
    if source == "dmlcpu.dask":
        return "dmlcpu.dask: one thread per dask task slot"
    if source != "cpus":
        return source
    c = _cpus()
    if c["threads"] < c["usable"]:
        return "physical cores: %d of %d CPUs" % (c["cores"], c["affinity"])
    if c["usable"] < c["affinity"]:
        return "%s quota %s CPU of %d" % (c["quota_source"], round(c["quota"], 3), c["affinity"])
    return "affinity: %d CPU%s" % (c["affinity"], "s" if c["affinity"] > 1 else "")


def _set_num_threads_from(n, source):
    """n threads, recorded as set by ``source`` (a _threads_source() name): dmlcpu.dask's
    choice rather than the user's, or a saved count put back with its reason (threadpoolctl)."""
    if dmlcpu_set_num_threads_from(<int>n, _SOURCE_CODES[source]) != DMLCPU_OK:
        raise ValueError("_set_num_threads_from: n is %d, not a valid thread count" % n)


def _cgroup_quota(cgroup_file, mountinfo):
    """Tests: (CPUs, cgroup version) of the quota that a /proc/self/cgroup and a
    /proc/self/mountinfo file describe; (None, 0) for none."""
    cdef int version = 0
    cdef bytes cgroup_path = _os.fsencode(cgroup_file), mountinfo_path = _os.fsencode(mountinfo)
    cdef int64_t milli = dmlcpu_cgroup_quota_milli(cgroup_path, mountinfo_path, &version)
    return (milli / 1000.0 if milli else None), version


def _set_pool_spin_ns(ns):
    """Tests and benchmarks: nanoseconds pool threads spin before sleeping (-1: the default;
    0: never). Returns the value in force before."""
    before = dmlcpu_pool_spin_ns()
    dmlcpu_set_pool_spin_ns(_operator.index(ns))
    return before


def _pool_yields():
    """Tests: how many times so far a pool thread spinning past 10 us yielded its CPU."""
    return dmlcpu_pool_yields()


def _force_isa(name):
    """For tests: re-selects the kernel table capped at ISA ``name`` ("scalar", "avx2",
    "avx512"); None or "auto" restores the automatic choice. ValueError if unusable here."""
    cdef int isa = -1
    if name is not None and name != "auto":
        names = [dmlcpu_isa_name(i).decode() for i in range(DMLCPU_ISA_COUNT)]
        if name not in names:
            raise ValueError("unknown ISA %r; known: %s" % (name, ", ".join(names)))
        isa = names.index(name)
    if dmlcpu_force_isa(isa) != DMLCPU_OK:
        raise ValueError("ISA %r is not usable on this machine (usable: %s)" % (
            name, ", ".join(_isas_in(dmlcpu_usable_isas()))))
