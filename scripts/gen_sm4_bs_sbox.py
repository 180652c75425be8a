#!/usr/bin/env python3
"""Generates src/cores/sm4/sm4_sbox.h: SM4's S-box (GB/T 32907-2016) as a network of
3-input functions, one GPU LOP3 each, for the bitsliced core, and the key schedule's
constant FK (CK is a formula, computed by the key expansion).

The S-box from its algebraic description (Liu, Ji, Hu, Ding, Lv, Pyshkin and Weinmann,
"Analysis of the SMS4 block cipher", ACISP 2007):
    S(x) = A inv(A x ^ c) ^ c,    c = 0xd3,
inv the multiplicative inverse (0 -> 0) in GF(2^8) = GF(2)[X]/(X^8 + X^7 + X^6 + X^5 +
X^4 + X^2 + 1), A the circulant matrix over GF(2) whose row i (output bit i, bit 0 the
least significant) is (1 1 1 0 0 1 0 1) rotated right by i positions, column j the input
bit j. The generator checks this description against the S-box table as the standard
prints it (section 6.2) on all 256 inputs before building anything from it.

Every representation of GF(2^8) is isomorphic to AES's (GF(2)[X]/(X^8 + X^4 + X^3 + X +
1)) through a linear map psi (AES -> SM4's field, phi = psi^-1), so
    S(x) = A psi(inv_AES(phi(A x) ^ phi(c))) ^ c,
the non-linear middle of the AES S-box circuit (bc_aes_bs_sbox_k8 in aes_bitsliced.h)
between linear layers that absorb phi o A and phi(c) on the input side and A o psi, c
and AES's inverse affine step on the output side (scripts/bs_sbox_affine.py). ABC then
maps the network onto 3-input functions. The network is checked against the table on
all 256 inputs, here and in the emitted C (as LOP3 truth tables and as C expressions).

Usage: scripts/gen_sm4_bs_sbox.py [--abc berkeley-abc]
Needs berkeley-abc (apt-get install berkeley-abc); CI does not run this.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bs_sbox_affine as sb  # noqa: E402
import gen_aes_bs_sbox as aes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "src/cores/sm4/sm4_sbox.h")

# The S-box as GB/T 32907-2016 section 6.2 (and draft-ribose-cfrg-sm4 section 6.2)
# print it: row r, column c is S(16r + c).
STANDARD_TABLE = """
d6 90 e9 fe cc e1 3d b7 16 b6 14 c2 28 fb 2c 05
2b 67 9a 76 2a be 04 c3 aa 44 13 26 49 86 06 99
9c 42 50 f4 91 ef 98 7a 33 54 0b 43 ed cf ac 62
e4 b3 1c a9 c9 08 e8 95 80 df 94 fa 75 8f 3f a6
47 07 a7 fc f3 73 17 ba 83 59 3c 19 e6 85 4f a8
68 6b 81 b2 71 64 da 8b f8 eb 0f 4b 70 56 9d 35
1e 24 0e 5e 63 58 d1 a2 25 22 7c 3b 01 21 78 87
d4 00 46 57 9f d3 27 52 4c 36 02 e7 a0 c4 c8 9e
ea bf 8a d2 40 c7 38 b5 a3 f7 f2 ce f9 61 15 a1
e0 ae 5d a4 9b 34 1a 55 ad 93 32 30 f5 8c b1 e3
1d f6 e2 2e 82 66 ca 60 c0 29 23 ab 0d 53 4e 6f
d5 db 37 45 de fd 8e 2f 03 ff 6a 72 6d 6c 5b 51
8d 1b af 92 bb dd bc 7f 11 d9 5c 41 1f 10 5a d8
0a c1 31 88 a5 cd 7b bd 2d 74 d0 12 b8 e5 b4 b0
89 69 97 4a 0c 96 77 7e 65 b9 f1 09 c5 6e c6 84
18 f0 7d ec 3a dc 4d 20 79 ee 5f 3e d7 cb 39 48
"""

# The key schedule's system parameter FK (GB/T 32907-2016 section 7.3).
FK = (0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc)


# ------------------------------------------------------------ S from its definition

POLY = 0x1f5  # X^8 + X^7 + X^6 + X^5 + X^4 + X^2 + 1
C = 0xd3
ROW0 = (1, 1, 1, 0, 0, 1, 0, 1)  # row 0 of A, column 0 first


def field_mul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= POLY
        b >>= 1
    return r


def field_inv_table():
    inv = [0] * 256
    for x in range(1, 256):
        ys = [y for y in range(1, 256) if field_mul(x, y) == 1]
        if len(ys) != 1:
            sys.exit("the field polynomial is not irreducible")
        inv[x] = ys[0]
    return inv


def mat_a(v):
    """A v: output bit i is the parity of v's bits j where row i, column j = ROW0[j - i]."""
    r = 0
    for i in range(8):
        bit = 0
        for j in range(8):
            bit ^= ROW0[(j - i) % 8] & (v >> j) & 1
        r |= bit << i
    return r


def sbox_by_definition():
    inv = field_inv_table()
    return [mat_a(inv[mat_a(x) ^ C]) ^ C for x in range(256)]


def standard_table():
    t = [int(h, 16) for h in STANDARD_TABLE.split()]
    if len(t) != 256:
        sys.exit("the S-box table has %d entries" % len(t))
    return t


# ------------------------------------------------------------ the composed network

def build_network():
    """The network of S over symbols x0..x7 (bit 0 first). Returns (net, outputs)."""
    psi, phi = sb.field_isomorphism(field_mul)
    m_in = sb.lin_cols(lambda v: phi[mat_a(v)])
    c_in = phi[C]
    m_out = sb.lin_cols(lambda v: mat_a(psi[v]))
    return sb.affine_inversion_network(m_in, c_in, m_out, C)


def outputs_as_temps(luts):
    """emit_function writes an output only at the end, so an output that also feeds
    other functions becomes a temporary plus a copy onto the output (no operation)."""
    used = set(i for _, ins, _ in luts for i in ins)
    inner = {"y%d" % i: "y%d_" % i for i in range(8) if "y%d" % i in used}
    out = [(inner.get(name, name), [inner.get(i, i) for i in ins], tt) for name, ins, tt in luts]
    out += [(y, [t], 2) for y, t in sorted(inner.items())]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--abc", default="berkeley-abc")
    args = ap.parse_args()
    table = standard_table()
    if sbox_by_definition() != table:
        sys.exit("the algebraic description does not give the standard's table")
    if sorted(table) != list(range(256)):
        sys.exit("S is not a permutation")
    net, outs = build_network()
    sb.check_network(net, outs, table, "S")
    gates = sb.gate_count(net, outs)
    print("composed network: %s" % gates, file=sys.stderr)
    cost, luts, script = aes.map_with_abc(net, outs, args.abc)
    src, n = aes.emit_function("bc_sm4_bs_sbox", outputs_as_temps(luts),
                               "S, x[0..7] = bits 0..7 of 32 bytes, in place: %d 3-input functions "
                               "(ABC: %s)." % (cost, script))
    err = aes.check_c(src, table)
    if err:
        sys.exit("emitted C is wrong: " + err)
    print("bc_sm4_bs_sbox: %d LUTs" % cost, file=sys.stderr)
    two = gates["XOR"] + gates["AND"] + gates["OR"] + gates["NOT"]
    hdr = ["/*",
           " * GENERATED by scripts/gen_sm4_bs_sbox.py; do not edit. Regenerate with",
           " *     scripts/gen_sm4_bs_sbox.py    (needs berkeley-abc)",
           " *",
           " * SM4's S-box (GB/T 32907-2016) on 32 bytes at once, bitsliced: S(x) = A inv(A x ^",
           " * 0xd3) ^ 0xd3, inv the inverse in GF(2)[X]/(X^8 + X^7 + X^6 + X^5 + X^4 + X^2 + 1),",
           " * computed by the inversion core of the AES S-box circuit (bc_aes_bs_sbox_k8)",
           " * between linear layers that absorb A, both constants, the field isomorphism and",
           " * AES's affine step. Before mapping: %d two-input gates (%d XOR, %d AND, %d OR,"
           % (two, gates["XOR"], gates["AND"], gates["OR"]),
           " * %d NOT); mapped onto 3-input functions (one LOP3 each on the GPU, the C" % gates["NOT"],
           " * expression elsewhere): %d. Checked against the standard's table on all 256" % cost,
           " * inputs by the generator and against OpenSSL's SM4 by tests/unit/test_sm4_core.cpp.",
           " */",
           "#ifndef BC_CORES_SM4_SBOX_H",
           "#define BC_CORES_SM4_SBOX_H",
           "",
           "#include \"dialect/bc_dialect.h\"",
           "/* BC_AES_LUT3: one 3-input function (a LOP3 with its truth table on CUDA). */",
           "#include \"cores/aes/aes_bitsliced_lut3.h\"",
           "",
           "#define BC_SM4_SBOX_LUTS %d" % cost,
           "",
           "/* The key schedule's system parameter FK0..FK3 (GB/T 32907-2016 7.3). */"]
    for i, v in enumerate(FK):
        hdr.append("#define BC_SM4_FK%d 0x%08xu" % (i, v))
    hdr += ["", ""]
    open(OUT, "w").write("\n".join(hdr) + src + "\n\n#endif /* BC_CORES_SM4_SBOX_H */\n")
    print("wrote " + OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
