import json
import subprocess
import sys
from pathlib import Path


def cli(data_dir: Path, *args: str, check: bool = True, timeout: float = 300,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the real `desktop-rag` command in a fresh process, as a user or a script would (`env`: its environment,
    when not this one's)."""
    result = subprocess.run([sys.executable, "-m", "desktop_rag", "--data-dir", str(data_dir), *args],
                            capture_output=True, text=True, timeout=timeout, env=env)
    if check and result.returncode != 0:
        raise AssertionError(f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}")
    return result


def cli_json(data_dir: Path, *args: str):
    return json.loads(cli(data_dir, *args).stdout)
