"""The quick search's GNOME key (platform/key_binding.py), written through `gsettings` as GNOME Settings writes
it. This machine has no GNOME: a stand-in gsettings (a fake of GNOME's tool, named so) keeps its keys in a JSON
file and prints what the real one prints, so what is asked of it — and in which form — is what is checked."""

from __future__ import annotations

import json
import shlex
import sys

from desktop_rag.platform import key_binding

FAKE_GSETTINGS = r'''#!{python}
import json, sys
STATE = {state!r}
keys = json.load(open(STATE))
command, schema, *rest = sys.argv[1:]
if not schema.startswith("org.gnome.settings-daemon.plugins.media-keys"):
    print("No such schema", file=sys.stderr); sys.exit(1)
if command == "list-keys":
    print("custom-keybindings\nscreensaver"); sys.exit(0)
if command == "get":
    value = keys.get(schema + " " + rest[0])
    print("@as []" if value is None else value); sys.exit(0)
if command == "set":
    keys[schema + " " + rest[0]] = rest[1]
    json.dump(keys, open(STATE, "w")); sys.exit(0)
sys.exit(1)
'''


def fake_gsettings(tmp_path, monkeypatch, keys: dict) -> dict:
    state = tmp_path / "gsettings.json"
    state.write_text(json.dumps(keys))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gsettings").write_text(FAKE_GSETTINGS.format(python=sys.executable, state=str(state)))
    (bin_dir / "gsettings").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return {"read": lambda: json.loads(state.read_text())}


def test_the_key_is_added_beside_the_person_s_own_once_with_its_command_quoted(tmp_path, monkeypatch):
    theirs = "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/custom0/"
    gsettings = fake_gsettings(tmp_path, monkeypatch, {
        f"{key_binding.MEDIA_KEYS} custom-keybindings": str([theirs])})
    assert key_binding.gnome_can_bind()
    command = ["/home/ann/my apps/venv/bin/python", "-m", "desktop_rag", "--data-dir", "/home/ann/it's data",
               "quick"]
    assert key_binding.bind_gnome_key(command)
    assert key_binding.bind_gnome_key(command)  # again: replaced, not added twice
    keys = gsettings["read"]()
    listed = keys[f"{key_binding.MEDIA_KEYS} custom-keybindings"]
    assert key_binding._paths(listed) == [theirs, key_binding.ENTRY]
    entry = f"{key_binding.MEDIA_KEYS}.custom-keybinding:{key_binding.ENTRY}"
    assert keys[f"{entry} binding"] == "<Primary><Alt>space"
    assert keys[f"{entry} name"] == "desktop-rag quick search"

    assert shlex.split(keys[f"{entry} command"]) == command  # as GNOME splits it (g_shell_parse_argv)


def test_without_gnome_nothing_is_offered(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no gsettings at all
    assert not key_binding.gnome_can_bind()
    assert not key_binding.bind_gnome_key(["desktop-rag", "quick"])
