"""Spies around the real document reader: which documents a run asked it to read."""


def count_member_reads(library) -> list[tuple]:
    """A spy around the real reader: which members it was asked to read."""
    reader = library.document_reader
    asked, real = [], reader.read_member

    def read_member(content_hash, position, *args, **kwargs):
        document, chunks = real(content_hash, position, *args, **kwargs)
        asked.append(document.title)
        return document, chunks

    reader.read_member = read_member
    return asked
