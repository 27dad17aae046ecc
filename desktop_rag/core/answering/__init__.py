"""Answers from a person's files that the person can check (issue 63): the sentences of the top passages that best
answer a question, found at once (evidence.py); the model's answer, every sentence ending with the passages it
stands on; and each such sentence checked against them (citations.py) before it is shown as found in the files."""
