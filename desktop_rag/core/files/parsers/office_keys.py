"""Office files encrypted with a key Office itself knows, which it opens without asking anyone: read as Office does.

Excel encrypts a workbook whose sheets are only protected from changes (or that was saved "read-only recommended")
with the built-in key "VelvetSweatshop"; PowerPoint 97–2003 has one for its write-protected decks. A person never
typed a password for such a file, so "password-protected: cannot be read without its password" was untrue
(issue 51: workbooks among Apache Tika's test documents). Each key is tried, and verified, before a file is said to
need a password; msoffcrypto-tool decrypts every Office format with it (ECMA-376 agile and standard encryption for
Office Open XML, RC4 and XOR obfuscation for 97–2003).
"""

from __future__ import annotations

import io
import logging

log = logging.getLogger(__name__)

# Excel's (MS-OFFCRYPTO 2.4.2.3, MS-XLS 2.2.10: "VelvetSweatshop" when no password is given) and PowerPoint 97–2003's
# ("/01Hannes Ruescher/01" for a write-protected presentation, MS-PPT 2.3.7.1).
DEFAULT_KEYS = ("VelvetSweatshop", "/01Hannes Ruescher/01")


def opened_with_default_key(data: bytes) -> bytes | None:
    """The file decrypted with one of Office's own keys — the decrypted file, in its own format — or None when only
    a person's password opens it (or it is not an encrypted Office file msoffcrypto-tool knows)."""
    import msoffcrypto

    try:
        if not msoffcrypto.OfficeFile(io.BytesIO(data)).is_encrypted():
            return None
    except Exception:  # (not an Office file it knows: an Outlook message, a damaged file)
        return None
    for key in DEFAULT_KEYS:
        try:
            office = msoffcrypto.OfficeFile(io.BytesIO(data))
            if office.format == "ooxml":
                office.load_key(password=key, verify_password=True)
            else:
                office.load_key(password=key)
            decrypted = io.BytesIO()
            office.decrypt(decrypted)
        except Exception as exc:  # (a wrong key, an unknown encryption, a damaged file: not this key)
            log.debug("the default key %r did not open the file: %s", key, exc)
            continue
        return decrypted.getvalue()
    return None
