"""A library: its catalog, its indexes and its models opened as one (library.py), read (reads.py), written by one
writer at a time (writing.py), its indexes kept in step with its catalog (index_upkeep.py) and checked against it
(doctor.py), a person's hand on its contexts (context_edits.py), and one that cannot be written (read_only.py)."""
