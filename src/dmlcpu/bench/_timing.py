"""Timing for the benchmark: two protocols over a list of callables.

*cold*: rounds interleaved, one call per sample, so each call finds the caches holding the data the
other callables just touched (on other buffers than its own). A call's time depends on what ran
just before it (in one process here the first call after another's large output measured up to 20%
slower than the later ones; a predecessor's output still dirty in the cache is written back while
the next call runs), so the rounds follow a balanced Latin square (Williams): over a cycle of n
rounds (2n for an odd n) every callable runs in every position and right after every other one
equally often. (Turning one order each round, A B C, B C A, C A B, changed only the call at each
round's start: every other call followed the same callable every time, dmlcpu the peer before it in
the list and NumPy the memcpy reference.) In a Williams square the callable two calls back is
always a neighbour in the list (c - 1 or c + 1), and that mattered too: two identical callables
listed first and second, before the memcpy reference and the peers, differed by 1.0-3.7% cold (the
second slower) in all of eight cells (512 KiB TILE and JOIN, two runs). So the square runs under a
fresh random relabeling of the callables every n + 1 cycles (seeded: every run the same sequence),
which keeps each cycle balanced and spreads the longer lags: the same pair then read 0.988-1.004
(mean 0.996). *warm*: in each round every callable runs a batch of calls back to back after one
untimed call, so its data is cached as far as it fits. Both report the median over rounds;
interleaving the rounds makes a burst of load from other processes hit every callable alike, so
their ratios stay meaningful on a shared machine. `paired` compares two callables round by round
(the median of their per-round ratios), so a burst of load within a round counts against both.
`placed` puts every callable's buffers at the same places.

A callable may be given as a list of alternatives, the same call on different buffer sets: the
protocol's c-th call (warm: batch), counting every callable's, takes alternative c % len. With n
callables and len = n + 1 sets, every call finds its set last touched n + 1 calls before, whoever
runs it, and over n + 1 cycles of the rounds' orders every callable times every set equally
often. (Turning each callable's own set instead, callable 0's set was always touched longest
ago: it ran 2-7% slower cold than identical callables.) Where an 8 MiB buffer's four huge pages
land in physical memory moved the same call by up to 25% from one buffer set to the next, so
each callable owning one set drew its luck once per process; rotating through shared sets gives
every callable the same draw.
"""
import itertools
import random
import time

WARM_BATCH_SECONDS = 2e-3


def _median(samples):
    ordered = sorted(samples)
    return ordered[len(ordered) // 2]


def spread(samples):
    """max/min of the middle half of the samples: how noisy a median is."""
    ordered = sorted(samples)
    quarter = len(ordered) // 4
    middle = ordered[quarter:len(ordered) - quarter] or ordered
    return middle[-1] / middle[0]


def paired(samples, i, j=0):
    """The median over rounds of samples[i][r] / samples[j][r]: callable i's time relative to
    callable j's, each round's load affecting both."""
    return _median([a / b for a, b in zip(samples[i], samples[j])])


def balanced_orders(count):
    """The rounds' orders of callables 0..count-1, a cycle of them: a Williams square (the first
    order 0, 1, n-1, 2, n-2, ..., each next one adding 1 mod n; for an odd n, then each reversed),
    in which each callable takes every position and immediately follows every other one equally
    often."""
    first, low, high = [0], 1, count - 1
    while len(first) < count:
        if len(first) % 2:
            first.append(low)
            low += 1
        else:
            first.append(high)
            high -= 1
    orders = [[(i + r) % count for i in first] for r in range(count)]
    return orders + [order[::-1] for order in orders] if count % 2 and count > 1 else orders


def round_orders(count, seed=0):
    """The rounds' orders, endlessly: cycles of balanced_orders(count), every count + 1 cycles
    under a fresh random relabeling of the callables (a permutation: each cycle stays balanced;
    count + 1 cycles are the buffer sets' period, _rotation, so each labeling still has every
    callable time every set equally often)."""
    rng = random.Random(seed)
    square = balanced_orders(count)
    while True:
        labels = list(range(count))
        rng.shuffle(labels)
        for _ in range(count + 1):
            for order in square:
                yield [labels[i] for i in order]


def _alternatives(fns):
    return [list(fn) if isinstance(fn, (list, tuple)) else [fn] for fn in fns]


def _rotation(alternatives):
    """next_call(i): callable i's alternative for the protocol's c-th call, c % len."""
    calls = itertools.count()
    return lambda i: alternatives[i][next(calls) % len(alternatives[i])]


def _rounds(step, budget, min_rounds, max_rounds):
    deadline = time.perf_counter() + budget
    rounds = 0
    while rounds < max_rounds and (rounds < min_rounds or time.perf_counter() < deadline):
        step(rounds)
        rounds += 1


def cold(fns, budget, min_rounds=5, max_rounds=400):
    """(median seconds of one call of each function, each function's samples), interleaved."""
    alternatives = _alternatives(fns)
    for fn in (fn for alts in alternatives for fn in alts):
        fn()  # first-touch page faults, lazy imports, thread pool start
    samples = [[] for _ in fns]
    next_call = _rotation(alternatives)
    orders = round_orders(len(fns))

    def step(round_):
        for i in next(orders):
            fn = next_call(i)
            t0 = time.perf_counter()
            fn()
            samples[i].append(time.perf_counter() - t0)
    _rounds(step, budget, min_rounds, max_rounds)
    return [_median(s) for s in samples], samples


def warm(fns, budget, min_rounds=5, max_rounds=400):
    """(median seconds per call of each function run back to back, each function's samples)."""
    alternatives = _alternatives(fns)
    once = []
    for alts in alternatives:
        for fn in alts:
            fn()
        t0 = time.perf_counter()
        alts[0]()
        once.append(max(time.perf_counter() - t0, 1e-7))
    # every callable the same batch (the fastest one's): batches sized each by its own first
    # timing, one callable of four identical ones ran 8% faster than the others
    batch = max(1, min(1000, int(WARM_BATCH_SECONDS / min(once))))
    samples = [[] for _ in fns]
    next_call = _rotation(alternatives)
    orders = round_orders(len(fns))

    def step(round_):
        for i in next(orders):
            fn = next_call(i)
            fn()  # untimed: brings this callable's data back into the caches
            t0 = time.perf_counter()
            for _ in range(batch):
                fn()
            samples[i].append((time.perf_counter() - t0) / batch)
    _rounds(step, budget, min_rounds, max_rounds)
    return [_median(s) for s in samples], samples


PROTOCOLS = {"cold": cold, "warm": warm}


def measure(fns, budget, min_rounds=5, max_rounds=200):
    """The kernel scripts' measure (benchmarks/bench_kernels.py): warm medians and the spread of
    the first function."""
    medians, samples = warm(fns, budget, min_rounds, max_rounds)
    return medians, spread(samples[0])


HUGE_PAGE = 2 << 20
PAGE = 4096
PLACED_FROM = 128 << 10


def placed(shape, dtype, slot=0):
    """An empty array as NumPy's allocator would give it from 128 KiB (glibc's mmap threshold: 16
    bytes into a 4 KiB page), with huge pages backing all of it, at a place fixed by `slot` (which
    of a peer's buffers it is): 16 bytes into page 67 * slot of a 2 MiB huge page. Where a buffer
    lands decides how much of it huge pages back (NumPy asks for them from 4 MiB: of an 8 MiB
    buffer, 3 of 4 or fewer), which L2 sets its lines share with the others' and whether its
    pages alias theirs; one library's buffers landing well and another's badly moved a cell by
    10-25% between processes, at 512 KiB as at 8 MiB. So every peer's i-th buffer sits at the
    same place. (All of them on the boundary, the buffers of a JOIN shared their L2 sets: dmlcpu's
    one pass through four inputs and an output ran at half speed there, which real buffers do
    not see.)"""
    import numpy as np
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if nbytes < PLACED_FROM:
        return np.empty(shape, dtype)
    # up to 2 MiB to the boundary, up to 2 MiB more to the slot's page, the last huge page whole
    raw = np.empty(nbytes + 3 * HUGE_PAGE, np.uint8)
    skip = -raw.ctypes.data % HUGE_PAGE + (67 * slot % (HUGE_PAGE // PAGE)) * PAGE + 16
    return raw[skip:skip + nbytes].view(dtype).reshape(shape)


def placed_copy(array, slot=0):
    out = placed(array.shape, array.dtype, slot)
    out[...] = array
    return out


def memcpy_of(nbytes):
    """A memcpy of nbytes between two preallocated buffers (np.copyto), the reference speed."""
    import numpy as np
    a = placed(nbytes, np.uint8, 0)
    a.fill(1)
    b = placed(nbytes, np.uint8, 1)
    return lambda: np.copyto(b, a)
