"""The garbage collector's CPU in each server worker: a gunicorn config, and its report.

As a config (`club.py --config bench/gc_counted.py`) it is the project's own
`gunicorn.conf.py` with one addition: each worker times every collection of the cycle
collector (`gc.callbacks`, CPU time of the process) and, every two seconds, writes the counts
and seconds per generation so far to a file of its own in `$FOREST_TABLE_GC_DIR` (default
/tmp/forest-gc), named by the server's address and the worker's pid. The report sums the
last line of each file by address:

    rm -rf /tmp/forest-gc
    .venv/bin/python bench/club.py --tables 500 --port 8351 --languages en --against en de fr \
        --pairs 4 --slice-seconds 15 --config bench/gc_counted.py
    .venv/bin/python bench/gc_counted.py /tmp/forest-gc

Each line: the collections of each generation, their CPU seconds, the objects they freed,
and the workers' CPU seconds in all (the whole run: set-up and uncounted slices too), so the
collector's share of a server's CPU can be read against the club's CPU per action.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

GC_DIR = os.environ.get("FOREST_TABLE_GC_DIR", "/tmp/forest-gc")

if __name__ != "__main__":  # read by gunicorn as its config
    exec((Path(__file__).resolve().parent.parent / "gunicorn.conf.py").read_text())

    def post_worker_init(worker):
        import gc
        import time

        import gevent

        stats = {generation: [0, 0.0, 0] for generation in range(3)}  # collections, CPU s, freed
        began = [0.0]

        def timed(phase, info):
            if phase == "start":
                began[0] = time.process_time()
                return
            found = stats[info["generation"]]
            found[0] += 1
            found[1] += time.process_time() - began[0]
            found[2] += info.get("collected", 0)

        gc.callbacks.append(timed)
        os.makedirs(GC_DIR, exist_ok=True)
        path = os.path.join(GC_DIR, f"{str(worker.cfg.bind[0]).replace(':', '_')}-{os.getpid()}")

        def write():
            while True:
                gevent.sleep(2)
                with open(path, "w") as handle:
                    handle.write(f"{time.process_time():.3f} {stats!r}\n")

        gevent.spawn(write)


def report(folder: str) -> int:
    by_server: dict = {}
    for path in sorted(Path(folder).glob("*-*")):
        address = path.name.rsplit("-", 1)[0]
        line = path.read_text().strip()
        if not line:
            continue
        cpu, _, stats = line.partition(" ")
        stats = ast.literal_eval(stats)
        total = by_server.setdefault(address, {"cpu": 0.0, "workers": 0,
                                               "stats": {g: [0, 0.0, 0] for g in range(3)}})
        total["cpu"] += float(cpu)
        total["workers"] += 1
        for generation, (count, seconds, freed) in stats.items():
            kept = total["stats"][generation]
            kept[0] += count
            kept[1] += seconds
            kept[2] += freed
    if not by_server:
        print(f"no worker wrote to {folder}", file=sys.stderr)
        return 1
    for address, total in by_server.items():
        collected = sum(seconds for _, seconds, _ in total["stats"].values())
        cells = ", ".join(f"generation {g}: {count} in {seconds:.2f} s, {freed} freed"
                          for g, (count, seconds, freed) in total["stats"].items())
        print(f"{address} ({total['workers']} workers, {total['cpu']:.1f} s of CPU): collector {collected:.2f} s "
              f"({collected / max(total['cpu'], 1e-9) * 100:.1f} %); {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(report(sys.argv[1] if len(sys.argv) > 1 else GC_DIR))
