#!/usr/bin/env python3
"""Regenerate the committed test vectors (CPython is the reference; the tests never run Python).

Writes, next to this file:
  float-repr-vectors.json  [[bits_hex, repr(x)], ...]       -- Python float repr, docs/protocol.md#serialization
  mean-vectors.json        [{"values": [bits_hex...], "mean": bits_hex, "naive_differs": bool}, ...]
                                                             -- statistics.mean, docs/protocol.md#run-level-metrics
Doubles are stored as 16 hex digits of their IEEE-754 big-endian bit pattern so that no JSON
number parsing stands between CPython and the test.

Usage: python3 test/metrics/data/generate-vectors.py
"""
import json
import math
import os
import random
import statistics
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def bits(x: float) -> str:
    return struct.pack(">d", x).hex()


def from_bits(h: str) -> float:
    return struct.unpack(">d", bytes.fromhex(h))[0]


def random_finite(rng: random.Random) -> float:
    while True:
        x = from_bits("%016x" % rng.getrandbits(64))
        if math.isfinite(x):
            return x


def repr_vectors() -> list:
    rng = random.Random(20260829)
    edge = [
        0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 2968.0, 94976.0, 1e-4, 1e-5, 1.5e-5, 0.00012345,
        9.999999999999999e-05, 1e15, 1e16, 9999999999999998.0, 1.2345678901234568e17, 1e21, 1e22,
        1e23, 5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308,
        123456789.0, 0.3, 1 / 3, 2 / 3, 41.64443605916546, 7.59630572878913, 7.596305728789128,
        14831.717200002458, 2 ** 53, 2 ** 53 + 2, 2 ** 63, 2 ** 64, 0.001, 100.0, 1e-7, 123e-20,
        4.35, 0.1 + 0.2, 1e300, 1e-300, 3.141592653589793, 1e-06, 1e-3, 999999999999999.9,
        9999999999999999.0, 0.0001000000000000001,
    ]
    xs = [float(x) for x in edge]  # some edge entries are Python ints (2 ** 53); repr must see floats
    xs += [random_finite(rng) for _ in range(1500)]
    xs += [rng.uniform(0, 100000) for _ in range(500)]
    xs += [rng.lognormvariate(0, 8) for _ in range(500)]
    xs += [round(rng.uniform(0, 1e6), rng.randint(0, 6)) for _ in range(300)]
    xs += [float(rng.randint(-10**18, 10**18)) for _ in range(200)]
    xs += [rng.uniform(0, 1) * 10 ** rng.randint(-8, 20) for _ in range(500)]
    return [[bits(x), repr(x)] for x in xs]


def mean_vectors() -> list:
    rng = random.Random(4301)
    out = []

    def add(values):
        m = statistics.mean(values)
        naive = sum(values) / len(values)
        out.append({"values": [bits(v) for v in values], "mean": bits(m), "naive_differs": naive != m})

    for _ in range(300):  # cache-hit-like ratios cached/prompt
        n = rng.randint(1, 64)
        vals = []
        for _ in range(n):
            p = rng.randint(1, 300000)
            vals.append(rng.randint(0, p) / p)
        add(vals)
    for _ in range(200):  # wide magnitudes and signs
        n = rng.randint(1, 40)
        add([rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30) for _ in range(n)])
    for _ in range(100):  # arbitrary finite doubles, kept small enough that the sum stays finite
        n = rng.randint(1, 20)
        add([math.ldexp(rng.uniform(-1, 1), rng.randint(-1070, 900)) for _ in range(n)])
    for _ in range(50):  # subnormals
        n = rng.randint(1, 10)
        add([rng.randint(-2 ** 40, 2 ** 40) * 5e-324 for _ in range(n)])
    add([0.1, 0.2, 0.3])
    add([1e308, 1e308, -1e308])
    add([0.0])
    add([-0.0, -0.0])
    add([5e-324, 0.0])
    add([1.0, 1e-16, 1e-16])
    return out


def write_lines(name: str, items: list) -> None:
    """One vector per line: diff-friendly and still plain JSON."""
    with open(os.path.join(HERE, name), "w") as f:
        f.write("[\n" + ",\n".join(json.dumps(v) for v in items) + "\n]\n")


def main() -> None:
    write_lines("float-repr-vectors.json", repr_vectors())
    vecs = mean_vectors()
    write_lines("mean-vectors.json", vecs)
    print("mean vectors where naive sum/len differs:", sum(v["naive_differs"] for v in vecs), "of", len(vecs))


if __name__ == "__main__":
    main()
