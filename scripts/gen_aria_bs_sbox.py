#!/usr/bin/env python3
"""Generates src/cores/aria/aria_sbox.h: ARIA's S-boxes SB2 and SB4 (RFC 5794) and its
diffusion layer A as networks of 3-input functions, one GPU LOP3 each, for the
bitsliced core, and the key schedule's constants CK1..CK3.

The S-boxes from their definition (the ARIA specification, section 2.4.2; RFC 5794
gives the tables), over AES's field GF(2)[X]/(X^8 + X^4 + X^3 + X + 1), bit 0 the
coefficient of X^0:
    SB1(x) = A x^-1 ^ 0x63      (AES's S-box: bc_aes_bs_sbox of aes_bitsliced.h)
    SB2(x) = B x^247 ^ 0xe2     (B the 8x8 binary matrix below)
    SB3 = SB1^-1                (AES's inverse S-box: bc_aes_bs_inv_sbox)
    SB4 = SB2^-1
x^247 = (x^-1)^8 and squaring is linear, so SB2 is inversion between linear layers:
    SB2(x) = (B o F^3)(inv(x)) ^ 0xe2,  SB4(y) = inv((F^5 o B^-1)(y ^ 0xe2)),
F the Frobenius map x -> x^2 (F^8 = 1). Both go through bs_sbox_affine's
affine_inversion_network (the inversion core of the AES S-box circuit between linear
layers rebuilt by Paar's greedy) and ABC maps them onto 3-input functions.

The diffusion layer A (RFC 5794 2.4.3) is a 16x16 binary matrix over bytes, so per bit
plane the same XOR network of 16 words. The core XORs the next round key into A's
outputs, so the network computed here is y = A x ^ k (32 inputs, 16 outputs); Paar's
greedy with several tie-breaks gives XOR networks that ABC maps onto 3-input functions,
and the smallest mapping is kept.

CK1..CK3 are the first 384 bits of the fraction of 1/pi (the specification's
definition), computed here with integers.

Every network is checked: the S-boxes on all 256 inputs against the tables computed
from the definitions (as networks and as the emitted C), the diffusion on every unit
vector and on random ones against A from its definition.

Usage: scripts/gen_aria_bs_sbox.py [--abc berkeley-abc]
Needs berkeley-abc (apt-get install berkeley-abc); CI does not run this.
"""
import argparse
import itertools
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bs_sbox_affine as sb  # noqa: E402
import gen_aes_bs_sbox as aes  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "src/cores/aria/aria_sbox.h")


# ------------------------------------------------------------ the S-boxes from their definition

def gf_pow(x, e):
    r = 1
    for _ in range(e):
        r = aes.gf_mul(r, x)
    return r


def rows_to_cols(rows):
    """An 8x8 binary matrix given by rows (row i = output bit i, column j = input bit j,
    the specification's layout) as its column images."""
    return [sum(rows[i][j] << i for i in range(8)) for j in range(8)]


# ARIA specification 2.4.2: the matrix B of SB2 and its constant (bit 0 first: 0,1,0,0,0,1,1,1).
B_ROWS = [
    [0, 1, 0, 1, 1, 1, 1, 0],
    [0, 0, 1, 1, 1, 1, 0, 1],
    [1, 1, 0, 1, 0, 1, 1, 1],
    [1, 0, 0, 1, 1, 1, 0, 1],
    [0, 0, 1, 0, 1, 1, 0, 0],
    [1, 0, 0, 0, 0, 0, 0, 1],
    [0, 1, 0, 1, 1, 1, 0, 1],
    [1, 1, 0, 1, 0, 0, 1, 1],
]
B_CONST = 0xE2


def invert_cols(cols):
    """The inverse of a linear map of bytes given as column images."""
    table = [sb.apply_cols(cols, v) for v in range(256)]
    if len(set(table)) != 256:
        sys.exit("the map is not invertible")
    inv = [0] * 256
    for v in range(256):
        inv[table[v]] = v
    return sb.lin_cols(lambda v: inv[v])


def sbox_tables():
    s1, s3 = aes.sbox_table()
    b = rows_to_cols(B_ROWS)
    s2 = [sb.apply_cols(b, gf_pow(x, 247)) ^ B_CONST for x in range(256)]
    if sorted(s2) != list(range(256)):
        sys.exit("SB2 is not a permutation")
    s4 = [0] * 256
    for x in range(256):
        s4[s2[x]] = x
    return s1, s2, s3, s4


def build_sb2_network():
    b = rows_to_cols(B_ROWS)
    frob3 = sb.lin_cols(lambda v: gf_pow(v, 8))
    m_out = sb.lin_cols(lambda v: sb.apply_cols(b, sb.apply_cols(frob3, v)))
    ident = sb.lin_cols(lambda v: v)
    return sb.affine_inversion_network(ident, 0, m_out, B_CONST)


def build_sb4_network():
    b_inv = invert_cols(rows_to_cols(B_ROWS))
    frob5 = sb.lin_cols(lambda v: gf_pow(v, 32))
    m_in = sb.lin_cols(lambda v: sb.apply_cols(frob5, sb.apply_cols(b_inv, v)))
    c_in = sb.apply_cols(m_in, B_CONST)
    ident = sb.lin_cols(lambda v: v)
    return sb.affine_inversion_network(m_in, c_in, ident, 0)


# ------------------------------------------------------------ the diffusion layer

# RFC 5794 2.4.3: output byte i of A is the XOR of these input bytes.
A_TERMS = [
    [3, 4, 6, 8, 9, 13, 14], [2, 5, 7, 8, 9, 12, 15], [1, 4, 6, 10, 11, 12, 15], [0, 5, 7, 10, 11, 13, 14],
    [0, 2, 5, 8, 11, 14, 15], [1, 3, 4, 9, 10, 14, 15], [0, 2, 7, 9, 10, 12, 13], [1, 3, 6, 8, 11, 12, 13],
    [0, 1, 4, 7, 10, 13, 15], [0, 1, 5, 6, 11, 12, 14], [2, 3, 5, 6, 8, 13, 15], [2, 3, 4, 7, 9, 12, 14],
    [1, 2, 6, 7, 9, 11, 12], [0, 3, 6, 7, 8, 10, 13], [0, 3, 4, 5, 9, 11, 14], [1, 2, 4, 5, 8, 10, 15],
]

# Inputs of the diffusion network: x0..x15 (bit b of bytes 0..15), k0..k15 (the key).
DIFF_INPUTS = ["x%d" % i for i in range(16)] + ["k%d" % i for i in range(16)]


def diffusion_targets():
    """y_i = A x ^ k_i as masks over DIFF_INPUTS."""
    return [sum(1 << j for j in A_TERMS[i]) | (1 << (16 + i)) for i in range(16)]


def paar_xor(targets, n_in, rnd):
    """Paar's greedy over XOR2 with random tie-breaks. Returns (gates, outputs): gates a
    list of (a, b) signal pairs, signal n_in + g the output of gate g."""
    rows = [set(i for i in range(n_in) if (t >> i) & 1) for t in targets]
    gates = []
    while any(len(r) > 1 for r in rows):
        count = {}
        for r in rows:
            if len(r) > 1:
                for p in itertools.combinations(sorted(r), 2):
                    count[p] = count.get(p, 0) + 1
        top = max(count.values())
        a, b = rnd.choice(sorted(p for p, c in count.items() if c == top))
        gates.append((a, b))
        k = n_in + len(gates) - 1
        for r in rows:
            if a in r and b in r:
                r.discard(a)
                r.discard(b)
                r.add(k)
    return gates, [next(iter(r)) for r in rows]


def write_xor_blif(gates, outs, n_in, path):
    name = lambda s: DIFF_INPUTS[s] if s < n_in else "n%d" % s
    lines = [".model diffusion", ".inputs " + " ".join(DIFF_INPUTS[:n_in]),
             ".outputs " + " ".join("y%d" % i for i in range(len(outs)))]
    for g, (a, b) in enumerate(gates):
        lines += [".names %s %s n%d" % (name(a), name(b), n_in + g), "10 1", "01 1"]
    for i, o in enumerate(outs):
        lines += [".names %s y%d" % (name(o), i), "1 1"]
    lines.append(".end")
    open(path, "w").write("\n".join(lines) + "\n")


# Tried (2026-12, berkeley-abc 1.01 of Debian 12) on the diffusion with the key: these
# two give 38-41 LUTs over 60 tie-breaks; A alone maps to 32 (naively 48 3-input XORs),
# A and the key XOR apart to 32 + 16 = 48.
DIFF_SCRIPTS = [
    "strash; dch -f; if -K 3 -a",
    "strash; dch; if -K 3 -a; mfs",
]
DIFF_SEEDS = 60


def map_diffusion(abc):
    targets = diffusion_targets()
    n_in = len(DIFF_INPUTS)
    best = None
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.blif")
        for seed in range(DIFF_SEEDS):
            gates, outs = paar_xor(targets, n_in, random.Random(seed))
            write_xor_blif(gates, outs, n_in, src)
            for i, script in enumerate(DIFF_SCRIPTS):
                dst = os.path.join(d, "out%d_%d.blif" % (seed, i))
                subprocess.run([abc, "-c", "read_blif %s; %s; write_blif %s" % (src, script, dst)],
                               capture_output=True, text=True)
                if not os.path.exists(dst):
                    continue
                luts = aes.read_blif(dst)
                if any(len(ins) > 3 for _, ins, _ in luts):
                    continue
                cost = aes.lut_cost(luts)
                if best is None or cost < best[0]:
                    best = (cost, luts, "Paar tie-break %d; %s" % (seed, script))
    if best is None:
        sys.exit("no ABC script gave a 3-input mapping of the diffusion")
    return best


def emit_diffusion(fname, luts, doc):
    """The mapped diffusion as a BC_FN over one bit plane: x_p = s[8p], k_p = k[8p];
    y_p goes to s[8p]. Returns (source, instruction count)."""
    table = aes.expr_table()
    known = set(DIFF_INPUTS)
    order, pending = [], list(luts)
    while pending:
        rest = [l for l in pending if not all(i in known for i in l[1])]
        for l in pending:
            if l not in rest:
                order.append(l)
                known.add(l[0])
        if len(rest) == len(pending):
            sys.exit("cycle in the mapped diffusion")
        pending = rest
    temps = {}
    name_of = lambda n: n if n in DIFF_INPUTS else temps[n]
    body, final = [], {}
    for name, ins, tt in order:
        m = re.match(r"y(\d+)$", name)
        if m and len(ins) == 1 and tt == 2:  # a buffer onto an output
            final[int(m.group(1))] = name_of(ins[0])
            continue
        temps[name] = "t%d" % len(temps)
        body.append("    const bc_u32 %s = %s;" % (temps[name], aes.lut_expr(table, ins, tt, name_of)))
        if m:
            final[int(m.group(1))] = temps[name]
    if sorted(final) != list(range(16)):
        sys.exit("the mapped diffusion lacks an output")
    lines = ["/* %s */" % doc,
             "BC_FN void %s(bc_u32 *s, const BC_ARIA_KS_SPACE bc_u32 *k) {" % fname]
    lines.append("    const bc_u32 " + ", ".join("x%d = s[%d]" % (p, 8 * p) for p in range(8)) + ";")
    lines.append("    const bc_u32 " + ", ".join("x%d = s[%d]" % (p, 8 * p) for p in range(8, 16)) + ";")
    lines.append("    const bc_u32 " + ", ".join("k%d = k[%d]" % (p, 8 * p) for p in range(8)) + ";")
    lines.append("    const bc_u32 " + ", ".join("k%d = k[%d]" % (p, 8 * p) for p in range(8, 16)) + ";")
    lines += body
    for p in range(16):
        lines.append("    s[%d] = %s;" % (8 * p, final[p]))
    lines.append("}")
    return "\n".join(lines), len(body)


def check_diffusion_c(src):
    """Runs the emitted function on unit and random vectors (32 lanes a word)."""
    rnd = random.Random(1)
    vecs = [1 << i for i in range(32)] + [rnd.getrandbits(32) for _ in range(64)]
    for v in vecs:
        # lane j of the words: bit j of a per-lane variant, so 32 inputs at once
        env = {}
        for i, n in enumerate(DIFF_INPUTS):
            env[n] = (0xFFFFFFFF if (v >> i) & 1 else 0) ^ rnd.getrandbits(32)
        want = []
        for p in range(16):
            w = env["k%d" % p]
            for j in A_TERMS[p]:
                w ^= env["x%d" % j]
            want.append(w)
        for line in src.split("\n"):
            m = re.match(r"\s*const bc_u32 (t\d+) = (.*);$", line)
            if m:
                env[m.group(1)] = aes.eval_lut3(m.group(2), env)
                continue
            m = re.match(r"\s*s\[(\d+)\] = (\w+);$", line)
            if m:
                if env[m.group(2)] != want[int(m.group(1)) // 8]:
                    return "output byte %d wrong" % (int(m.group(1)) // 8)
    return None


# ------------------------------------------------------------ constants

def ck_constants():
    """CK1 || CK2 || CK3: the first 384 bits of the fraction of 1/pi, pi by Machin's
    formula in fixed point with 64 guard bits."""
    bits = 384 + 64
    one = 1 << bits

    def arctan_inv(x):
        total = term = one // x
        n, x2, sign = 1, x * x, -1
        while term:
            term //= x2
            n += 2
            total += sign * (term // n)
            sign = -sign
        return total

    pi = 4 * (4 * arctan_inv(5) - arctan_inv(239))  # pi * 2^bits
    frac = ((1 << (384 + bits)) // pi) & ((1 << 384) - 1)
    return [(frac >> (256 - 128 * i)) & ((1 << 128) - 1) for i in range(3)]


# ------------------------------------------------------------ main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--abc", default="berkeley-abc")
    args = ap.parse_args()
    s1, s2, s3, s4 = sbox_tables()
    funcs, counts, gates = [], {}, {}
    for fname, what, build, table in (("bc_aria_bs_sb2", "SB2", build_sb2_network, s2),
                                      ("bc_aria_bs_sb4", "SB4", build_sb4_network, s4)):
        net, outs = build()
        sb.check_network(net, outs, table, what)
        gates[what] = sb.gate_count(net, outs)
        print("%s composed network: %s" % (what, gates[what]), file=sys.stderr)
        cost, luts, script = aes.map_with_abc(net, outs, args.abc)
        src, n = aes.emit_function(fname, luts, "%s, x[0..7] = bits 0..7 of 32 bytes, in place: %d 3-input "
                                   "functions (ABC: %s)." % (what, cost, script))
        err = aes.check_c(src, table)
        if err:
            sys.exit("emitted %s is wrong: %s" % (what, err))
        print("%s: %d LUTs" % (fname, cost), file=sys.stderr)
        funcs.append(src)
        counts[what] = cost
    cost, luts, script = map_diffusion(args.abc)
    dsrc, n = emit_diffusion("bc_aria_bs_diffuse_key", luts,
                             "y = A x ^ k on bit plane b: s = state + b, k = round key masks + b "
                             "(x_p = s[8p], k_p = k[8p]); %d 3-input functions (%s)." % (cost, script))
    err = check_diffusion_c(dsrc)
    if err:
        sys.exit("emitted diffusion is wrong: " + err)
    if n != cost:
        sys.exit("the emitted diffusion has %d functions, the mapping %d" % (n, cost))
    print("bc_aria_bs_diffuse_key: %d LUTs" % n, file=sys.stderr)
    counts["A"] = n

    def two(g):
        return g["XOR"] + g["AND"] + g["OR"] + g["NOT"]

    hdr = ["/*",
           " * GENERATED by scripts/gen_aria_bs_sbox.py; do not edit. Regenerate with",
           " *     scripts/gen_aria_bs_sbox.py    (needs berkeley-abc)",
           " *",
           " * ARIA's S-boxes SB2 and SB4 = SB2^-1 (RFC 5794) on 32 bytes at once, bitsliced:",
           " * SB2(x) = B x^247 ^ 0xe2 over AES's field, x^247 = (x^-1)^8, so both are the",
           " * inversion core of the AES S-box circuit (bc_aes_bs_sbox_k8) between linear layers",
           " * that absorb B, the Frobenius powers, the constant and AES's affine step. Before",
           " * mapping: SB2 %d two-input gates (%d XOR, %d AND, %d OR, %d NOT), SB4 %d (%d, %d, %d, %d);"
           % ((two(gates["SB2"]), gates["SB2"]["XOR"], gates["SB2"]["AND"], gates["SB2"]["OR"], gates["SB2"]["NOT"],
               two(gates["SB4"]), gates["SB4"]["XOR"], gates["SB4"]["AND"], gates["SB4"]["OR"], gates["SB4"]["NOT"])),
           " * mapped onto 3-input functions (one LOP3 each on the GPU, the C expression",
           " * elsewhere): SB2 %d, SB4 %d. SB1 and SB3 are AES's S-box and its inverse" % (counts["SB2"], counts["SB4"]),
           " * (bc_aes_bs_sbox, bc_aes_bs_inv_sbox of aes_bitsliced.h).",
           " * The diffusion layer A with the next round key XORed in, per bit plane: %d 3-input" % counts["A"],
           " * functions (A alone written as 7-input XORs would be 48; A then the key 64).",
           " * Checked against the definitions (S-boxes on all 256 inputs, A on unit and random",
           " * vectors) by the generator and against OpenSSL's ARIA by tests/unit/test_aria_core.cpp.",
           " */",
           "#ifndef BC_CORES_ARIA_SBOX_H",
           "#define BC_CORES_ARIA_SBOX_H",
           "",
           "#include \"dialect/bc_dialect.h\"",
           "/* BC_AES_LUT3: one 3-input function (a LOP3 with its truth table on CUDA). */",
           "#include \"cores/aes/aes_bitsliced_lut3.h\"",
           "",
           "#ifndef BC_ARIA_KS_SPACE",
           "#define BC_ARIA_KS_SPACE BC_GLOBAL /* where the expanded key lives */",
           "#endif",
           "",
           "#define BC_ARIA_SB2_LUTS %d" % counts["SB2"],
           "#define BC_ARIA_SB4_LUTS %d" % counts["SB4"],
           "#define BC_ARIA_DIFFUSE_KEY_LUTS %d" % counts["A"],
           "",
           "/* The key schedule's constants CK1..CK3 (RFC 5794 2.2: the first 384 bits of the",
           " * fraction of 1/pi), as 32-bit words, most significant first. */"]
    for i, ck in enumerate(ck_constants()):
        words = ["0x%08xu" % ((ck >> (96 - 32 * w)) & 0xFFFFFFFF) for w in range(4)]
        hdr.append("#define BC_ARIA_CK%d {%s}" % (i + 1, ", ".join(words)))
    hdr += ["", ""]
    body = "\n\n".join(funcs + [dsrc])
    open(OUT, "w").write("\n".join(hdr) + body + "\n\n#endif /* BC_CORES_ARIA_SBOX_H */\n")
    print("wrote " + OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
