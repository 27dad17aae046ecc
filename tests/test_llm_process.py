"""The app's set-up: the GGUF model (here the real small SmolLM2) in a child process, writing contexts that are
stored and found; a model setting changed mid-run closes that child without losing anything."""

from desktop_rag.config import Settings
from desktop_rag.core.library import Library
from desktop_rag.core.llm.llama_process import LlamaInChild


def test_contexts_from_the_model_in_a_child_and_a_settings_change_mid_run(data_dir, docs):
    for name in ("herons", "swallows", "kettles"):
        (docs / f"{name}.md").write_text(f"# {name.title()}\n\nA short note about {name} and their habits.\n")
    library = Library(data_dir, Settings(contexts="rules", llm_model="smollm2-135m-instruct-q4_1",
                                         llm_upgrade_when_idle=False), child_processes=True)
    try:
        library.index([docs])
        assert isinstance(library.llm_backend(), LlamaInChild)
        first_child = library.llm_backend()

        def change_settings_after_first_document(progress):
            if progress.phase == "contextualize" and progress.done == 1:
                library.settings_changed(["llm_threads"])  # as the settings dialog does while an upgrade runs

        first = library.upgrade_contexts(on_progress=change_settings_after_first_document)
        assert not first_child._child.running  # the old model's child has ended
        # The first document was done; the next met the closed model and kept its rules context; the run stopped.
        assert first.documents == 2 and first.upgraded_chunks + first.kept_rules == 2
        assert any("stopped for this run" in notice for notice in first.notices)
        assert library.stats()["contexts_awaiting_upgrade"] == 2

        second = library.upgrade_contexts()  # the two documents left, by a new child
        assert second.documents == 2 and library.llm_backend() is not first_child
        assert library.stats()["contexts_awaiting_upgrade"] == 0
        models = {r[0] for r in library.catalog._db.execute("SELECT model FROM contexts")}
        assert models == {"SmolLM2-135M-Instruct.Q4_1"}  # written, or tried and recorded, by the model
        assert "kettle" in library.search("kettles habits").hits[0].path
    finally:
        library.close()
