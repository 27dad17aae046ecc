"""Who runs when: the one order of a process's writes (lane), when background work may run (schedule) and what
the machine is doing (machine). Pause, cancel and progress, which the runs themselves use, are below, in
core/progress/."""
