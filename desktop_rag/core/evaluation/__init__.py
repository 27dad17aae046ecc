"""Retrieval measured: a dataset indexed and asked its questions (evaluation.py), two runs compared question by
question (evaluation_compare.py). Above the library: it builds one of its own."""
