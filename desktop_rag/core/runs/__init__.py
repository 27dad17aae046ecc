"""What runs need around them: pause and cancel (control), progress and time left (run_meter), when background
work may run (schedule) and what the machine is doing (machine)."""
