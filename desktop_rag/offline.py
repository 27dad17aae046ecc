"""Keep every library off the network before any of them is imported.

The app must work air-gapped: a library that tries a model hub first either fails or spends a minute in
retries (measured: sentence-transformers ~70 s without HF_HUB_OFFLINE). Setting these once, at package
import, means no code path can forget them.
"""

import os

_OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "ANONYMIZED_TELEMETRY": "False",  # Chroma reads this too; the client settings also switch it off
    "TOKENIZERS_PARALLELISM": "false",  # avoids fork warnings when a worker process starts
}


def enforce() -> None:
    for name, value in _OFFLINE_ENV.items():
        os.environ.setdefault(name, value)
