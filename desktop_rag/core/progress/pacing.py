"""How background work paces itself beside the person, each number beside the measurement that chose it: when the
LLM upgrade may run and how soon it makes way, how often the indexes catch up, when models are given back, how
failed work is retried. Measured by bench/upgrade_priority.py, bench/idle_service.py and bench/watch_latency.py
(docs/benchmarks.md, "Memory" and "Responsiveness"). The person's own knobs (idle minutes, the hourly cap, mains
power) are settings (config.py)."""

# Other programs using this share of the whole CPU or more make the computer busy (not measured: a judgement, a
# browser at rest or a music player takes a few percent, a build or a video call far more).
BUSY_SHARE = 0.25
# After a file change or a person's run the upgrade waits this long: a burst of saves passes first (not measured:
# a judgement; the upgrade's step is cut short within a second of a change whatever this is, issue 61).
MAKE_WAY_S = 3.0
SCHEDULE_CHECK_S = 1.0  # how often a running upgrade asks whether it may go on (not measured: a few reads each)
# Chunks asked about per step of a document: one batch of questions (~15-30 s with the 1.5B model on 2 cores), the
# longest a saved file waits behind the upgrade's step, which a file change cuts short within a second.
CHUNKS_PER_STEP = 8

# The model (1.2 GB for the 1.5B) and the reader's child (~780 MB after 500 files) are given back after this long
# unused; loading them again takes seconds.
RELEASE_MODEL_AFTER_S = 60.0
# A failed batch (or upgrade) is tried again after RETRY_FIRST_S, then twice as long each time it fails again: a
# full disk freed or a lock let go is noticed within seconds, a lasting fault costs one attempt every few minutes
# (not measured: a judgement).
RETRY_FIRST_S = 5.0
RETRY_MAX_S = 300.0

# Between keyword rebuilds during one run: every 2 s, so a file is found by its words seconds after it is read,
# but never more than a tenth of the run's time spent on what a rebuild costs beyond its new texts (10 × that
# overhead: ~0.7 s at 19k chunks, 2 cores). A new text's words are counted once whenever it is indexed, so that part
# is the run's own work, not the rebuild's: counted in, and doubling intervals on top, the rebuilds of a first run
# came 4, 12 and 14 s apart and its first hit 35 s after the folder was added (issue 37).
KEYWORD_CATCH_UP_S = 2.0
# Upgraded chunks are embedded after each document; the keyword index, rebuilt whole (~1.2 s per 10k chunks on 2
# cores), at most this often during the upgrade.
KEYWORD_REBUILD_EVERY_S = 300.0
# A run embeds its first chunks once it has this many waiting (measure_embedding): one batch of the embedder's
# (not measured: Settings.embed_batch_size's default).
FIRST_EMBEDDED_CHUNKS = 32
