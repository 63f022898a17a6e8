"""What each drop-in call did: the fast path, or NumPy itself and why (``stats()``)."""
import threading
from collections import Counter

_lock = threading.Lock()
_counts = {}   # function name -> Counter of "fast" and fallback reasons


def count(name, outcome):
    """Records one call of ``name``: outcome "fast" or the reason it went to NumPy."""
    with _lock:
        counter = _counts.get(name)
        if counter is None:
            counter = _counts[name] = Counter()
        counter[outcome] += 1


def stats():
    """Per function: {"fast": calls on dmlcpu's kernels, "numpy": calls NumPy answered,
    "reasons": {reason: calls}}, for every function called since import or the last reset."""
    with _lock:
        result = {}
        for name, counter in _counts.items():
            reasons = {k: v for k, v in counter.items() if k != "fast"}
            result[name] = {"fast": counter["fast"], "numpy": sum(reasons.values()),
                            "reasons": dict(sorted(reasons.items()))}
        return result


def reset_stats():
    """Forgets every count."""
    with _lock:
        _counts.clear()
