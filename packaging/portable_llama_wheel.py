"""Make the portable llama-cpp-python wheel ready to install anywhere (packaging/make-offline-bundle.sh).

    python packaging/portable_llama_wheel.py BUILT.whl OUT_FOLDER

Built with GGML_BACKEND_DL and GGML_CPU_ALL_VARIANTS, the wheel holds ggml's CPU code once per instruction set
(libggml-cpu-sandybridge.so … -sapphirerapids.so), installed by ggml's own rule under bin/ rather than beside
libllama. This moves them into llama_cpp/lib (where desktop_rag/core/llm/llama_backend.py loads them from) and
leaves out the sapphirerapids variant: it is the one with AMX kernels, which crash at the first decode on virtual
machines whose CPU reports AMX (measured; DEVELOPERS.md). Such a CPU then runs the icelake variant (AVX-512).
It also adds the GCC OpenMP runtime the CPU code links (libgomp.so.1, under the GCC Runtime Library Exception):
a minimal Debian has none, and libllama failed to load there (measured in a debootstrap chroot); libggml-base
finds it beside itself ($ORIGIN). The wheel's RECORD is written again with the new paths and hashes.
"""

from __future__ import annotations

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

LEFT_OUT = ("sapphirerapids",)
VENDORED = "libgomp.so.1"


def _system_library(soname: str) -> Path:
    """Where the dynamic linker finds `soname` on this machine."""
    import subprocess

    for line in subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout.splitlines():
        if line.strip().startswith(soname + " ") and "x86-64" in line:
            return Path(line.rsplit("=>", 1)[1].strip()).resolve()
    raise SystemExit(f"{soname} is not installed on this machine (Debian: libgomp1)")


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main(built: Path, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    target = out / built.name
    moved, dropped = [], []
    with zipfile.ZipFile(built) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as wheel:
        record_name = next(n for n in source.namelist() if n.endswith(".dist-info/RECORD"))
        lines = []
        for info in source.infolist():
            name = info.filename
            if name == record_name:
                continue
            base = name.rsplit("/", 1)[-1]
            if base.startswith("libggml-cpu-") and base.endswith(".so"):
                if any(variant in base for variant in LEFT_OUT):
                    dropped.append(base)
                    continue
                if not name.startswith("llama_cpp/lib/"):
                    name = f"llama_cpp/lib/{base}"
                    moved.append(base)
            data = source.read(info)
            copy = zipfile.ZipInfo(name, date_time=info.date_time)
            copy.external_attr = info.external_attr
            copy.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(copy, data)
            lines.append(_record_line(name, data))
        vendored = _system_library(VENDORED).read_bytes()
        name = f"llama_cpp/lib/{VENDORED}"
        copy = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
        copy.external_attr = 0o755 << 16
        wheel.writestr(copy, vendored, compress_type=zipfile.ZIP_DEFLATED)
        lines.append(_record_line(name, vendored))
        lines.append(f"{record_name},,")
        wheel.writestr(record_name, "\n".join(lines) + "\n")
    variants = sorted(n for n in zipfile.ZipFile(target).namelist() if "libggml-cpu-" in n)
    if not variants:
        raise SystemExit(f"{built} holds no CPU variants: was it built with GGML_CPU_ALL_VARIANTS=ON?")
    print(f"portable wheel: {len(variants)} CPU variants ({', '.join(v.rsplit('-', 1)[-1][:-3] for v in variants)})"
          f"; left out: {', '.join(dropped) or 'none'}", file=sys.stderr)
    return target


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
