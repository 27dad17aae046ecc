"""`desktop-rag` in a terminal: the commands (commands.py), their parser, their output, and the writes that go to
the service or, with --local, to a library of the command's own."""
