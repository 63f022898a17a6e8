"""The policy as decision tables (policy.c; docs/decisions.md): machine profiles given as data,
the tuning each derives, and the decisions for a set of call shapes. Every expected value is
written out by hand from the profile, never computed here by the rule under test."""
import pytest

from dmlcpu import _core

K, M = 1 << 10, 1 << 20

# (l1d, sharing, l2, sharing, l3, sharing, line, page, logical CPUs, hypervisor, detected)
FIELDS = _core.MACHINE_FIELDS
PROFILES = {
    # this project's Intel Xeon VM: 2 vCPUs, AVX-512, 300 MiB L3 reported (the host's)
    "intel_vm": (48 * K, 1, 2 * M, 1, 300 * M, 2, 64, 4096, 2, 1, 1),
    # the AMD Zen 4 (EPYC) VM: 2 vCPUs, 1 MiB L2, 32 MiB L3 reported shared by both
    "amd_vm": (32 * K, 1, 1 * M, 1, 32 * M, 2, 64, 4096, 2, 1, 1),
    # an 8-core hybrid laptop (4 P-cores with SMT, 4 E-cores): 24 MiB L3 over 12 threads
    "hybrid_laptop": (48 * K, 2, 1280 * K, 2, 24 * M, 12, 64, 4096, 12, 0, 1),
    # a 64-core server: one 32 MiB L3 per 8-core complex (16 threads), 128 threads
    "server_64c": (32 * K, 2, 1 * M, 2, 32 * M, 16, 64, 4096, 128, 0, 1),
    # Apple M2: no L3, 16 MiB L2 per 4 performance cores, 128-byte lines, 16 KiB pages
    "apple_m2": (128 * K, 1, 16 * M, 4, 0, 0, 128, 16384, 8, 0, 1),
    # a Windows ARM64 laptop: 12 MiB L2 per cluster of 4, 6 MiB L3 over 12 cores
    "windows_arm64": (64 * K, 1, 12 * M, 4, 6 * M, 12, 64, 4096, 12, 0, 1),
    # nothing detected: machine.c's defaults
    "undetected": (32 * K, 1, 512 * K, 1, 8 * M, 1, 64, 4096, 1, 0, 0),
}
X86 = ("intel_vm", "amd_vm", "hybrid_laptop", "server_64c", "undetected")


def tuning_of(profile, **overrides):
    return _core._derive(dict(zip(FIELDS, PROFILES[profile])), overrides)


# name -> (caches_believable, l2_bytes, cache_share, stream_threshold, stream_thread_bytes,
#          string_copy_bytes, string_row)
DERIVED = {
    "intel_vm": (0, 2 * M, 4 * M, 3 * M, 3 * M, 8 * M, 2048),
    "amd_vm": (0, 1 * M, 4 * M, 3 * M, 3 * M, 8 * M, 2048),
    "hybrid_laptop": (1, 640 * K, 2 * M, 6 * M, 1536 * K, 24 * M, 2048),
    "server_64c": (1, 512 * K, 2 * M, 8 * M, 1536 * K, 32 * M, 2048),
    "apple_m2": (1, 4 * M, 4 * M, 4 * M, 3 * M, 16 * M, 4096),
    "windows_arm64": (1, 3 * M, 3 * M, 2304 * K, 2304 * K, 6 * M, 2048),
    "undetected": (0, 512 * K, 4 * M, 3 * M, 3 * M, 4 * M, 2048),
}
DERIVED_NAMES = ("caches_believable", "l2_bytes", "cache_share", "stream_threshold",
                 "stream_thread_bytes", "string_copy_bytes", "string_row")


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_tuning_derived_from_each_profile(profile):
    t = tuning_of(profile)
    assert tuple(t[name][0] for name in DERIVED_NAMES) == DERIVED[profile]
    assert t["share_cap"] == (4 * M, "default")
    assert t["parallel_chunk"] == (256 * K, "default")
    assert t["scan_strip"] == (4096, "derived")
    assert t["l2_bytes"][1] == ("default" if profile == "undetected" else "detected")
    assert t["stream_threshold"][1] == "derived"


def test_every_value_has_a_source_and_overrides_feed_the_values_after_them():
    t = tuning_of("amd_vm", share_cap=16 * M)
    assert t["share_cap"] == (16 * M, "DMLCPU_TUNE")
    # the hypervisor still makes the share unbelievable, but the cap is now the reported share
    assert t["cache_share"] == (16 * M, "derived")
    assert t["stream_threshold"] == (12 * M, "derived")
    t = tuning_of("amd_vm", stream_threshold=5 * M)
    assert t["stream_threshold"] == (5 * M, "DMLCPU_TUNE")
    assert t["stream_thread_bytes"] == (3 * M, "derived")
    assert set(s for _, s in tuning_of("intel_vm").values()) <= {
        "default", "detected", "derived"}


ALL = sorted(DERIVED)


def answers(question, facts_of):
    """{profile: the policy's answer} for facts given per profile (a callable of the profile:
    the kernels' facts differ between x86 and ARM)."""
    return {p: _core._decide(tuning_of(p), question, *facts_of(p)) for p in ALL}


def kernels(profile):
    """has_stream, has_stream_rows: the x86 kernels stream runs and rows, NEON's do not."""
    return (1, 1) if profile in X86 else (0, 0)


STREAMS = [
    # (written, read, threads) -> {profile: streams}
    ((2 * M, 2 * M, 1), dict.fromkeys(ALL, 0)),
    ((4 * M, 4 * M, 1), dict(intel_vm=1, amd_vm=1, hybrid_laptop=0, server_64c=0, apple_m2=1,
                             windows_arm64=1, undetected=1)),
    ((8 * M, 8 * M, 2), dict.fromkeys(ALL, 1)),
    # all 128 threads of the server: 192 MiB moved and more (not 128 x 8 MiB)
    ((128 * M, 128 * M, 128), dict.fromkeys(ALL, 0)),
    ((256 * M, 256 * M, 128), dict(intel_vm=0, amd_vm=0, hybrid_laptop=1, server_64c=1,
                                   apple_m2=0, windows_arm64=0, undetected=0)),
]


@pytest.mark.parametrize("facts, expected", STREAMS)
def test_streams(facts, expected):
    assert answers("streams", lambda p: facts) == expected


# (written, read, call_bytes, run_bytes, rows_packed, threads, request) -> {profile: store}
COPY = [
    # long packed runs (64 KiB) at 2 MiB, one thread: the string copy everywhere
    ((2 * M, 2 * M, 0, 64 * K, 1, 1, -1), dict.fromkeys(ALL, "string")),
    # runs of 2 MiB at 64 MiB: streamed where a kernel streams, else the string copy (in L2)
    ((64 * M, 64 * M, 0, 2 * M, 0, 1, -1), dict(intel_vm="stream", amd_vm="stream",
                                                  hybrid_laptop="stream", server_64c="stream",
                                                  apple_m2="string", windows_arm64="string",
                                                  undetected="stream")),
    # TILE (64,1,1024) x (1,32,1) float32: 4 KiB rows from a 256 KiB input, 8 MiB, one thread
    ((8 * M, 256 * K, 0, 4 * K, 1, 1, -1), dict(intel_vm="rows_string", amd_vm="rows_string",
                                                  hybrid_laptop="rows_string",
                                                  server_64c="rows_string",
                                                  apple_m2="rows_aligned",
                                                  windows_arm64="rows_aligned",
                                                  undetected="rows_stream")),
    # the same at 32 MiB: beyond the cache but on the server's
    ((32 * M, 512 * K, 0, 4 * K, 1, 1, -1), dict(intel_vm="rows_stream", amd_vm="rows_stream",
                                                   hybrid_laptop="rows_stream",
                                                   server_64c="rows_string",
                                                   apple_m2="rows_aligned",
                                                   windows_arm64="rows_aligned",
                                                   undetected="rows_stream")),
    # a window SLICE's 1 KiB rows at 512 KiB: the aligned walk everywhere
    ((512 * K, 512 * K, 0, 1 * K, 1, 1, -1), dict.fromkeys(ALL, "rows_aligned")),
    # 4 KiB rows read and written, 8 MiB on two threads
    ((8 * M, 8 * M, 0, 4 * K, 1, 2, -1), dict(intel_vm="rows_stream", amd_vm="rows_stream",
                                                hybrid_laptop="rows_stream",
                                                server_64c="rows_stream",
                                                apple_m2="rows_aligned",
                                                windows_arm64="rows_string",
                                                undetected="rows_stream")),
    # ... 4 MiB on one thread
    ((4 * M, 4 * M, 0, 4 * K, 1, 1, -1), dict(intel_vm="rows_stream", amd_vm="rows_stream",
                                                hybrid_laptop="rows_string",
                                                server_64c="rows_string",
                                                apple_m2="rows_aligned",
                                                windows_arm64="rows_string",
                                                undetected="rows_stream")),
    # a caller that asks for the string copy (TILE's slabs) gets it for any long run
    ((64 * M, 64 * M, 0, 2 * M, 0, 1, 2), dict.fromkeys(ALL, "string")),
    # short runs not packed in the destination: the run kernel
    ((64 * M, 64 * M, 0, 256, 0, 1, -1), dict.fromkeys(ALL, "runs")),
]


@pytest.mark.parametrize("facts, expected", COPY)
def test_copy_store(facts, expected):
    got = answers("copy_store", lambda p: facts + kernels(p))
    assert {p: _core.COPY_STORES[v] for p, v in got.items()} == expected


GROUP = [
    # (written, long_blocks, threads): JOIN int8 at 16 MiB, long blocks, one thread
    ((16 * M, 1, 1), dict.fromkeys(ALL, 1)),
    # ... short blocks stream only from 64 MiB
    ((16 * M, 0, 1), dict.fromkeys(ALL, 0)),
    ((64 * M, 0, 1), dict.fromkeys(ALL, 1)),
    # SPLIT (4,256,1024) float32: 4 MiB, one thread and two
    ((4 * M, 1, 1), dict(intel_vm=1, amd_vm=1, hybrid_laptop=0, server_64c=0, apple_m2=1,
                         windows_arm64=1, undetected=1)),
    ((4 * M, 1, 2), dict.fromkeys(ALL, 0)),
]


@pytest.mark.parametrize("facts, expected", GROUP)
def test_group_streams(facts, expected):
    assert answers("group_streams", lambda p: facts) == expected


TILE = [
    # (written, run_bytes, packed_run, row_bytes, threads): TILE (1,c,32,32) x (8,1,4,4)
    # float32 at 8 MiB, one thread: slabs where the output fits the cache whole and the
    # string copy's kernels are there
    ((8 * M, 128, 1, 512, 1), dict(intel_vm="slabs", amd_vm="slabs", hybrid_laptop="blocks",
                                   server_64c="blocks", apple_m2="blocks_streamed",
                                   windows_arm64="blocks_streamed",
                                   undetected="blocks_streamed")),
    # ... two threads: never slabs
    ((8 * M, 128, 1, 512, 2), dict(intel_vm="blocks_streamed", amd_vm="blocks_streamed",
                                   hybrid_laptop="blocks", server_64c="blocks",
                                   apple_m2="blocks_streamed", windows_arm64="blocks_streamed",
                                   undetected="blocks_streamed")),
    # ... 32 MiB, one thread
    ((32 * M, 128, 1, 512, 1), dict(intel_vm="blocks_streamed", amd_vm="blocks_streamed",
                                    hybrid_laptop="blocks_streamed", server_64c="slabs",
                                    apple_m2="blocks_streamed", windows_arm64="blocks_streamed",
                                    undetected="blocks_streamed")),
    # input runs of 1 KiB and more: straight
    ((16 * M, 4 * K, 1, 4 * K, 1), dict.fromkeys(ALL, "straight")),
    # ... not packed: in blocks, streamed, or in slabs where the cache holds 16 MiB whole
    ((16 * M, 4 * K, 0, 4 * K, 1), dict(intel_vm="blocks_streamed", amd_vm="blocks_streamed",
                                        hybrid_laptop="slabs", server_64c="slabs",
                                        apple_m2="blocks_streamed",
                                        windows_arm64="blocks_streamed",
                                        undetected="blocks_streamed")),
]


@pytest.mark.parametrize("facts, expected", TILE)
def test_tile_way(facts, expected):
    got = answers("tile", lambda p: facts + kernels(p)[1:])
    assert {p: _core.TILE_WAYS[v] for p, v in got.items()} == expected


def per_profile(default, **by_profile):
    return {p: by_profile.get(p, default) for p in ALL}


# (bytes, threads in the pool) -> {profile: threads}: a 256 KiB chunk a thread at least, and never
# more threads than the logical CPUs the profile may use (2 on the VMs, 1 undetected)
@pytest.mark.parametrize("facts, expected", [
    ((8 * M, 2), per_profile(2, undetected=1)),
    ((300 * K, 2), per_profile(1)),
    ((8 * M, 128), per_profile(32, intel_vm=2, amd_vm=2, hybrid_laptop=12, apple_m2=8,
                               windows_arm64=12, undetected=1)),
    ((100 * M, 128), per_profile(128, intel_vm=2, amd_vm=2, hybrid_laptop=12, apple_m2=8,
                                 windows_arm64=12, undetected=1)),
    ((8 * M, 1), per_profile(1))])
def test_threads_a_call_gets(facts, expected):
    assert answers("threads", lambda p: facts) == expected


def test_call_threads_is_the_profiles_cpus():
    assert {p: tuning_of(p)["call_threads"] for p in ALL} == per_profile(
        (2, "detected"), hybrid_laptop=(12, "detected"), server_64c=(128, "detected"),
        apple_m2=(8, "detected"), windows_arm64=(12, "detected"), undetected=(1, "detected"))
    # lifted by hand, a call takes every thread of the pool again
    assert _core._decide(tuning_of("amd_vm", call_threads=64), "threads", 64 * M, 32) == 32


# (bytes, units, threads in the pool) -> {profile: chunks}: four a thread the call gets
@pytest.mark.parametrize("facts, expected", [
    ((8 * M, 1 << 40, 2), per_profile(8, undetected=1)),
    ((8 * M, 3, 2), per_profile(3, undetected=1)),
    ((300 * K, 100, 2), per_profile(1)),
    ((8 * M, 1 << 40, 1), per_profile(1)),
    ((1 << 30, 1 << 40, 128), per_profile(512, intel_vm=8, amd_vm=8, hybrid_laptop=48,
                                          apple_m2=32, windows_arm64=48, undetected=1))])
def test_chunks_a_call_is_cut_into(facts, expected):
    assert answers("chunks", lambda p: facts) == expected


def test_extreme_values_answer_within_bounds():
    t = tuning_of("amd_vm", parallel_chunk=0, chunks_per_thread=1 << 62)
    assert _core._decide(t, "threads", 8 * M, 2) == 2
    assert _core._decide(t, "chunks", 8 * M, 1 << 40, 2) == 2048
    assert _core._decide(tuning_of("amd_vm", scan_strip=0), "scan_strip", 4 * K, 32 * M, 2) == 2


@pytest.mark.parametrize("facts, expected", [
    # (row bytes, written, threads): float32 rows of 4096: whole strips
    ((16 * K, 8 * M, 2), 4096),
    # int8 rows of 4096 beyond L2: one strip for two threads, so half strips
    ((4 * K, 32 * M, 2), 2048),
    # ... within L2: whole strips
    ((4 * K, 256 * K, 2), 4096)])
def test_scan_strip(facts, expected):
    assert answers("scan_strip", lambda p: facts) == dict.fromkeys(ALL, expected)


def test_line_scans_stream_from_half_one_threads_threshold():
    assert answers("scan_streams", lambda p: (0, 2 * M, 2)) == dict(
        intel_vm=1, amd_vm=1, hybrid_laptop=0, server_64c=0, apple_m2=1, windows_arm64=1,
        undetected=1)
    # outer scans as copies: 4 MiB read and written on one thread
    assert answers("scan_streams", lambda p: (1, 4 * M, 1)) == dict(
        intel_vm=1, amd_vm=1, hybrid_laptop=0, server_64c=0, apple_m2=1, windows_arm64=1,
        undetected=1)


def test_unknown_question_and_name_are_refused():
    with pytest.raises(KeyError):
        _core._decide(tuning_of("amd_vm"), "nothing", 1)
    with pytest.raises(ValueError, match="unknown tuning value"):
        _core._derive(dict(zip(FIELDS, PROFILES["amd_vm"])), {"no_such_value": 1})
