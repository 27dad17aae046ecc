"""What every run shares, below the runs themselves: pausing and cancelling one (control), and measuring how far it
is and how long it has left (run_meter). The indexing run, the LLM upgrade and the lane that orders them all use
these; they use none of those."""
