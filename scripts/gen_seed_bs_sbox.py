#!/usr/bin/env python3
"""Generates src/cores/seed/seed_sbox.h: SEED's S-boxes S1 and S2 (RFC 4269) as
networks of 3-input functions, one GPU LOP3 each, for the bitsliced core.

SEED's S-boxes are power maps in GF(2^8) = GF(2)[x]/(x^8 + x^6 + x^5 + x + 1)
followed by affine maps (the KISA specification; RFC 4269 tabulates them inside
its SS0..SS3 tables):
    S1(x) = A(1) . x^247 ^ 169,    S2(x) = A(2) . x^251 ^ 56.
x^247 = (x^-1)^8 and x^251 = (x^-1)^4: the inverse (0 -> 0) followed by three or two
squarings, which are linear. So each S-box is L o inv_SEED with L = A o Sq^k linear,
and inv_SEED = psi o inv_AES o phi for the field isomorphism psi (AES's
representation -> SEED's), which is what scripts/bs_sbox_affine.py builds:
    M_in = phi, c_in = 0, M_out = A o Sq^k o psi, c_out = 169 or 56.

A(1) and A(2) are recovered here from the first sixteen entries of S1 and S2 as RFC
4269 Appendix A publishes them (SS0[x] and SS1[x] hold S1(x) and S2(x) under the
masks 0xfc, 0xf3, 0xcf, 0x3f, whose union is every bit): 15 equations each for the 8
columns of the matrix, so the solution is over-determined and checked. The full
tables then follow from the definition; each must be a permutation, and the network
is checked against it on all 256 inputs, here and in the emitted C. The key
schedule's constant KC0 (the golden ratio's fraction, 2^32 (sqrt(5) - 1) / 2) is
emitted beside them.

Usage: scripts/gen_seed_bs_sbox.py [--abc berkeley-abc]
Needs berkeley-abc (apt-get install berkeley-abc); CI does not run this.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bs_sbox_affine as sb  # noqa: E402
import gen_aes_bs_sbox as aes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "src/cores/seed/seed_sbox.h")

POLY = 0x163  # x^8 + x^6 + x^5 + x + 1

# RFC 4269 Appendix A: S1(0..15) and S2(0..15), read off SS0[0..15] and SS1[0..15].
S1_HEAD = [0xa9, 0x85, 0xd6, 0xd3, 0x54, 0x1d, 0xac, 0x25, 0x5d, 0x43, 0x18, 0x1e, 0x51, 0xfc, 0xca, 0x63]
S2_HEAD = [0x38, 0xe8, 0x2d, 0xa6, 0xcf, 0xde, 0xb3, 0xb8, 0xaf, 0x60, 0x55, 0xc7, 0x44, 0x6f, 0x6b, 0x5b]


def seed_mul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if a & 0x100:
            a ^= POLY
    return r


def seed_pow(x, e):
    r = 1
    for _ in range(e):
        r = seed_mul(r, x)
    return r


def solve_linear(points):
    """The linear map L of bytes (column images) with L(u) = v for every (u, v);
    exits unless the points determine one map and all agree with it."""
    basis = {}  # pivot bit -> (u, v)
    for u, v in points:
        for b in range(7, -1, -1):
            if not (u >> b) & 1:
                continue
            if b in basis:
                u ^= basis[b][0]
                v ^= basis[b][1]
            else:
                basis[b] = (u, v)
                break
        else:
            if v:
                sys.exit("the published S-box entries are not an affine map of the power map")
    if len(basis) != 8:
        sys.exit("the published entries do not determine the affine map")
    cols = []
    for i in range(8):
        u, v = 1 << i, 0
        for b in range(7, -1, -1):
            if (u >> b) & 1:
                u ^= basis[b][0]
                v ^= basis[b][1]
        cols.append(v)
    return cols


def affine_of(head, power, const):
    """A of S(x) = A . x^power ^ const, from S(0..15)."""
    if head[0] != const:
        sys.exit("S(0) is not the constant")
    return solve_linear([(seed_pow(x, power), head[x] ^ const) for x in range(1, len(head))])


def sq(v, times):
    for _ in range(times):
        v = seed_mul(v, v)
    return v


def build(name, head, power, squarings, const):
    a = affine_of(head, power, const)
    table = [sb.apply_cols(a, seed_pow(x, power)) ^ const for x in range(256)]
    if sorted(table) != list(range(256)):
        sys.exit("%s is not a permutation" % name)
    if table[:len(head)] != head:
        sys.exit("%s disagrees with the published entries" % name)
    psi, phi = sb.field_isomorphism(seed_mul)
    m_in = sb.lin_cols(lambda v: phi[v])
    m_out = sb.lin_cols(lambda v: sb.apply_cols(a, sq(psi[v], squarings)))
    net, outs = sb.affine_inversion_network(m_in, 0, m_out, const)
    sb.check_network(net, outs, table, name)
    return a, table, net, outs


def kc0():
    """floor(2^32 (sqrt(5) - 1) / 2)."""
    return (math.isqrt(5 << 64) - (1 << 32)) // 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--abc", default="berkeley-abc")
    args = ap.parse_args()
    parts, counts, notes = [], {}, []
    for name, fname, head, power, squarings, const in (
            ("S1", "bc_seed_bs_s1", S1_HEAD, 247, 3, 169),
            ("S2", "bc_seed_bs_s2", S2_HEAD, 251, 2, 56)):
        a, table, net, outs = build(name, head, power, squarings, const)
        gates = sb.gate_count(net, outs)
        print("%s composed network: %s" % (name, gates), file=sys.stderr)
        cost, luts, script = aes.map_with_abc(net, outs, args.abc)
        src, _ = aes.emit_function(fname, luts, "%s, x[0..7] = bits 0..7 of 32 bytes, in place: %d 3-input "
                                   "functions (ABC: %s)." % (name, cost, script))
        err = aes.check_c(src, table)
        if err:
            sys.exit("%s: emitted C is wrong: %s" % (fname, err))
        print("%s: %d LUTs" % (fname, cost), file=sys.stderr)
        parts.append(src)
        counts[name] = cost
        two = gates["XOR"] + gates["AND"] + gates["OR"] + gates["NOT"]
        notes.append(" * %s: A(%s) columns (images of bits 0..7) %s; before mapping %d two-input gates"
                     % (name, name[1], " ".join("%02x" % c for c in a), two))
        notes.append(" *     (%d XOR, %d AND, %d OR, %d NOT), mapped: %d 3-input functions."
                     % (gates["XOR"], gates["AND"], gates["OR"], gates["NOT"], cost))
    k = kc0()
    if k != 0x9e3779b9:
        sys.exit("KC0 is wrong")
    hdr = ["/*",
           " * GENERATED by scripts/gen_seed_bs_sbox.py; do not edit. Regenerate with",
           " *     scripts/gen_seed_bs_sbox.py    (needs berkeley-abc)",
           " *",
           " * SEED's S-boxes (RFC 4269) on 32 bytes at once, bitsliced: S1(x) = A(1) x^247 ^ 169,",
           " * S2(x) = A(2) x^251 ^ 56 in GF(2)[x]/(x^8 + x^6 + x^5 + x + 1); x^247 and x^251 are",
           " * the inverse followed by 3 or 2 squarings, so each is the inversion core of the AES",
           " * S-box circuit (bc_aes_bs_sbox_k8) between linear layers that absorb the field",
           " * isomorphism, the squarings, A and the constant.",
           ] + notes + [
           " * Checked against the S-boxes from their definition on all 256 inputs by the",
           " * generator and against OpenSSL's SEED by tests/unit/test_seed_core.cpp.",
           " */",
           "#ifndef BC_CORES_SEED_SBOX_H",
           "#define BC_CORES_SEED_SBOX_H",
           "",
           "#include \"dialect/bc_dialect.h\"",
           "/* BC_AES_LUT3: one 3-input function (a LOP3 with its truth table on CUDA). */",
           "#include \"cores/aes/aes_bitsliced_lut3.h\"",
           "",
           "#define BC_SEED_S1_LUTS %d" % counts["S1"],
           "#define BC_SEED_S2_LUTS %d" % counts["S2"],
           "",
           "/* The key schedule's KC0 (RFC 4269 2.2); KC_i = KC0 <<< i. */",
           "#define BC_SEED_KC0 0x%08xu" % k,
           "",
           ""]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    open(OUT, "w").write("\n".join(hdr) + "\n\n".join(parts) + "\n\n#endif /* BC_CORES_SEED_SBOX_H */\n")
    print("wrote " + OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
