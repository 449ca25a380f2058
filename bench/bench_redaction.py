"""What hiding two secrets costs per call: a 40,000-character tool result, redacted.

Prints microseconds per call and the ratio to a plain ``str.replace`` of the raw secrets (the
old redaction, which missed every encoded form); with no secret in the text, with the raw
secret, and with the secret spelled one ``\\uXXXX`` escape per character.
Run: .venv/bin/python bench/bench_redaction.py
(``--many``: instead, the cost per number of secrets, 1, 10, 100 and 1,000 secrets on 1 MB of
prose and of near-misses: build seconds, redaction seconds per MB, peak memory.
``--passes [SIZE]``: instead, the CPU seconds per MB of the decoding pass and of the rotated-
shapes pass on prose, on one near-miss repeated, on near-misses that vary and on base64 lines,
and the ratio of each to the whole redaction of prose: CPU time, since the wall clock of a
shared machine swings 2-5 times.
``--kinds [SIZE]``: instead, the whole redaction's CPU seconds per MB (and MB/s) on prose, on
code-like words (base85's punctuation), on accented prose with look-alike characters, on
Japanese with fullwidth digits and on base64 lines; and ``holds_secret`` on a 1 MB PNG.)
"""

from __future__ import annotations

import timeit

from toolhost.redaction import Redactor

SECRETS = frozenset({'q"uo\\te-ünï-cødé "x" tok3n', "b4sic-Pa55word!"})
TEXT = ("lorem ipsum dolor sit amet, " * 1500)[:40_000]


def old(text: str) -> str:
    for secret in SECRETS:
        text = text.replace(secret, "***")
    return text


def main() -> None:
    redactor = Redactor(SECRETS)
    built = timeit.timeit(lambda: Redactor(SECRETS), number=20) / 20
    n = 200
    new = timeit.timeit(lambda: redactor.redact(TEXT), number=n) / n
    base = timeit.timeit(lambda: old(TEXT), number=n) / n
    print(f"forms: {len(redactor._forms)}; build once: {built * 1e3:.2f} ms")
    print(f"redact 40,000 chars, no secret in it: {new * 1e6:.0f} us per call "
          f"({new / base:.1f}x a plain replace of the raw secrets)")
    leaky = TEXT[:20_000] + sorted(SECRETS)[0] + TEXT[20_000:]
    hit = timeit.timeit(lambda: redactor.redact(leaky), number=n) / n
    print(f"redact 40,000 chars holding a secret: {hit * 1e6:.0f} us per call "
          f"({hit / base:.1f}x)")
    spelled = "".join(f"\\u{ord(c):04X}" for c in sorted(SECRETS)[1])  # every char escaped
    escaped = TEXT[:20_000] + spelled + TEXT[20_000:]
    assert redactor.redact(escaped).count("***") == 1
    hit = timeit.timeit(lambda: redactor.redact(escaped), number=n) / n
    print(f"redact 40,000 chars holding a secret, every character \\u-escaped: "
          f"{hit * 1e6:.0f} us per call ({hit / base:.1f}x)")
    decoded(redactor, base)
    streamed(redactor)
    hostile(redactor)


def decoded(redactor: Redactor, base: float) -> None:
    """What decoding the runs of base64 and hex costs (``redaction.decoded``): 40,000
    characters of base64 of other data, the same holding ``gzip | base64`` of a secret, and
    the prose above with the decoding turned off (``_max_depth`` 0) for the ratio."""
    import base64
    import gzip
    import random

    n = 50
    blob = base64.b64encode(random.Random(1).randbytes(30_000)).decode()
    plain = timeit.timeit(lambda: redactor.redact(blob), number=n) / n
    secret = sorted(SECRETS)[1].encode()
    packed = base64.b64encode(gzip.compress(secret, mtime=0)).decode()
    hidden = blob[:20_000] + " " + packed + " " + blob[20_000:]
    assert packed not in redactor.redact(hidden)
    hit = timeit.timeit(lambda: redactor.redact(hidden), number=n) / n
    on = timeit.timeit(lambda: redactor.redact(TEXT), number=n) / n
    redactor.__dict__["_max_depth"] = 0
    off = timeit.timeit(lambda: redactor.redact(TEXT), number=n) / n
    b64_off = timeit.timeit(lambda: redactor.redact(blob), number=n) / n
    del redactor.__dict__["_max_depth"]
    print(f"redact 40,000 chars of base64, no secret: {plain * 1e6:.0f} us per call "
          f"({plain / base:.1f}x; {plain / b64_off:.2f}x without decoding its runs)")
    print(f"redact 40,000 chars of base64 holding gzip|base64 of a secret: {hit * 1e6:.0f} us "
          f"per call ({hit / base:.1f}x)")
    print(f"decoding runs on prose: {on / off:.2f}x the cost without")


def streamed(redactor: Redactor) -> None:
    """A model's text streamed in 16-character deltas, each held back as the stream needs
    (``stream_split``): the cost per delta, and the first delta of a fresh ``Redactor``."""
    pieces = [TEXT[i:i + 16] for i in range(0, 8_000, 16)]
    fresh = Redactor(SECRETS)
    first = timeit.timeit(lambda: fresh.stream_split("x"), number=1)

    def play() -> None:
        held = ""
        for piece in pieces:
            _, held = redactor.stream_split(held + piece)

    play()
    per = timeit.timeit(play, number=5) / 5 / len(pieces)
    print(f"stream 8,000 chars in 16-char deltas: {per * 1e6:.1f} us per delta "
          f"(the first delta of a config: {first * 1e3:.1f} ms)")


def hostile(redactor: Redactor) -> None:
    """Output built to hit the costly steps (secrets14): 200,000 characters of near-misses
    of a secret's start, and of one short prefix of it per line (many small folded blocks):
    seconds per MB, and the ratio to prose of the same length. Before secrets14: ~27 s and
    ~28 s per MB (the second quadratic); the places tried are now bounded per text."""
    import random

    secret = sorted(SECRETS)[1]
    size = 200_000
    prose = (TEXT * 5)[:size]
    near = ((secret[:-1] + "x ") * (size // len(secret)))[:size]
    rng = random.Random(1)
    folded = "\n".join(secret[:rng.randrange(1, 12)] for _ in range(size // 7))[:size]
    base = timeit.timeit(lambda: redactor.redact(prose), number=3) / 3
    for name, text in (("near-misses of its start", near), ("a prefix per line", folded)):
        took = timeit.timeit(lambda t=text: redactor.redact(t), number=1)  # type: ignore[misc]
        print(f"hostile: {name}: {took / len(text) * 1e6:.2f} s per MB "
              f"({took / base:.1f}x prose)")


def many(counts: tuple[int, ...] = (1, 10, 100, 1000), size: int = 1_000_000) -> None:
    """The cost per number of secrets (secrets15): before, one RE2 trigger program for all of
    them outgrew RE2's DFA memory past ~20 secrets (100 secrets: 4.7 s per MB of prose)."""
    import random
    import resource
    import string
    import time

    rng = random.Random(1)
    alphabet = string.ascii_lowercase + string.digits
    pool = ["sk-" + "".join(rng.choice(alphabet) for _ in range(21)) for _ in range(max(counts))]
    words = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "12", "times,",
             "said", "build-42"]
    prose = " ".join(rng.choice(words) for _ in range(size // 4))[:size]
    for n in counts:
        secrets = frozenset(pool[:n])
        start = time.perf_counter()
        redactor = Redactor(secrets)
        redactor.redact("warm up")
        built = time.perf_counter() - start
        near = ((pool[0][:-1] + "x ") * (size // len(pool[0])))[:size]
        timed = []
        for text in (prose, near):
            start = time.perf_counter()
            redactor.redact(text)
            timed.append((time.perf_counter() - start) / len(text) * 1e6)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(f"{n} secrets: build {built:.2f} s; prose {timed[0]:.2f} s per MB; "
              f"near-misses {timed[1]:.2f} s per MB; peak memory so far {peak} MB")


def passes(size: int = 1_000_000) -> None:
    """The decoding pass (``_decoded``) and the rotated-shapes pass (``_shifted``) on texts
    built to cost them (secrets16: one near-miss repeated was decoded 40,000 times per MB)."""
    import base64
    import random
    import time

    secret = "sk-live-9f8e7d6c5b4a3921"
    redactor = Redactor(frozenset({secret}))
    redactor.redact("warm up " * 10)
    rng = random.Random(1)
    words = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "12", "times,"]
    texts = {
        "prose": " ".join(rng.choice(words) for _ in range(size // 4))[:size],
        "one near-miss repeated": ((secret[:-1] + "x ") * (size // 25))[:size],
        "near-misses that vary": " ".join(secret[:-3] + "".join(rng.choice(
            "abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(3))
                                          for _ in range(size // 25))[:size],
        "base64 lines": "\n".join(base64.b64encode(rng.randbytes(57)).decode()
                                  for _ in range(size // 77)),
    }

    def cpu(call: object, text: str) -> float:
        start = time.process_time()
        call(text)  # type: ignore[operator]
        return (time.process_time() - start) / len(text) * 1e6

    whole = cpu(redactor.redact, texts["prose"])
    for name, text in texts.items():
        decoded, shifted = cpu(redactor._decoded, text), cpu(redactor._shifted.spans, text)
        print(f"{name}: decoding pass {decoded:.2f} s per MB ({decoded / whole:.1f}x the "
              f"whole redaction of prose), rotated shapes {shifted:.3f} s per MB "
              f"({shifted / whole:.2f}x)")


def kinds(size: int = 1_000_000) -> None:
    """The whole redaction per kind of text (secrets17: XOR lags to 16, base85 words without
    markers, look-alike characters, packed data) and a binary block's check."""
    import base64
    import random
    import time
    import zlib

    from toolhost.redaction.binary import holds_secret

    redactor = Redactor(frozenset({"sk-live-9f8e7d6c5b4a3921"}))
    redactor.redact("warm up ① " * 10)
    rng = random.Random(1)
    code = ["if(a){b[c]=d;}else{return(e<f)?g:h;}", '{"id":1,"tags":["a","b"],"ok":true}',
            "fn(x,y);", "x"]
    texts = {
        "prose": ("the quick brown fox jumps over the lazy dog, 12 times\n" * size)[:size],
        "code-like words": " ".join(rng.choice(code) + "".join(rng.choices(
            "abcdefghijklmnopqrstuvwxyz", k=5)) for _ in range(size // 20))[:size],
        "accented prose with look-alikes": (
            "Ünïcödé text, à la carte, naïve café ① — ok 2026\n" * size)[:size],
        "Japanese with fullwidth digits": (
            "日本語のテキストです。東京都、２０２６年。\n" * size)[:size],
        "base64 lines": "\n".join(base64.b64encode(rng.randbytes(57)).decode()
                                  for _ in range(size // 77)),
    }
    for name, text in texts.items():
        start = time.process_time()
        redactor.redact(text)
        seconds = (time.process_time() - start) / len(text) * 1e6
        print(f"{name}: {seconds:.3f} s per MB of CPU ({1 / seconds:.1f} MB/s)")
    png = (b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR" + bytes(17) + b"IDAT"
           + zlib.compress(rng.randbytes(1 << 20)))
    data = base64.b64encode(png).decode()
    start = time.process_time()
    holds_secret(redactor, data)
    print(f"holds_secret, a 1 MB PNG: {time.process_time() - start:.3f} s of CPU")


if __name__ == "__main__":
    import sys

    if "--many" in sys.argv:
        many()
    elif "--kinds" in sys.argv:
        at = sys.argv.index("--kinds") + 1
        kinds(int(sys.argv[at]) if at < len(sys.argv) else 1_000_000)
    elif "--passes" in sys.argv:
        at = sys.argv.index("--passes") + 1
        passes(int(sys.argv[at]) if at < len(sys.argv) else 1_000_000)
    else:
        main()
