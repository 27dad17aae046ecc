"""A mailbox at the size people keep one (issue 38): a generated mbox read by the indexer as the app reads it
(the reader, the models and Chroma in child processes), then messages appended to it and applied as the watcher
applies a change. Prints a table: the time to read every message (keyword-searchable; embedding, which takes
~1 hour per 100k chunks on 2 cores whatever the file, is left out: the run is stopped when it begins), the peak
memory of each process while reading, and for the append the time and the messages parsed.

    .venv/bin/python bench/mailboxes.py [--mb 2048] [--messages 100000] [--append 100] [--keep DIR]

Messages carry 0.5-4 KB of text; every fourth one a binary attachment (a photo's bytes: not read, as most of a real
mailbox's bytes are not) sized so that the mailbox reaches --mb.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from email.message import EmailMessage
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

WORDS = ("harbour ledger invoice meeting garden budget report travel ferry train school doctor insurance "
         "contract kitchen roof window recipe concert museum library bicycle holiday family weather river "
         "mountain project deadline review draft summary quarter revenue customer support order delivery").split()


def make_message(number: int, rng: random.Random, attachment_bytes: int) -> bytes:
    mail = EmailMessage()
    mail["From"] = f"Person {number % 500} <p{number % 500}@example.org>"
    mail["To"] = "Me <me@example.org>"
    mail["Subject"] = f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} #{number}"
    mail["Date"] = time.strftime("%a, %d %b %Y %H:%M:%S +0000", time.gmtime(1_600_000_000 + number * 600))
    mail["Message-ID"] = f"<{number}@bench.example.org>"
    body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(80, 600)))
    mail.set_content(f"Message {number}: marker{number}.\n\n{body}\n")
    if number % 4 == 0 and attachment_bytes:
        mail.add_attachment(rng.randbytes(attachment_bytes), maintype="application", subtype="octet-stream",
                            filename=f"photo-{number}.bin")
    return mail.as_bytes()


def write_mailbox(path: Path, first: int, count: int, target_bytes: int, mode: str = "wb") -> None:
    rng = random.Random(first)
    # Text ~2.5 KB a message; the attachments (base64: 4/3 of their bytes) on a quarter of them fill the rest.
    attachment = max(0, int((target_bytes / max(count, 1) - 2600) * 4 * 3 / 4)) if target_bytes else 0
    with path.open(mode) as out:
        for number in range(first, first + count):
            raw = make_message(number, rng, attachment).replace(b"\r\n", b"\n")
            raw = raw.replace(b"\nFrom ", b"\n>From ")
            out.write(b"From - Mon Sep  1 10:00:00 2025\n" + raw.rstrip(b"\n") + b"\n\n")


class PeakMemory:
    """Peak RSS per process (this one and its children, by the names they give themselves), every 0.2 s."""

    def __init__(self):
        import psutil

        self.me = psutil.Process()
        self.peaks: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        import psutil

        while not self._stop.wait(0.2):
            for process in [self.me, *self.me.children(recursive=True)]:
                try:
                    name = "indexer (this process)" if process is self.me else process.name()
                    rss = process.memory_info().rss
                except psutil.Error:
                    continue
                self.peaks[name] = max(self.peaks.get(name, 0), rss)


def read_until_embedding(run) -> tuple[float, object]:
    """`run(on_progress, control)` timed until the run reaches embedding (then cancelled) or ends."""
    from desktop_rag.core.progress.control import RunControl

    control = RunControl()
    started = time.perf_counter()
    reached: list[float] = []

    def on_progress(progress):
        if progress.phase == "embed" and not reached:
            reached.append(time.perf_counter() - started)
            control.cancel()

    summary = run(on_progress, control)
    return (reached[0] if reached else time.perf_counter() - started), summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=2048)
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--append", type=int, default=100)
    parser.add_argument("--keep", type=Path, help="work here and keep it (default: a temporary folder)")
    args = parser.parse_args()

    from desktop_rag.config import Settings
    from desktop_rag.core.library.library import Library
    from desktop_rag.core.watching.changes import ChangeBatch

    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-mailboxes-"))
    mail_folder, data = work / "Mail", work / "data"
    mail_folder.mkdir(parents=True, exist_ok=True)
    inbox = mail_folder / "Inbox"
    t0 = time.perf_counter()
    write_mailbox(inbox, 0, args.messages, int(args.mb * 2**20))
    (mail_folder / "Inbox.msf").write_bytes(b"// <!-- <mdb:mork:z v=\"1.4\"/> -->\n")  # as Thunderbird keeps it
    size = inbox.stat().st_size
    print(f"generated {inbox}: {size / 2**20:,.0f} MB, {args.messages:,} messages in {time.perf_counter() - t0:.0f} s",
          flush=True)

    library = Library(data, Settings(), child_processes=True)
    try:
        with PeakMemory() as memory:
            first_s, first = read_until_embedding(lambda report, control: library.index(
                [mail_folder], contexts="rules", on_progress=report, control=control))
        write_mailbox(inbox, args.messages, args.append, 0, mode="ab")
        append_s, appended = read_until_embedding(lambda report, control: library.apply_changes(
            ChangeBatch(dirty={str(inbox)}), on_progress=report, control=control))
    finally:
        library.close()
    rows = [("mailbox", f"{size / 2**20:,.0f} MB, {args.messages:,} messages"),
            ("every message read, keyword-searchable", f"{first_s:,.0f} s ({first.inside:,} documents: messages "
                                                        f"and attachments read; {len(first.failed)} failed)"),
            *[(f"peak RSS while reading: {name}", f"{rss / 2**20:,.0f} MB") for name, rss in
              sorted(memory.peaks.items(), key=lambda item: -item[1])],
            (f"{args.append} messages appended, applied", f"{append_s:.1f} s, {appended.inside} documents read")]
    width = max(len(label) for label, _ in rows)
    print()
    for label, value in rows:
        print(f"{label:<{width}}  {value}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
