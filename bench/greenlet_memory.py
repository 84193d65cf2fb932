"""What a waiting stream costs before the app adds anything: resident memory per greenlet
of this machine's gevent and Python, parked the way a stream waits for its table.

Each greenlet waits inside `--depth` nested generators (a stream waits inside every
generator that wraps it between the server and the table's channel), on one of:
`event` (what a table's channel uses, `companion.live.Channel`), `condition` (a
threading.Condition, as the channel did before), or `bare` (a greenlet switched out with
nothing to wait on). No server, no socket: the floor under `club.py`'s memory per stream.

    .venv/bin/python bench/greenlet_memory.py [--greenlets 5000] [--depth 0 2 4] [--wait event condition bare]
"""

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

import gevent  # noqa: E402


def resident_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def one(greenlets: int, depth: int, wait: str) -> float:
    changed, condition = threading.Event(), threading.Condition()

    def park():
        if wait == "event":
            changed.wait(3600)
        elif wait == "condition":
            with condition:
                condition.wait(3600)
        else:
            gevent.get_hub().switch()

    def nested(level):
        if level == 0:
            park()
            yield None
        else:
            for item in nested(level - 1):  # as a wrapper iterates what it wraps
                yield item

    def stream():
        for _ in nested(depth):
            pass

    gevent.sleep(0)
    before = resident_kib()
    parked = [gevent.spawn(stream) for _ in range(greenlets)]
    gevent.sleep(0.5)
    per = (resident_kib() - before) / greenlets
    gevent.killall(parked)
    return per


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--greenlets", type=int, default=5000)
    parser.add_argument("--depth", type=int, nargs="+", default=[0, 2, 4])
    parser.add_argument("--wait", nargs="+", default=["event", "condition", "bare"],
                        choices=["event", "condition", "bare"])
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # a single measurement, in a fresh process
    args = parser.parse_args()
    if args.one:
        depth, wait = int(args.one[0]), args.one[1]
        print(f"{one(args.greenlets, depth, wait):.2f}")
        return 0
    print(f"{args.greenlets} greenlets, each in a fresh process; KiB of resident memory per greenlet")
    print("depth  " + "".join(f"{wait:>11}" for wait in args.wait))
    for depth in args.depth:
        row = []
        for wait in args.wait:
            done = subprocess.run([sys.executable, __file__, "--greenlets", str(args.greenlets),
                                   "--one", str(depth), wait], capture_output=True, text=True, check=True)
            row.append(float(done.stdout.strip()))
        print(f"{depth:5d}  " + "".join(f"{kib:11.2f}" for kib in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
