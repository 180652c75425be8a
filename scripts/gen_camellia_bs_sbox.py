#!/usr/bin/env python3
"""Generates src/cores/camellia/camellia_sbox.h: Camellia's S-box s1 (RFC 3713) as a
network of 3-input functions, one GPU LOP3 each, for the bitsliced core.

s1 from its definition (the Camellia paper, section 2.4; RFC 3713 gives the table):
    s1(x) = h(g(f(x ^ 0xc5))) ^ 0x6e,
f and h linear maps of GF(2)^8, g the multiplicative inverse (0 -> 0) in GF(2^8)
built as GF(2^4)[beta]/(beta^2 + beta + lambda), GF(2^4) = GF(2)[alpha]/(alpha^4 +
alpha + 1), lambda = alpha^3 + 1; the byte a1..a8 (a1 the most significant bit)
is the element (a8 + a7 alpha + a6 alpha^2 + a5 alpha^3) + (a4 + a3 alpha + a2
alpha^2 + a1 alpha^3) beta.

Every representation of GF(2^8) is isomorphic to AES's (GF(2)[X]/(X^8 + X^4 + X^3 +
X + 1)) through a linear map, so g = psi o inv_AES o phi with phi = psi^-1, and
    s1(x) = h(psi(inv_AES(phi(f(x)) ^ phi(f(0xc5))))) ^ 0x6e.
The inversion is the non-linear middle of the AES S-box circuit (bc_aes_bs_sbox_k8 in
aes_bitsliced.h, parsed as scripts/gen_aes_bs_sbox.py does): inv_AES = A' o S_AES,
A' the inverse of AES's affine step. The input map phi o f (with its constant) is
composed into the circuit's top linear layer and A', psi, h and 0x6e into its bottom
layer, each rebuilt as XORs by Paar's greedy; ABC then maps the whole network onto
3-input functions. The network is checked against s1 on all 256 inputs, here and in
the emitted C (both as LOP3 truth tables and as C expressions).

Usage: scripts/gen_camellia_bs_sbox.py [--abc berkeley-abc]
Needs berkeley-abc (apt-get install berkeley-abc); CI does not run this.
"""
import argparse
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bs_sbox_affine as sb  # noqa: E402
import gen_aes_bs_sbox as aes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "src/cores/camellia/camellia_sbox.h")


# ------------------------------------------------------------ s1 from its definition

def gf16_mul(a, b):
    r = 0
    for i in range(4):
        if (b >> i) & 1:
            r ^= a << i
    for i in (6, 5, 4):
        if (r >> i) & 1:
            r ^= 0b10011 << (i - 4)  # alpha^4 + alpha + 1
    return r


LAMBDA = 0b1001  # alpha^3 + 1


def tower_mul(x, y):
    """(a0 + a1 beta)(b0 + b1 beta), beta^2 = beta + lambda; low nibble = a0."""
    a0, a1, b0, b1 = x & 15, x >> 4, y & 15, y >> 4
    hh = gf16_mul(a1, b1)
    lo = gf16_mul(a0, b0) ^ gf16_mul(hh, LAMBDA)
    hi = gf16_mul(a0, b1) ^ gf16_mul(a1, b0) ^ hh
    return lo | (hi << 4)


def tower_inv_table():
    inv = [0] * 256
    for x in range(1, 256):
        ys = [y for y in range(1, 256) if tower_mul(x, y) == 1]
        if len(ys) != 1:
            sys.exit("the tower polynomial is not irreducible")
        inv[x] = ys[0]
    return inv


def bits_msb(v):
    """a[1..8], a1 the most significant bit (the paper's numbering); a[0] unused."""
    return [None] + [(v >> (8 - i)) & 1 for i in range(1, 9)]


def from_bits_msb(b):
    return sum(b[i] << (8 - i) for i in range(1, 9))


def cam_f(v):
    a = bits_msb(v)
    return from_bits_msb([None, a[6] ^ a[2], a[7] ^ a[1], a[8] ^ a[5] ^ a[3], a[8] ^ a[3],
                          a[7] ^ a[4], a[5] ^ a[2], a[8] ^ a[1], a[6] ^ a[4]])


def cam_h(v):
    a = bits_msb(v)
    return from_bits_msb([None, a[5] ^ a[6] ^ a[2], a[6] ^ a[2], a[7] ^ a[4], a[8] ^ a[2],
                          a[7] ^ a[3], a[8] ^ a[1], a[5] ^ a[1], a[6] ^ a[3]])


def s1_table():
    inv = tower_inv_table()
    return [cam_h(inv[cam_f(0xc5 ^ x)]) ^ 0x6e for x in range(256)]


# ------------------------------------------------------------ the composed network

def build_s1_network():
    """The network of s1 over symbols x0..x7 (bit 0 first). Returns (net, outputs)."""
    psi, phi = sb.field_isomorphism(tower_mul)
    m_in = sb.lin_cols(lambda v: phi[cam_f(v)])
    c_in = phi[cam_f(0xc5)]
    m_out = sb.lin_cols(lambda v: cam_h(psi[v]))
    return sb.affine_inversion_network(m_in, c_in, m_out, 0x6e)


def sigmas():
    """RFC 3713's Sigma1..Sigma6: bits 4..67 after the point of the square roots of the
    first six primes (the paper's definition), as (high, low) 32-bit halves."""
    out = []
    for p in (2, 3, 5, 7, 11, 13):
        v = math.isqrt(p << 136) & ((1 << 64) - 1)  # floor(sqrt(p) * 2^68) mod 2^64
        out.append((v >> 32, v & 0xFFFFFFFF))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--abc", default="berkeley-abc")
    args = ap.parse_args()
    s1 = s1_table()
    # s2, s3, s4 follow from s1 by rotations; s1 is a permutation
    if sorted(s1) != list(range(256)):
        sys.exit("s1 is not a permutation")
    net, outs = build_s1_network()
    sb.check_network(net, outs, s1, "s1")
    gates = sb.gate_count(net, outs)
    print("composed network: %s" % gates, file=sys.stderr)
    cost, luts, script = aes.map_with_abc(net, outs, args.abc)
    src, n = aes.emit_function("bc_camellia_bs_s1", luts,
                               "s1, x[0..7] = bits 0..7 of 32 bytes, in place: %d 3-input functions "
                               "(ABC: %s)." % (cost, script))
    err = aes.check_c(src, s1)
    if err:
        sys.exit("emitted C is wrong: " + err)
    print("bc_camellia_bs_s1: %d LUTs" % cost, file=sys.stderr)
    two = gates["XOR"] + gates["AND"] + gates["OR"] + gates["NOT"]
    hdr = ["/*",
           " * GENERATED by scripts/gen_camellia_bs_sbox.py; do not edit. Regenerate with",
           " *     scripts/gen_camellia_bs_sbox.py    (needs berkeley-abc)",
           " *",
           " * Camellia's s1 (RFC 3713) on 32 bytes at once, bitsliced: s1 = h o g o f with",
           " * the constants, g the inverse in GF(2^8), computed by the inversion core of the",
           " * AES S-box circuit (bc_aes_bs_sbox_k8) between linear layers that absorb f, h,",
           " * both constants, the field isomorphism and AES's affine step. Before mapping:",
           " * %d two-input gates (%d XOR, %d AND, %d OR, %d NOT); mapped onto 3-input"
           % (two, gates["XOR"], gates["AND"], gates["OR"], gates["NOT"]),
           " * functions (one LOP3 each on the GPU, the C expression elsewhere): %d." % cost,
           " * Checked against s1 from its definition on all 256 inputs by the generator and",
           " * against OpenSSL's Camellia by tests/unit/test_camellia_core.cpp.",
           " * s2, s3 and s4 are s1 with rotated outputs or inputs: renamings in the core.",
           " */",
           "#ifndef BC_CORES_CAMELLIA_SBOX_H",
           "#define BC_CORES_CAMELLIA_SBOX_H",
           "",
           "#include \"dialect/bc_dialect.h\"",
           "/* BC_AES_LUT3: one 3-input function (a LOP3 with its truth table on CUDA). */",
           "#include \"cores/aes/aes_bitsliced_lut3.h\"",
           "",
           "#define BC_CAMELLIA_S1_LUTS %d" % cost,
           "",
           "/* The key schedule's constants Sigma1..Sigma6 (RFC 3713 2.2), high and low 32 bits. */"]
    for i, (hi, lo) in enumerate(sigmas()):
        hdr.append("#define BC_CAMELLIA_SIGMA%d_HI 0x%08xu" % (i + 1, hi))
        hdr.append("#define BC_CAMELLIA_SIGMA%d_LO 0x%08xu" % (i + 1, lo))
    hdr += ["", ""]
    open(OUT, "w").write("\n".join(hdr) + src + "\n\n#endif /* BC_CORES_CAMELLIA_SBOX_H */\n")
    print("wrote " + OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
