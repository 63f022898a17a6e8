# Runtime configuration (ISA dispatch, threads), included by _core.pyx.
# The C core detects the CPU and fills its kernel table once; doing it at import keeps the first
# operator call from paying for it and makes the environment variables take effect at import.
from libc.stdint cimport uint32_t

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
    cdef const dmlcpu_cache_info *cache = dmlcpu_cache()
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
        "llc_bytes": cache.llc_bytes,
        "llc_sharing": cache.llc_sharing,
        "llc_detected": bool(cache.llc_detected),
        "stream_threshold": dmlcpu_stream_threshold(),
        "stream_threshold_source": _threshold_source(cache),
        "stream_reuse_bytes": dmlcpu_stream_reuse(),
        "string_copy_bytes": dmlcpu_string_copy_limit(),
    }


cdef str _threshold_source(const dmlcpu_cache_info *cache):
    if dmlcpu_stream_threshold() != cache.stream_threshold:
        return "set by _set_stream_threshold"
    if cache.threshold_from_env == 1:
        return "DMLCPU_STREAM_THRESHOLD"
    rule = "from the last-level cache" if cache.llc_detected else "no cache detected: a default"
    if cache.threshold_from_env == -1:
        return rule + "; a malformed DMLCPU_STREAM_THRESHOLD was ignored"
    return rule


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
        "last-level cache: %d KiB shared by %d CPU(s)%s" % (
            c["llc_bytes"] // 1024, c["llc_sharing"], "" if c["llc_detected"] else " (assumed)"),
        "streaming stores: outputs of %d KiB and more (%s)" % (
            c["stream_threshold"] // 1024, c["stream_threshold_source"]),
    ]
    if c["stream_reuse_bytes"]:
        lines.append("  except copies of up to %d KiB a thread rewriting the last one's output "
                     "right after it" % (c["stream_reuse_bytes"] // 1024))
    if c["string_copy_bytes"]:
        lines.append("  except TILE's rows of 2 KiB and more, and its slabs on one thread, up to "
                     "%d KiB a thread: by the string copy, cached"
                     % (c["string_copy_bytes"] // 1024))
    lines.append("kernels:")
    lines += ["  %-7s %s" % (isa, " ".join(names)) for isa, names in by_isa.items()]
    if c["note"]:
        lines.append("note:          " + c["note"])
    print("\n".join(lines), file=file if file is not None else _sys.stdout)


def _set_stream_threshold(n):
    """Benchmarks and tests: copies writing at least n bytes stream from now on (-1: the detected
    threshold again). Returns the threshold in force before."""
    cdef int64_t before = dmlcpu_stream_threshold()
    dmlcpu_set_stream_threshold(_operator.index(n))
    return before


def _set_stream_reuse(n):
    """Benchmarks and tests: copies beyond the threshold moving at most n bytes a thread write
    cached where they rewrite the last such copy's output right after it, whatever the threshold
    (0: never; -1: the default again, the detected limit while the threshold is the detected
    one). Returns the limit in force before."""
    cdef int64_t before = dmlcpu_stream_reuse()
    dmlcpu_set_stream_reuse(_operator.index(n))
    return before


def _stream_rewrites():
    """Tests: how many copies so far wrote cached as rewrites of the last one's output."""
    return dmlcpu_stream_rewrites()


def _set_string_copy_limit(n):
    """Benchmarks and tests: copies beyond the threshold or L2 that only write (from a source that
    stays cached, as TILE's input), in packed rows of 2 KiB and more, and a one-thread TILE in
    blocks (then in slabs), write them by the string copy, cached, where each thread writes at
    most n bytes (0: never; -1: the default again, the detected limit while the threshold is the
    detected one). Returns the limit in force before."""
    cdef int64_t before = dmlcpu_string_copy_limit()
    dmlcpu_set_string_copy_limit(_operator.index(n))
    return before


def _string_copy_writes():
    """Tests: how many copies so far were written by the string copy instead of streamed or of the
    aligned walk."""
    return dmlcpu_string_copy_writes()


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


def _set_threads_for_dask(n):
    """dmlcpu.dask: n threads, recorded as its choice, not the user's."""
    dmlcpu_set_num_threads_from(<int>n, DMLCPU_THREADS_FROM_DASK)


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
