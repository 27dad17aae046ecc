"""Following folders: file events coalesced into batches of changes, applied by the watch loop before any
background work."""
