"""Issue 60: one state, told the same way everywhere, through what a person's week does to a run. After a Pause from
the tray and a Resume from the window, the run stayed paused while the window offered "Pause" above "Paused:
nothing moves until you resume" and the tray said "Catching up 7%"; the bar went back to 0% after a re-scan and
after a service restart; the estimate swung between 38 min and 3.1 h. Now the service keeps the state
(service/activity.py) and every front end shows it.

Here a real service indexes 1,040 files, with the window (offscreen), the tray, the quick popup and the CLI: a Pause
from the tray and a Resume from the window, a re-scan asked mid-run, the service killed and started again by the
window, a re-scan after the end, and "Write LLM contexts now" (the real small model) paused and resumed. Every half
second each front end is sampled with the service's own state: they never disagree for longer than it takes to hear
of a change, the bar never goes back, 100% is shown only when nothing waits, and once a tenth of the run left after
the restart is done, the time left it says is within 30% of the time it took."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

import psutil
import pytest

from desktop_rag.config import Settings
from desktop_rag.service.endpoint import EndpointClient
from service_processes import services_under
from shown_words import clipped_cells, clipped_labels, faults_in, widget_texts
from window_sessions import WAIT_MS, close_session, open_session, stop_the_service

pytestmark = [pytest.mark.slow,
              pytest.mark.qt_log_ignore("No such signal QPlatformNativeInterface::systemTrayWindowChanged")]

FILES = 1040
SMALL_MODEL = "smollm2-135m-instruct-q4_1"
PROPAGATE_S = 1.0  # a change reaches every front end within this (the tray's long poll, the window's events)
ESTIMATE_WITHIN = 0.30  # of the real time left (issue 60's "Done when")
ESTIMATE_ROUNDING_S = 5  # the service rounds a time left under 10 min to 10 s: ±5 s beyond the share


@dataclass
class Sample:
    at: float
    status: dict | None  # the service's own state; None while nothing answers
    bar: float | None  # the window's whole-run bar; None when it shows no share (busy, or no run)
    window_says: str
    tray_says: str
    waiting: int | None = None  # passages waiting to be made searchable by meaning, asked when a run says ≥ 99.5%
    bar_of: str = ""  # the work the window's bar covers: the indexing runs', or the LLM's


def _status(data_dir) -> dict:
    said = subprocess.run([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), "status", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert said.returncode == 0, said.stderr
    return json.loads(said.stdout)


class Sampler:
    """What each front end shows and what the service says, every half second while a test waits."""

    def __init__(self, qtbot, data_dir, window, tray):
        self.qtbot, self.data_dir, self.window, self.tray = qtbot, data_dir, window, tray
        self.samples: list[Sample] = []
        self._client: EndpointClient | None = None

    def _service_status(self) -> dict | None:
        try:
            if self._client is None:
                self._client = EndpointClient.for_library(self.data_dir)
            return self._client.call("status")
        except Exception:  # (down or starting: nothing answers)
            if self._client is not None:
                self._client.close()
            self._client = None
            return None

    def sample(self) -> Sample:
        progress = self.window.progress
        bar = progress.overall
        shown = bar.value() / bar.maximum() if bar.maximum() and progress.control is not None else None
        taken = Sample(time.monotonic(), self._service_status(), shown, self.window.state_label.text(),
                       self.tray.state_line.text(),
                       bar_of="LLM" if progress.title.text().startswith("Writing LLM") else "indexing")
        if (taken.status or {}).get("doing") in ("indexing", "catching up") and (
                taken.status.get("share_done") or 0) >= 0.995:
            taken.waiting = self._waiting()
        self.samples.append(taken)
        return taken

    def _waiting(self) -> int | None:
        try:
            return self._client.call("stats")["chunks_pending_embedding"] if self._client else None
        except Exception:  # (gone meanwhile)
            return None

    def until(self, condition, timeout_s: float = WAIT_MS / 1000) -> None:
        deadline = time.monotonic() + timeout_s
        while not condition(self.sample()):
            assert time.monotonic() < deadline, f"not reached in {timeout_s} s: {self.samples[-1]}"
            self.qtbot.wait(500)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()


def _in_words(words: str) -> tuple[str, list[int]]:
    """A state's words as a pattern and its numbers: "Indexing #%, about # s left", [40, 30]."""
    return re.sub(r"\d[\d,.]*", "#", words), [int(float(n.replace(",", ""))) for n in re.findall(r"\d[\d,.]*", words)]


def _disagreements(samples: list[Sample]) -> list[str]:
    """Where the window or the tray showed, for longer than PROPAGATE_S, what the service had not said within
    PROPAGATE_S (and the half second between two samples): other words, or a share outside those said meanwhile. A
    run moves on between two samples: a front end showing a state said between them ("10%" between the 9% and the
    11% sampled) is not held against it, unless it still shows it PROPAGATE_S later. A front end is given
    PROPAGATE_S to hear of a service started (again)."""
    found = []
    answering_since: float | None = None
    apart_since: float | None = None
    served_by = None
    for sample in samples:
        if sample.status is None or sample.status.get("role") != "service":
            answering_since = apart_since = None
            continue
        if answering_since is None or sample.status["served_by"] != served_by:  # (started again: a new process)
            answering_since, served_by = sample.at, sample.status["served_by"]
        said = [s.status for s in samples if s.status and sample.at - PROPAGATE_S - 0.5 <= s.at <= sample.at + 0.5]
        patterns = {_in_words(status["words"])[0] for status in said}
        shares = [round(100 * status["share_done"]) for status in said if status.get("share_done") is not None]
        low, high = (min(shares) - 1, max(shares) + 1) if shares else (0, 100)
        wrong = []
        for shown in (sample.window_says, sample.tray_says.removesuffix(" (in the background)")):
            pattern, numbers = _in_words(shown)
            if pattern not in patterns or ("%" in pattern and not low <= numbers[0] <= high):
                wrong.append(f"{[s['words'] for s in said]}: shown {shown!r}")
        # (the bar's fill is in steps: 0.2796 fills as 0.28, whose 100× is 28.000000000000004, while 27% is told)
        if sample.bar is not None and not low <= round(100 * sample.bar, 6) <= high:
            wrong.append(f"{[s['words'] for s in said]}: the window's bar at {sample.bar:.1%}")
        if not wrong or sample.at - answering_since < PROPAGATE_S + 0.5:
            apart_since = None
            continue
        apart_since = sample.at if apart_since is None else apart_since
        if sample.at - apart_since >= PROPAGATE_S:
            found += wrong
    return found


def _estimate_misses(samples: list[Sample], ended_at: float) -> tuple[int, list[str]]:
    """(samples judged, the misses): once a tenth of what was left when they begin is done, the time left told
    against the time it took."""
    judged, misses = 0, []
    told = [s for s in samples if s.status and s.status.get("seconds_left") and s.status.get("share_done")
            is not None and s.status["doing"] in ("indexing", "catching up")]
    if not told:
        return 0, ["no time left was ever told"]
    start_share = told[0].status["share_done"]
    for sample in told:
        share, left = sample.status["share_done"], sample.status["seconds_left"]
        real = ended_at - sample.at
        if share < start_share + 0.1 * (1 - start_share) or real < 4 * ESTIMATE_ROUNDING_S:
            continue
        judged += 1
        print(f"  at {share:.0%}: said {left:.0f} s left, took {real:.0f} s")
        if abs(left - real) > ESTIMATE_WITHIN * real + ESTIMATE_ROUNDING_S:
            misses.append(f"at {share:.0%}: said {left:.0f} s, took {real:.0f} s")
    return judged, misses


def _kill_the_service(data_dir) -> None:
    """kill -9, as a crash would: the service and its children (what outlives a killed service is issue 61's)."""
    for service in services_under(data_dir):
        family = [*service.children(recursive=True), service]
        for process in family:
            try:
                os.kill(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        psutil.wait_procs(family, timeout=10)


def _nothing_waits(data_dir) -> bool:
    client = EndpointClient.for_library(data_dir)
    try:
        return client.call("stats")["chunks_pending_embedding"] == 0
    finally:
        client.close()


def test_one_state_everywhere_through_a_pause_a_rescan_a_kill_and_the_llm_paused(qtbot, docs, data_dir,
                                                                                        tmp_path):
    from desktop_rag.ui.quick_search import QuickSearch, ServiceSearch
    from desktop_rag.ui.tray import ServiceTray

    for n in range(FILES):  # a mix of sizes: from a note to a long log (read smallest first)
        sentences = 4 + (n * 37) % 60
        (docs / f"log{n:03}.md").write_text(f"# Log {n}\n\n" + " ".join(
            f"The pump {n} ran {m} hours before its seal {m * n} was changed." for m in range(sentences)) + "\n")
    session = open_session(qtbot, data_dir, Settings(contexts="rules", llm_model=SMALL_MODEL,
                                                     llm_upgrade_when_idle=False))
    window = session.window
    tray = ServiceTray(data_dir)
    sampler = Sampler(qtbot, data_dir, window, tray)
    try:
        tray.start()
        window.folders.add_requested.emit(str(docs))
        sampler.until(lambda s: (s.status or {}).get("share_done") is not None and s.status["share_done"] >= 0.03)

        # A Pause from the tray holds the run; the window, the tray and the CLI say so alike.
        tray.toggle_pause()
        sampler.until(lambda s: s.tray_says.startswith("Paused: indexing") and s.window_says == s.status["words"])
        status = _status(data_dir)
        assert status["run_paused"] and status["held"] and status["paused"]
        assert window.progress.pause_button.text() == "Resume"  # the window offers what the run is not
        assert window.progress.current.text() == "Paused: nothing moves until you resume."
        assert tray.pause_action.text() == "Resume background work"
        assert not (bad := faults_in([*widget_texts(window), *widget_texts(tray.menu)])), "\n".join(bad)
        assert clipped_labels(window) + clipped_cells(window) == []
        assert "left" not in window.progress.overall_label.text()  # a paused run has no time left

        window.progress.toggle_pause()  # Resume in the window: the run goes on (the LLM's pause stays)
        sampler.until(lambda s: s.window_says.startswith("Indexing") and s.tray_says.startswith("Indexing"))
        status = _status(data_dir)
        assert not status["run_paused"] and status["llm_paused"]
        assert window.progress.pause_button.text() == "Pause"

        # A re-scan asked mid-run waits its turn; then the service is killed, and the window starts it again: the
        # catch-up takes the run's work over from the share it had shown.
        # (Killed at a fifth: the catch-up is what the estimate is judged on. Over 520 files it lasted 23 s in CI
        # and the samples with a tenth done and the 20 s left a judgement needs were 1 (5 wanted); over 1,040, 45 s
        # here, 52 judged.)
        sampler.until(lambda s: (s.status or {}).get("share_done", 0) >= 0.1)
        window.rescan_all()
        sampler.until(lambda s: (s.status or {}).get("share_done", 0) >= 0.2)
        before_kill = sampler.samples[-1].status["share_done"]
        _kill_the_service(data_dir)
        sampler.until(lambda s: s.status is None or s.status.get("doing") == "catching up", timeout_s=60)
        sampler.until(lambda s: (s.status or {}).get("doing") == "catching up"
                      and s.status.get("share_done") is not None)
        restarted = len(sampler.samples)
        # The folder's line says what the Progress tab says (it said "indexing…" beside "Catching up…")
        qtbot.waitUntil(lambda: "catching up…" in window.folders.list.item(0).text(), timeout=5000)
        assert sampler.samples[-1].status["share_done"] >= before_kill - 0.01, (before_kill, sampler.samples[-1])
        sampler.until(lambda s: (s.status or {}).get("doing") not in ("catching up", "indexing")
                      and window.progress.title.text().startswith(("Done", "Up to date")))
        run_ended = sampler.samples[-1].at
        assert _nothing_waits(data_dir)
        # The killed service told no end of its run: the folders' panel said "indexing…" after everything was done
        qtbot.waitUntil(lambda: "…" not in window.folders.list.item(0).text(), timeout=5000)

        # After the end, a re-scan: the work is kept, and the bar says so.
        ended: list[dict] = []
        window.runs.ended.connect(ended.append)
        window.rescan_all()
        sampler.until(lambda s: bool(ended))  # (over in a second: nothing to read)
        assert ended[0]["state"] == "finished" and ended[0]["share_done"] == 1.0
        assert window.progress.title.text().startswith("Done: 0 files indexed"), window.progress.title.text()
        assert window.progress.overall.value() == window.progress.overall.maximum()

        popup = QuickSearch(ServiceSearch(data_dir))  # the quick popup, answered by the same service
        qtbot.addWidget(popup)
        popup.show()
        qtbot.keyClicks(popup.field, "pump seal changed")
        qtbot.waitUntil(lambda: bool(popup.hits), timeout=WAIT_MS)
        assert not (bad := faults_in(widget_texts(popup))), "\n".join(bad)
        assert clipped_labels(popup) == []
        popup.close()

        # "Write LLM contexts now", then paused from the window and resumed from the tray: it waits, and goes on.
        tray.toggle_pause()  # the LLM's pause (kept from the tray's Pause) let go: nothing is paused
        sampler.until(lambda s: s.status is not None and not s.status["paused"])
        window.background.run_now()
        sampler.until(lambda s: (s.status or {}).get("doing") == "writing LLM contexts")
        qtbot.wait(1000)  # (the panel's line of what waits, read as the work begins)
        # Its count is the stretch's, of every context waiting: a step's own ended "done of done", the bar full
        qtbot.waitUntil(lambda: "/" in window.progress.counts["contextualize"].text(), timeout=WAIT_MS)
        done, total = (int(n.replace(",", "")) for n in re.findall(r"[\d,]+", window.progress.counts[
            "contextualize"].text())[:2])
        assert total >= FILES and done < total, window.progress.counts["contextualize"].text()
        assert window.progress.overall.value() < window.progress.overall.maximum()
        assert not (bad := faults_in([*widget_texts(window), *widget_texts(tray.menu)])), "\n".join(bad)
        assert clipped_labels(window) + clipped_cells(window) == []
        window.background.pause()
        sampler.until(lambda s: (s.status or {}).get("llm_paused") and s.status["doing"] != "writing LLM contexts"
                      and s.window_says == s.status["words"] and s.tray_says.startswith(s.status["words"]))
        assert _status(data_dir)["words"] == "Background work paused"
        assert not (bad := faults_in([*widget_texts(window), *widget_texts(tray.menu)])), "\n".join(bad)
        tray.toggle_pause()
        sampler.until(lambda s: (s.status or {}).get("doing") == "writing LLM contexts")  # the "now" kept
        for _ in range(4):
            sampler.qtbot.wait(500)
            sampler.sample()

        # The tray's Quit mid-LLM: the service gone within 2 s (README), the window told to close with it.
        services = services_under(data_dir)
        asked = time.monotonic()
        tray.quit_everything()
        psutil.wait_procs(services, timeout=30)
        gone_after = time.monotonic() - asked
        print(f"the tray's Quit mid-LLM: the service gone {gone_after:.1f} s after it was asked")
        assert not services_under(data_dir) and gone_after <= 2.0
        qtbot.waitUntil(lambda: not window.isVisible(), timeout=10_000)

        samples = sampler.samples
        print(f"{len(samples)} samples")
        (tmp_path / "samples.json").write_text(json.dumps([s.__dict__ for s in samples], indent=1))
        assert not (apart := _disagreements(samples)), "\n".join(apart[:20])
        for work in ("indexing", "LLM"):  # each bar over its own work, the LLM's through its pause
            bars = [s.bar for s in samples if s.bar is not None and s.bar_of == work]
            assert all(later >= earlier - 1e-9 for earlier, later in itertools.pairwise(bars)), (work, bars)
        full = [s for s in samples if (s.status or {}).get("share_done") == 1.0
                and s.status["doing"] in ("indexing", "catching up")]
        assert all(s.waiting == 0 for s in full), [(s.status["words"], s.waiting) for s in full]
        judged, misses = _estimate_misses([s for s in samples[restarted:] if s.at <= run_ended], run_ended)
        print(f"the time left judged at {judged} samples, missed at {len(misses)}: {misses[:10]}")
        assert judged >= 5 and not misses, misses
    finally:
        sampler.close()
        tray.close()
        close_session(session)
        stop_the_service(data_dir)

