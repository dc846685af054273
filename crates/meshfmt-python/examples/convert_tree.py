"""Convert a whole asset library with Dask: every file meshfmt reads under a folder,
converted to one format, spread over the workers of a Dask cluster, one report per file
and one summary table.

    python convert_tree.py SRC_DIR OUT_DIR [--to glb] [--workers 4] [--scheduler ADDRESS]

Without --scheduler it starts a LocalCluster of worker processes on this machine; with
one, the same code runs on an existing cluster (every worker needs the meshfmt wheel and
to see SRC_DIR and OUT_DIR at the same paths). meshfmt releases the GIL while it reads
and converts, so threads help too, but processes keep one file's failure or memory to
itself. Each report is written as OUT_DIR/<relative path>.report.json; the table lists
per format what converted, what lost something, and what failed.
"""

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path


def sources(root):
    """Every file under `root` that meshfmt recognizes (detection only, no parse)."""
    import meshfmt

    exts = {e for f in meshfmt.formats() for e in f["extensions"]}
    return sorted(
        str(p) for p in Path(root).rglob("*") if p.is_file() and p.suffix.lstrip(".").lower() in exts
    )


def convert_one(src, root, out, to, max_memory):
    """Converts one file; never raises: the outcome is in the returned record."""
    import meshfmt

    rel = os.path.relpath(src, root)
    dst = os.path.join(out, rel) + "." + to
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    record = {"file": rel, "format": None, "output": dst, "losses": 0, "error": None}
    try:
        record["format"] = meshfmt.info(src, max_memory=max_memory)["format"]
        report = meshfmt.convert(src, dst, force=True, max_memory=max_memory)
        record["losses"] = len(report.losses)
        record["files"] = report.files
        with open(dst + ".report.json", "w") as f:
            json.dump(
                {
                    "input": src,
                    "files": report.files,
                    "losses": [vars(loss) for loss in report.losses],
                    "warnings": report.warnings,
                },
                f,
                indent=1,
            )
    except (ValueError, OSError) as e:  # FormatError and OverBudget are ValueErrors
        record["error"] = f"{type(e).__name__}: {e}"
    return record


def summary(records):
    """One row per format: files, converted, with losses, failed."""
    rows = Counter()
    for r in records:
        fmt = r["format"] or "(not read)"
        rows[(fmt, "files")] += 1
        if r["error"]:
            rows[(fmt, "failed")] += 1
        else:
            rows[(fmt, "converted")] += 1
            rows[(fmt, "with losses")] += r["losses"] > 0
    formats = sorted({f for f, _ in rows})
    lines = [f"{'format':<16} {'files':>6} {'converted':>10} {'with losses':>12} {'failed':>7}"]
    for f in formats:
        lines.append(
            f"{f:<16} {rows[(f, 'files')]:>6} {rows[(f, 'converted')]:>10} "
            f"{rows[(f, 'with losses')]:>12} {rows[(f, 'failed')]:>7}"
        )
    return "\n".join(lines)


def run(root, out, to="glb", workers=2, scheduler=None, max_memory="1G"):
    """Converts every file under `root` into `out` on a Dask cluster; returns the
    per-file records (sorted by file) and the summary table."""
    import dask.bag as db
    from dask.distributed import Client, LocalCluster

    files = sources(root)
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        bag = db.from_sequence(files, npartitions=max(1, min(len(files), workers * 4)))
        records = bag.map(convert_one, root, out, to, max_memory).compute()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    records.sort(key=lambda r: r["file"])
    return records, summary(records)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("src")
    p.add_argument("out")
    p.add_argument("--to", default="glb")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    p.add_argument("--scheduler")
    p.add_argument("--max-memory", default="1G")
    a = p.parse_args(argv)
    records, table = run(a.src, a.out, a.to, a.workers, a.scheduler, a.max_memory)
    print(table)
    for r in records:
        if r["error"]:
            print(f"{r['file']}: {r['error']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
