"""Boards per minute between two of our pairs over the table protocol on loopback (issue #53), against
`evaluate game` on the same boards in the same run (the anchor: the same agents, no sockets).

The session is what a user runs: ``bridgerl table serve --rooms 2`` and eight ``bridgerl table join`` processes
(each loads its agents once), on 127.0.0.1. Boards per minute count from the first ``Start of board`` to the last
board's end in the manager's log (the processes' start-up is not counted; it is printed apart); a board is one deal
played in both rooms, as `evaluate game` plays it at both tables.

    python benchmarks/table_speed.py --deals 20
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--ns", default="bid=rules,play=models/card-player")
    parser.add_argument("--ew", default="bid=sayc,play=models/card-player")
    parser.add_argument("--port", type=int, default=0, help="room 1's North port (default: a random free-ish one)")
    args = parser.parse_args()
    port = args.port or random.randint(20000, 60000)
    cli = [sys.executable, "-m", "bridgerl.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        began = time.perf_counter()
        server = subprocess.Popen([*cli, "table", "serve", "--port", str(port), "--data", "test", "--deals",
                                   str(args.deals), "--rooms", "2", "--out", str(tmp / "boards.pbn"), "--json",
                                   str(tmp / "table.json"), "--log", str(tmp / "table.log")], cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        clients = []
        for room in range(2):
            for seat, name in enumerate(("north", "east", "south", "west")):
                spec = (args.ns, args.ew)[(seat % 2 + room) % 2]
                clients.append(subprocess.Popen([*cli, "table", "join", "--port", str(port + 4 * room + seat),
                                                 "--seat", name, "--agent", spec, "--room", str(room + 1),
                                                 "--team", "AB"[(seat % 2 + room) % 2]], cwd=ROOT,
                                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        out, _ = server.communicate(timeout=3600)
        for client in clients:
            client.wait(timeout=60)
        total = time.perf_counter() - began
        if server.returncode != 0:
            sys.exit(f"the table manager failed:\n{out}")
        log = (tmp / "table.log").read_text().splitlines()
        stamps = [datetime.strptime(line[:8], "%H:%M:%S") for line in log
                  if "<- Start of board" in line or "<- Timing - " in line]
        playing = max((stamps[-1] - stamps[0]).total_seconds(), 1.0)
        table = json.loads((tmp / "table.json").read_text())
        anchor_began = time.perf_counter()
        subprocess.run([*cli, "evaluate", "game", "--ns", args.ns, "--ew", args.ew, "--data", "test", "--deals",
                        str(args.deals), "--json", str(tmp / "game.json"), "--quiet"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
        anchor = time.perf_counter() - anchor_began
        game = json.loads((tmp / "game.json").read_text())
    same = table["summary"]["imps_per_board"] == game["imps_per_board"]
    print(f"table protocol, 2 rooms, {args.deals} boards ({args.ns} vs {args.ew}): "
          f"{60 * args.deals / playing:.1f} boards/minute from the first board to the last "
          f"({playing:.0f} s; {total:.0f} s with the nine processes' start-up)")
    print(f"anchor, evaluate game on the same boards (one process, start-up included): {anchor:.0f} s, "
          f"{60 * args.deals / anchor:.1f} boards/minute; table / anchor time {playing / anchor:.2f}x; "
          f"same IMPs/board: {same} ({table['summary']['imps_per_board']:+.2f})")


if __name__ == "__main__":
    main()
