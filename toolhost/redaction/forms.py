"""The literal forms of a secret: the ones a ``Redactor`` hides as such (base64 and base32
at any alignment, hex, the same of its UTF-16LE bytes, and, from 8 characters, itself
reversed and in rot13; and the ``rare_forms``: base85, uuencode, bits, quoted-printable)
and one text of each common spelling (JSON, ``repr``, percent-encoded, HTML), by which the
edge of a text cut inside a secret is found. Every other spelling is the regex's
(``toolhost.redaction.spell``).
"""

from __future__ import annotations

import base64
import codecs
import json
import quopri
import re
from urllib.parse import quote, quote_plus

from toolhost.redaction.spell import FOLD_MIN, views

__all__ = ["MIN_FORM", "base64_cores", "forms", "rare_forms"]

# Encoded forms shorter than this are not hidden: a 2-character base64 core would match
# ordinary text everywhere. The raw secret is always hidden, whatever its length.
MIN_FORM = 4
_PERCENT = re.compile(r"%[0-9A-F]{2}")


def _base64_cores(data: bytes) -> set[str]:
    """The base64 characters that spell ``data`` wherever it sits in a longer encoded string.

    For each of the three alignments, encode ``data`` after 0-2 filler bytes and keep only
    the characters made from ``data``'s bits alone (the ones at either end also carry bits of
    the neighbours, and are left out).
    """
    cores: set[str] = set()
    n = len(data)
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + data).decode("ascii")
        start = -(-8 * offset // 6)  # first character wholly inside data
        end = 8 * (offset + n) // 6  # one past the last one
        core = encoded[start:end]
        cores.add(core)
        cores.add(core.translate(str.maketrans("+/", "-_")))
        if offset == 0:  # the whole encoding, padding included
            cores.add(encoded)
            cores.add(base64.urlsafe_b64encode(data).decode("ascii"))
    return cores


def _base32_cores(data: bytes) -> set[str]:
    """``_base64_cores`` for base32 (``base32``, ``basenc --base32``): five alignments."""
    cores: set[str] = set()
    n = len(data)
    for offset in range(5):
        encoded = base64.b32encode(b"\0" * offset + data).decode("ascii")
        cores.add(encoded[-(-8 * offset // 5):8 * (offset + n) // 5])
        if offset == 0:
            cores.add(encoded)
    return cores


_A85 = "".join(chr(33 + i) for i in range(85))
_B85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"
_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
_TO_B85 = str.maketrans(_A85, _B85)
_TO_Z85 = str.maketrans(_A85, _Z85)
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
# uuencode's characters: chr(32 + value), the value 0 as a backtick (GNU) or a space
_TO_UU = {tick: str.maketrans(_B64, ("`" if tick else " ") + "".join(chr(33 + i)
                                                                      for i in range(63)))
          for tick in (True, False)}


def _base85_cores(data: bytes) -> set[str]:
    """``_base64_cores`` for the base-85 encodings (4 bytes to 5 characters): Ascii85
    (``base64.a85encode``, PostScript/PDF ``<~...~>``), Python's/git's ``b85encode`` and
    ZeroMQ's Z85 (``basenc --z85``): the groups wholly inside ``data``, at four alignments."""
    cores: set[str] = set()
    n = len(data)
    for offset in range(4):
        first = -(-offset // 4)  # groups of 4 that hold only data's bytes: first .. last
        last = (offset + n) // 4
        if last - first < 1:
            continue
        inside = (b"\1" * offset + data)[4 * first:4 * last]
        core = base64.a85encode(inside)  # no zero group in a core but of zero bytes
        if b"z" in core:
            continue
        text = core.decode("ascii")
        cores |= {text, text.translate(_TO_B85), text.translate(_TO_Z85)}
    return cores


def base64_cores(data: bytes) -> set[str]:
    """The base64 characters that spell ``data`` at each alignment (``_base64_cores``)."""
    return _base64_cores(data)


def _uu_cores(data: bytes) -> set[str]:
    """``_base64_cores`` in uuencode's alphabet (its lines hold 45 bytes: a secret inside
    one is spelled by these; one over two lines is not)."""
    return {core.translate(table) for core in _base64_cores(data)
            if "-" not in core and "_" not in core for table in _TO_UU.values()}


def forms(secret: str) -> set[str]:
    """The literal forms of ``secret`` a ``Redactor`` knows (the raw one first of all): the
    base64 and hex ones it hides as such, and one of each spelling its regex hides (see
    ``toolhost.redaction.spell``), by which the edge of a text cut inside one is found."""
    raw = secret.encode("utf-8", "surrogatepass")
    found = {secret, repr(secret)[1:-1]}
    for ascii_only in (False, True):
        escaped = json.dumps(secret, ensure_ascii=ascii_only)[1:-1]
        found.add(escaped)
        found.add(json.dumps(escaped, ensure_ascii=ascii_only)[1:-1])  # JSON inside JSON
    for view in views(secret):
        found |= _spelled(view)
    found |= _base64_cores(raw) | _base32_cores(raw)
    found.add(raw.hex())
    found.add(raw.hex().upper())
    wide = secret.encode("utf-16-le", "surrogatepass")  # Windows' text: PowerShell, .NET
    found |= _base64_cores(wide) | {wide.hex(), wide.hex().upper()}
    if len(secret) >= FOLD_MIN:  # reversed (``rev``), rot13: a shorter one could be a word
        found |= {secret[::-1], codecs.encode(secret, "rot13")}
    return {f for f in found if f == secret or len(f) >= MIN_FORM}


def rare_forms(secret: str) -> set[str]:
    """Forms a ``Redactor`` hides where they are whole, but does not look for at the edge of
    a cut text or a stream's piece (each form looked for there costs every stream line a
    little): base85 (Ascii85, ``b85encode``, Z85), uuencode, the bits (``basenc --base2msbf``
    and ``--base2lsbf``), quoted-printable (MIME's ``_`` for a space too), ``cat -v``, every
    byte in octal escapes or as ``=XX``, the bytes reversed in hex, UTF-32 hex, UTF-16 read as
    UTF-8 (NULs between the characters), and base64 twice, hex of its base64, base64 of its
    hex."""
    raw = secret.encode("utf-8", "surrogatepass")
    found = _base85_cores(raw) | _uu_cores(raw)
    found |= {"".join(f"{b:08b}" for b in raw), "".join(f"{b:08b}"[::-1] for b in raw)}
    if not raw.isascii() or "=" in secret:  # quoted-printable (mail): "=" and bytes past ASCII
        found.add(quopri.encodestring(raw).decode("ascii").replace("=\n", ""))
    if not raw.isascii() or " " in secret or "_" in secret:  # MIME: "_" for a space, =5F
        found.add(quopri.encodestring(raw, header=True).decode("ascii").replace("=\n", ""))
    if not (secret.isascii() and secret.isprintable()):  # cat -v: M- and ^ notation
        found.add("".join(_cat_v(b) for b in raw))
    found.add(raw[::-1].hex())  # its bytes reversed, as a little-endian number prints them
    # UTF-16 (``iconv -t UTF-16``, a Windows program's output) read as UTF-8: a NUL after
    # (little-endian) or before each ASCII character; another one's bytes read as U+FFFD
    found.add("\x00".join(c if c.isascii() else "\ufffd" for c in secret))
    # every byte escaped: octal (``printf '\163\153'``, C, Python), as in a JSON string too,
    # and quoted-printable (``=73=6B``); UTF-32 hex
    octal = "".join(f"\\{b:03o}" for b in raw)
    found |= {octal, octal.replace("\\", "\\\\"), "".join(f"={b:02X}" for b in raw),
              secret.encode("utf-32-le", "surrogatepass").hex(),
              secret.encode("utf-32-be", "surrogatepass").hex()}
    # encoded twice (``base64 | base64``, ``base64 | xxd -p``, ``xxd -p | base64``): the
    # cores of its base64 (a secret of 8 bytes or more: a shorter one's are too short)
    if len(raw) >= 8:
        inner = {c for c in _base64_cores(raw) if "-" not in c and "_" not in c
                 and len(c) >= 8}
        for core in inner:
            found |= _base64_cores(core.encode("ascii"))
            found |= {core.encode("ascii").hex(), core.encode("ascii").hex().upper()}
        found |= _base64_cores(raw.hex().encode("ascii"))
        # base85 or uuencode of its base64 or hex (``base64 | basenc --z85``)
        for encoded in (base64.b64encode(raw), raw.hex().encode("ascii")):
            found |= _base85_cores(encoded) | _uu_cores(encoded)
    if len(raw) <= _B58_MAX:  # base58 (Bitcoin's alphabet): the whole of it
        found.add(_b58encode(raw))
    return {f for f in found if len(f) >= MIN_FORM} - {secret}


def _b58encode(raw: bytes) -> str:
    """``raw`` in base58 (a big number in Bitcoin's alphabet, a zero byte first as ``1``)."""
    number, out = int.from_bytes(raw, "big"), ""
    while number:
        number, digit = divmod(number, 58)
        out = _B58[digit] + out
    return "1" * (len(raw) - len(raw.lstrip(b"\0"))) + out


# base58 is one big number: its cost grows with the square of the length (a 200,000-character
# token held `validate` for a minute). It spells keys and hashes of tens of bytes.
_B58_MAX = 1024
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _cat_v(byte: int) -> str:
    """``byte`` as ``cat -v`` shows it: ``M-`` for the high bit, ``^`` for a control."""
    meta, low = ("M-", byte - 128) if byte >= 128 else ("", byte)
    if low < 32:
        return f"{meta}^{chr(low + 64)}"
    return f"{meta}^?" if low == 127 else meta + chr(low)


def _spelled(view: str) -> set[str]:
    """One text of each way ``view`` is commonly spelled (for the edges of cut texts)."""
    data = view.encode("utf-8", "surrogatepass")
    import html  # with the first secret: not every command needs it

    found = {view, json.dumps(view)[1:-1].replace("/", "\\/"), html.escape(view),
             html.escape(view, quote=False), "".join(f"%{b:02X}" for b in data)}
    sp = "surrogatepass"
    for encoded in (quote(view, safe="", errors=sp), quote(view, errors=sp),
                    quote_plus(view, errors=sp), quote_plus(view, safe="/", errors=sp),
                    quote(view, safe="!*'()~", errors=sp)):
        found.add(encoded)
        found.add(_PERCENT.sub(lambda m: m.group().lower(), encoded))
    if len(view) >= FOLD_MIN:
        found |= {view.upper(), view.lower()}
    if "\n" in view:
        found.add(view.replace("\n", "\r\n"))
    return found
