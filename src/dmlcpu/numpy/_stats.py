"""What each drop-in call did: the fast path, or NumPy itself and why (``stats()``).

Each (function, outcome) pair has its own itertools.count: ``next()`` on it is one atomic step
under the GIL, so counting costs a tiny call almost nothing and loses no call to a race.
"""
import itertools
import threading

_lock = threading.Lock()
_counters = {}   # (function name, "fast" or a fallback reason) -> itertools.count
_base = {}       # id(counter) -> its value at the last reset_stats()


def counter(name, outcome):
    """The counter of one (function, outcome) pair, for a hot path to step with ``next()``."""
    key = (name, outcome)
    found = _counters.get(key)
    if found is None:
        with _lock:
            found = _counters.setdefault(key, itertools.count())
    return found


def count(name, outcome):
    """Records one call of ``name``: outcome "fast" or the reason it went to NumPy."""
    next(_counters.get((name, outcome)) or counter(name, outcome))


def _value(steps):
    return int(repr(steps)[6:-1]) - _base.get(id(steps), 0)   # repr "count(n)": n steps


def stats():
    """Per function: {"fast": calls on dmlcpu's kernels, "numpy": calls NumPy answered,
    "reasons": {reason: calls}}, for every function called since import or the last reset."""
    with _lock:
        items = [(key, _value(c)) for key, c in _counters.items()]
    result = {}
    for (name, outcome), n in sorted(items):
        if not n:
            continue
        entry = result.setdefault(name, {"fast": 0, "numpy": 0, "reasons": {}})
        if outcome == "fast":
            entry["fast"] += n
        else:
            entry["numpy"] += n
            entry["reasons"][outcome] = n
    return result


def reset_stats():
    """Forgets every count."""
    with _lock:   # counters held by hot paths stay: their current values become the zero
        for steps in _counters.values():
            _base[id(steps)] = int(repr(steps)[6:-1])
