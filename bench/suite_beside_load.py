"""The test suite beside N busy processes of another session (a compile in a terminal, `stress --cpu N`): which
tests hold their timed waits when the machine is not the suite's alone, and how much longer the suite takes.

    python bench/suite_beside_load.py [--load 4] [--nice 0] -- tests/end2end [pytest arguments]

The busy processes run in one session of their own, as a terminal's would (Linux shares the CPU between sessions
first, autogroup); the table lists the outcome counts, the wall time, the slowest tests and each failure's first
line.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

BUSY = "while True: pass"


def _busy(load: int, nice: int) -> subprocess.Popen[bytes]:
    """`load` busy processes in one session of their own (its leader waits for them)."""
    busy = f"import os\nos.nice({nice})\n{BUSY}"
    loops = " ".join(f"{shlex.quote(sys.executable)} -c {shlex.quote(busy)} &" for _ in range(load))
    return subprocess.Popen(["sh", "-c", f"{loops} wait"], start_new_session=True)


def _cases(report: Path) -> list[tuple[str, float, str]]:
    """(test, seconds, outcome: passed / failed: first line / skipped) for each test case of a JUnit report."""
    cases = []
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome = "passed"
        for kind in ("failure", "error", "skipped"):
            found = case.find(kind)
            if found is not None:
                first = (found.get("message") or "").strip().splitlines()
                outcome = kind if kind == "skipped" else f"{kind}: {first[0][:160] if first else ''}"
        cases.append((name, float(case.get("time", 0.0)), outcome))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--load", type=int, default=4, help="busy processes beside the suite")
    parser.add_argument("--nice", type=int, default=0, help="their nice")
    parser.add_argument("pytest", nargs=argparse.REMAINDER, help="-- then pytest's arguments")
    arguments = parser.parse_args()
    pytest_arguments = [a for a in arguments.pytest if a != "--"] or ["tests/end2end"]
    report = Path(tempfile.mkdtemp(prefix="suite-load-")) / "report.xml"
    busy = _busy(arguments.load, arguments.nice)
    started = time.monotonic()
    try:
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                        *pytest_arguments], check=False)
    finally:
        os.killpg(busy.pid, signal.SIGKILL)
        busy.wait()
    took = time.monotonic() - started
    if not report.exists():
        sys.exit("pytest wrote no report (see its words above)")
    cases = _cases(report)
    failed = [c for c in cases if c[2].startswith(("failure", "error"))]
    print("\n| busy processes | their nice | tests | passed | failed | skipped | wall time |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {arguments.load} | {arguments.nice} | {len(cases)} | "
          f"{sum(1 for c in cases if c[2] == 'passed')} | {len(failed)} | "
          f"{sum(1 for c in cases if c[2] == 'skipped')} | {took / 60:.1f} min |")
    print("\n| slowest tests | s |\n|---|---|")
    for name, seconds, _ in sorted(cases, key=lambda c: -c[1])[:10]:
        print(f"| {name} | {seconds:.0f} |")
    if failed:
        print("\n| failed | s | first line |\n|---|---|---|")
        for name, seconds, outcome in failed:
            print(f"| {name} | {seconds:.0f} | {outcome.replace('|', '/')} |")
    print(f"\n(report: {report})")


if __name__ == "__main__":
    main()
