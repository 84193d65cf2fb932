"""Instructions per move at a Wicked Forest table of five, counted by cachegrind: a figure
that does not move with the machine's load.

CPU time on this shared machine moves by a tenth and more from one run to the next, so a
change of a few per cent in what a move costs cannot be told from a run or three.
Valgrind's cachegrind counts every instruction the process runs: the same work gives the
same count within a few hundredths of a per cent. The table is `move_cpu.py`'s (phone 0
posts `set_draw_pile`, four streams take their views, phones 2 and 4 in a second app on the
same database, as in another worker process), with the production server's collector
settings (`serving.settle`: what exists frozen, full collections a tenth as often). Each
set of languages is run twice side by side, for 10 and for 110 moves; the difference over
100 moves is one move's instructions, without the start-up.

    .venv/bin/python bench/instructions.py [--languages en] [--against en de fr]

Needs valgrind (`apt-get install valgrind`). Some 40 s a set of languages on 2 cores.
Instructions are not time (a miss in the processor's caches costs more than an
instruction): `move_cpu.py` and `club.py` give the time; this tells a small change apart.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FEW, MANY = 10, 110


def moved(languages: list[str] | None, moves: int) -> None:
    """The table of `move_cpu.py`, moved `moves` times (run under cachegrind)."""
    import gc

    sys.path.insert(0, os.path.join(ROOT, "bench"))
    sys.path.insert(0, ROOT)
    import move_cpu

    move, close = move_cpu.table_moving(languages, processes=2)
    gc.collect()
    gc.freeze()  # as the production server does once its app is loaded (serving.settle)
    young, middle, _ = gc.get_threshold()
    from companion.serving import FULL_COLLECTION_EVERY
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
    for _ in range(moves):
        move()
    close()


def counted(languages: list[str]) -> int:
    """Instructions of one move with phones in `languages` (MANY moves less FEW, per move)."""
    runs = []
    for moves in (FEW, MANY):
        command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                   sys.executable, os.path.abspath(__file__), "--moved", str(moves), "--languages", *languages]
        runs.append(subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ, PYTHONHASHSEED="0"), start_new_session=True))
    totals = []
    for run in runs:
        _, errors = run.communicate(timeout=900)
        found = re.search(r"I\s+refs:\s+([\d,]+)", errors)
        if run.returncode or not found:
            raise SystemExit(f"cachegrind failed:\n{errors[-2000:]}")
        totals.append(int(found.group(1).replace(",", "")))
    return (totals[1] - totals[0]) // (MANY - FEW)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--languages", nargs="+", default=["en"], metavar="CODE")
    parser.add_argument("--against", nargs="+", default=None, metavar="CODE")
    parser.add_argument("--moved", type=int, help=argparse.SUPPRESS)  # (the run under cachegrind)
    args = parser.parse_args()
    if args.moved is not None:
        moved(None if args.languages == ["en"] else args.languages, args.moved)
        return
    print(f".venv/bin/python bench/{os.path.basename(__file__)} {' '.join(sys.argv[1:])}")
    first = counted(args.languages)
    print(f"{' '.join(args.languages)}: {first:,} instructions a move")
    if args.against:
        second = counted(args.against)
        print(f"{' '.join(args.against)}: {second:,} instructions a move: {100 * (second / first - 1):+.1f} %")


if __name__ == "__main__":
    main()
