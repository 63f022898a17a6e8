"""The benchmark's results as text lines, a Markdown section (summary, misses, full table) and one
PNG per operator family. Everything here reads the JSON rows, so a saved run renders again
without being re-run."""
import os
import re

from ._peers import PEER_LABELS
from ._cases import SIZES
from ._run import SLOW_FACTOR, SLOW_SECONDS

RIVALS = ("numpy", "torch", "ort")
COLORS = {"dmlcpu": "C0", "memcpy": "C7", "numpy": "C2", "torch": "C3", "ort": "C4"}
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def gbs(row, peer):
    return row["bytes"] / row["seconds"][peer] / 1e9


def relative(row, peer):
    """The peer's time / dmlcpu's: paired round by round where the run recorded it (see
    _timing.paired), else the ratio of the medians (runs saved before pairing)."""
    if "paired" in row:
        return row["paired"][peer]
    return row["seconds"][peer] / row["seconds"]["dmlcpu"]


def best_rival(row):
    """(peer, time / dmlcpu's) of the fastest peer other than dmlcpu and memcpy, or None."""
    found = [(relative(row, p), p) for p in RIVALS if p in row["seconds"]]
    return (min(found)[1], min(found)[0]) if found else None


def ratio(row):
    """Best rival's time / dmlcpu's time: above 1, dmlcpu is faster."""
    best = best_rival(row)
    return best[1] if best else None


def text_line(rows):
    """One line for one case at one thread count: each protocol's GB/s and ratio."""
    cells = ["  %d thr" % rows[0]["threads"]]
    for row in rows:
        best = best_rival(row)
        cell = "%s %6.1f GB/s" % (row["protocol"], gbs(row, "dmlcpu"))
        if best:
            cell += " x%.2f vs %-12s" % (ratio(row), PEER_LABELS[best[0]])
        if "memcpy" in row["seconds"]:
            cell += " x%.2f memcpy" % relative(row, "memcpy")
        cells.append(cell)
    return " | ".join(cells)


def _columns(rows):
    return sorted({(r["protocol"], r["threads"]) for r in rows}, key=lambda c: (c[0], c[1]))


def _column_title(column):
    return "%s, %d thr" % column


def summary_table(rows):
    """Rows: family and type; columns: protocol x threads; cell: the lowest ratio to the best
    peer over the sizes (bold, with the peer and size, where below 1)."""
    columns = _columns(rows)
    lines = ["| workload | type | " + " | ".join(_column_title(c) for c in columns) + " |",
             "|---|---|" + "---|" * len(columns)]
    keys = []
    for r in rows:
        if (r["family"], r["dtype"]) not in keys:
            keys.append((r["family"], r["dtype"]))
    for family, dtype in keys:
        cells = []
        for protocol, threads in columns:
            found = [r for r in rows if (r["family"], r["dtype"], r["protocol"], r["threads"])
                     == (family, dtype, protocol, threads) and ratio(r) is not None]
            if not found:
                cells.append("—")
                continue
            worst = min(found, key=ratio)
            if ratio(worst) >= 1:
                cells.append("%.2f" % ratio(worst))
            else:
                cells.append("**%.2f** (%s, %s)" % (ratio(worst), PEER_LABELS[best_rival(worst)[0]],
                                                    worst["size"]))
        lines.append("| %s | %s | %s |" % (family, dtype, " | ".join(cells)))
    return lines


def misses(rows):
    return [r for r in rows if ratio(r) is not None and ratio(r) < 1]


def full_table(rows):
    peers = [p for p in ("dmlcpu", "memcpy") + RIVALS if any(p in r["seconds"] for r in rows)]
    lines = ["| workload | size | thr | protocol | " +
             " | ".join(PEER_LABELS[p] + " GB/s" for p in peers) + " | best peer / dmlcpu |",
             "|---|---|---|---|" + "---|" * (len(peers) + 1)]
    for r in rows:
        cells = ["%.1f%s" % (gbs(r, p), "*" if p in r.get("one_call", ()) else "")
                 if p in r["seconds"] else "—" for p in peers]
        value = ratio(r)
        lines.append("| %s | %s | %d | %s | %s | %s |" % (
            r["name"], r["size"], r["threads"], r["protocol"], " | ".join(cells),
            "—" if value is None else ("%.2f" % value if value >= 1 else "**%.2f**" % value)))
    return lines


def machine_text(data):
    m = data["machine"]
    versions = ", ".join("%s %s" % (label, m[key]) for key, label in (
        ("python", "Python"), ("numpy", "NumPy"), ("torch", "PyTorch"),
        ("onnxruntime", "ONNX Runtime"), ("dmlcpu", "dmlcpu")) if key in m)
    text = "%s, %s cores (caches %s), active ISA %s; %s" % (
        m["cpu"], m["cores"], " ".join(m["caches"]) or "unknown", m["active_isa"], versions)
    if "stream_threshold" in m:
        text += "; streaming stores from %d KiB" % (m["stream_threshold"] // 1024)
    if "load_average" in m:
        text += "; load average %.1f when it started" % m["load_average"]
    return text


def cold_order(note):
    """How the cold rounds were ordered, from the run's own protocol note (older runs' JSON
    carries older notes)."""
    if "Latin square" not in note:
        return "A B C, B C A, C A B"
    text = "in the orders of a balanced Latin square (each library right after every other " \
           "equally often)"
    if "relabeled" in note:
        text += ", the libraries relabeled at random every few cycles (none keeps the same " \
                "neighbours)"
    return text


def markdown(data, plot_dir=None, full_table_path=None, link_from="."):
    """The Markdown section of a run; its links to the full table and the plots are relative to
    the folder ``link_from`` (the page the section goes into)."""
    def link(path):
        return os.path.relpath(path, link_from).replace(os.sep, "/")

    rows = [r for r in data["rows"] if "dmlcpu" in r["seconds"]]
    out = [BEGIN,
           "Measured by `%s` on %s." % (data.get("command", "python -m dmlcpu bench"),
                                       machine_text(data)),
           "",
           "Every peer runs at the thread count of its column (dmlcpu `set_num_threads`, PyTorch "
           "`torch.set_num_threads`, its OpenMP workers %s, ONNX Runtime "
           "`intra_op_num_threads` with spinning off, through I/O binding), so that no library's "
           "idle workers keep running into the next one's measurement; NumPy is single-threaded "
           "and is compared at 1 thread only. "
           "*cold*: rounds interleaved %s, one call each, %s, so each call "
           "finds the caches holding the others' data; *warm*: calls of one "
           "library back to back. A ratio is a peer's time divided by dmlcpu's in the same round, "
           "the median over the rounds (paired, so that a burst of load from other tenants "
           "counts against both); the best peer is the one with the lowest. Each cell is the "
           "lowest, over the sizes %s (largest tensor of the call), of the best peer's ratio: "
           "above 1, dmlcpu is faster; a miss is bold, with the peer that wins and the size. "
           "GB/s figures are each library's median time." % (
               "under `OMP_WAIT_POLICY=%s`" % data["machine"]["omp_wait_policy"]
               if data["machine"].get("omp_wait_policy") else "spinning as OpenMP's default",
               cold_order(data.get("protocols", {}).get("cold", "")),
               "every peer taking the same buffer sets in turn (one more set than peers)"
               if "buffers" in data.get("protocols", {}) else "every peer on its own buffers",
               ", ".join(s for s in SIZES if any(r["size"] == s for r in rows))),
           ""] + summary_table(rows) + [""]
    missed = misses(rows)
    if missed:
        out.append("Misses: %d of %d measurements are below 1 (a bold cell shows the worst of "
                   "its row; every one is in the full table)."
                   % (len(missed), len(rows)))
    else:
        out.append("No misses: dmlcpu is at least as fast as every peer in every measurement.")
    if full_table_path:
        out += ["", "Every number: [`%s`](%s) (a `*` marks a peer timed by its first call "
                "alone: it took over %.2f s and %dx dmlcpu's)." % (
                    full_table_path, link(full_table_path), SLOW_SECONDS, SLOW_FACTOR)]
    if plot_dir:
        out.append("")
        for family in _families(rows):
            out.append("![%s](%s)" % (family, link(os.path.join(plot_dir, slug(family) + ".png"))))
    out.append(END)
    return "\n".join(out) + "\n"


def replace_section(path, section):
    """Replaces the text between the bench markers in `path` (docs/performance.md) by
    `section`."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    pattern = re.escape(BEGIN) + ".*?" + re.escape(END) + "\n?"
    new, count = re.subn(pattern, lambda _: section, text, count=1, flags=re.S)
    if count != 1:
        raise ValueError("%s has no %s ... %s section" % (path, BEGIN, END))
    with open(path, "w", encoding="utf-8") as f:
        f.write(new)


def has_section(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return BEGIN in text and END in text


def _families(rows):
    seen = []
    for r in rows:
        if r["family"] not in seen:
            seen.append(r["family"])
    return seen


def slug(family):
    return re.sub(r"[^a-z0-9]+", "_", family.lower()).strip("_")


def plot(rows, directory):
    """One PNG per family: GB/s against size, a panel per type and (protocol, threads), a line per
    peer. Returns the paths written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(directory, exist_ok=True)
    paths = []
    for family in _families(rows):
        mine = [r for r in rows if r["family"] == family]
        dtypes = sorted({(r["width"], r["dtype"]) for r in mine})
        columns = _columns(mine)
        fig, axes = plt.subplots(len(dtypes), len(columns), squeeze=False, sharex=True,
                                 figsize=(3.2 * len(columns), 2.4 * len(dtypes) + 0.8))
        for i, (_, dtype) in enumerate(dtypes):
            for j, column in enumerate(columns):
                ax = axes[i][j]
                panel = [r for r in mine if r["dtype"] == dtype
                         and (r["protocol"], r["threads"]) == column]
                panel.sort(key=lambda r: SIZES[r["size"]])
                for peer in ("dmlcpu", "memcpy") + RIVALS:
                    points = [(SIZES[r["size"]], gbs(r, peer)) for r in panel
                              if peer in r["seconds"]]
                    if points:
                        ax.plot(*zip(*points), marker="o", label=PEER_LABELS[peer],
                                color=COLORS[peer],
                                linewidth=2.2 if peer == "dmlcpu" else 1.2,
                                linestyle=":" if peer == "memcpy" else "-")
                ax.set_xscale("log", base=2)
                ax.set_title("%s, %s" % (dtype, _column_title(column)), fontsize=8)
                ax.tick_params(labelsize=7)
                ax.set_xticks([SIZES[s] for s in SIZES], list(SIZES))
                if j == 0:
                    ax.set_ylabel("GB/s", fontsize=8)
        handles, labels = axes[0][0].get_legend_handles_labels()
        fig.suptitle(family + " (GB/s against the size of the largest tensor)", fontsize=10)
        fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8)
        fig.tight_layout(rect=(0, 0.04, 1, 1))
        path = os.path.join(directory, slug(family) + ".png")
        fig.savefig(path, dpi=80)
        plt.close(fig)
        paths.append(path)
    return paths
