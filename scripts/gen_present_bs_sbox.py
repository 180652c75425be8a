#!/usr/bin/env python3
"""Generates src/cores/present/present_sbox.h: PRESENT's 4-bit S-box and its inverse
(Bogdanov et al., CHES 2007) as networks of 3-input functions, one GPU LOP3 each,
with the round key that follows the S-box layer folded into the outputs.

Why the fold: a round is S-layer, pLayer (a renaming), then the next round key's XOR.
An output whose last gate has two inputs, z = F(p, q) ^ k, is still one 3-input
function of (p, q, k), so the key costs nothing there; an output whose last gate
needs three inputs pays one XOR more. The search below minimises gates + XORs:
every output must end up a 2-input function of the signals computed so far (an
output computed as a 3-input gate counts that gate, then XOR).

The search works on truth tables over the 16 inputs (bit r of a table: the value
at input r; input bit i of r is x_i). Eagerly, any output that is a 2-input function
of the signals is finished (one gate, with the key). Otherwise it branches over the
ways of finishing one output: a pair (p, q) with y = F(p, q), each of p and q a
signal or a 3-input function of the signals (adding the new ones as gates), or y
itself as a 3-input gate. Depth-first, cheapest branches first, cut at the best
found (branch and bound). It covers the networks in which each gate is at most one
level above the signals present when its output is finished; not every network, so
the count is the best found, not proved minimal. Both directions come out at 10 (6
gates and 4 outputs with the key folded), against 12 for the plain S-box (8 in a
search of this kind) and a separate XOR layer.

The emitted C is checked on all 16 inputs and all 16 key nibbles, both as LOP3
truth tables and as the C expressions the host compiles.

Usage: scripts/gen_present_bs_sbox.py    (a few minutes; pure Python)
"""
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_aes_bs_sbox as aes  # noqa: E402  (expr_table: short C forms of 3-input tables)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "src/cores/present/present_sbox.h")

# The S-box of the PRESENT paper (CHES 2007, Table 1): S[x] for x = 0..15.
SBOX = [0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2]

FULL = 0xFFFF
# Truth tables of the inputs: x_i is set at every r with bit i of r set.
X = [sum(1 << r for r in range(16) if (r >> i) & 1) for i in range(4)]


def output_tables(table):
    return [sum(1 << r for r in range(16) if (table[r] >> b) & 1) for b in range(4)]


def minterms(sigs):
    """Masks of the rows where sigs take each combination (first signal = high bit)."""
    k = len(sigs)
    out = []
    for m in range(1 << k):
        v = FULL
        for i, s in enumerate(sigs):
            v &= s if (m >> (k - 1 - i)) & 1 else ~s & FULL
        out.append(v)
    return out


def function_of(y, sigs):
    """The truth table (over sigs' minterms) of y as a function of sigs, or None."""
    t = 0
    for m, mask in enumerate(minterms(sigs)):
        v = y & mask
        if v and v != mask:
            return None
        if v:
            t |= 1 << m
    return t


def lut3_all(sigs):
    """Every 3-input function of the signals, table -> (fanins, truth table)."""
    out = {}
    for tri in itertools.combinations(sigs, 3):
        mm = minterms(list(tri))
        vals = [0] * 256
        for f in range(1, 256):
            low = f & -f
            vals[f] = vals[f ^ low] | mm[low.bit_length() - 1]
            if vals[f] not in out:
                out[vals[f]] = (tri, f)
    out.pop(0, None)
    out.pop(FULL, None)
    return out


def two_input(y, sigs):
    """(p, q) or (p,) from sigs with y a function of them, else None."""
    if y in sigs:
        return (y,)
    for pq in itertools.combinations(sigs, 2):
        if function_of(y, list(pq)) is not None:
            return pq
    return None


def pair_options(y, pool):
    """Pairs {p, q} of pool with y a 2-input function of them: XOR-like or AND-like."""
    res = set()
    for p in pool:
        for q in (y ^ p, (~y & FULL) ^ p):
            if q in pool and q != p:
                res.add(frozenset((p, q)))
    for t in (y, ~y & FULL):  # y or ~y = p & q: p and q both cover t and meet in t
        sup = [p for p in pool if p & t == t]
        for i in range(len(sup)):
            for j in range(i + 1, len(sup)):
                if sup[i] & sup[j] == t:
                    res.add(frozenset((sup[i], sup[j])))
    return res


class Search:
    def __init__(self, targets):
        self.targets = targets
        self.best = None  # (cost, steps)

    def run(self, bound):
        self.bound = bound
        self.dfs(list(X), list(self.targets), 0, [])
        return self.best

    def dfs(self, sigs, missing, cost, steps):
        sigs, missing, steps = list(sigs), list(missing), list(steps)
        progress = True
        while progress:  # finish every output that is already a 2-input function
            progress = False
            for y in list(missing):
                pq = two_input(y, sigs)
                if pq is not None:
                    missing.remove(y)
                    steps.append(("out", y, pq))
                    cost += 1
                    progress = True
        if not missing:
            if self.best is None or cost < self.best[0]:
                self.best = (cost, steps)
            return
        limit = self.bound if self.best is None else min(self.bound, self.best[0])
        if cost + len(missing) + 1 >= limit:
            return
        pool = lut3_all(sigs)
        have = set(sigs)
        options = set()
        for y in missing:
            for pq in pair_options(y, set(pool) | have):
                options.add(tuple(sorted(v for v in pq if v not in have)))
            if y in pool:
                options.add((y,))
        for new in sorted(options, key=lambda n: (len(n), n)):
            if cost + len(new) + len(missing) >= limit:
                continue
            gates = [("gate", v, pool[v]) for v in new]
            self.dfs(sigs + list(new), missing, cost + len(new), steps + gates)
            limit = self.bound if self.best is None else min(self.bound, self.best[0])


def emit(fname, doc, steps, targets):
    """C function: y[b] = bit b of the S-box output XOR k_b, over 32 lanes."""
    table = aes.expr_table()
    names = {X[i]: "x%d" % i for i in range(4)}
    body = []
    outs = {}
    for step in steps:
        if step[0] == "gate":
            _, v, (fanins, f) = step
            name = "t%d" % len(body)
            body.append("    const bc_u32 %s = %s;" % (name, lut(table, [names[s] for s in fanins], f)))
            names[v] = name
        else:
            _, y, pq = step
            b = targets.index(y)
            f2 = function_of(y, list(pq))
            if len(pq) == 1:  # y itself: y ^ k
                fanins, f3 = [names[pq[0]], "k%d" % b], [0, 1, 1, 0]
                outs[b] = lut(table, fanins, sum(1 << m for m, v in enumerate(f3) if v))
                continue
            # z = F(p, q) ^ k over (p, q, k), k the low bit of the minterm
            f3 = 0
            for m in range(8):
                if ((f2 >> (m >> 1)) & 1) ^ (m & 1):
                    f3 |= 1 << m
            outs[b] = lut(table, [names[pq[0]], names[pq[1]], "k%d" % b], f3)
    lines = ["/* %s */" % doc,
             "BC_FN void %s(bc_u32 x0, bc_u32 x1, bc_u32 x2, bc_u32 x3, bc_u32 k0, bc_u32 k1, bc_u32 k2," % fname,
             "%sbc_u32 k3, bc_u32 *y) {" % (" " * (len("BC_FN void %s(" % fname)))]
    lines += body
    for b in range(4):
        lines.append("    y[%d] = %s;" % (b, outs[b]))
    lines.append("}")
    return "\n".join(lines), len(body) + 4


def lut(table, fanins, f):
    """BC_AES_LUT3(a, b, c, imm, expr) of a table f over 2 or 3 fanins (the first is
    the minterm's high bit); imm in lop3's convention (a = 0xf0, b = 0xcc, c = 0xaa)."""
    k = len(fanins)
    imm = 0
    for m in range(8):
        sub = m >> (3 - k)  # a 2-input table ignores c
        if (f >> sub) & 1:
            imm |= 1 << m
    e = table[imm][0]
    args = fanins + ["0u"] * (3 - k)
    expr = "".join(args["abc".index(ch)] if ch in "abc" else ch for ch in e)
    return "BC_AES_LUT3(%s, %s, %s, 0x%02x, %s)" % (args[0], args[1], args[2], imm, expr)


def check_c(src, table):
    """Evaluates the emitted body on every input nibble and key nibble (32-bit lanes
    all ones or all zero), as lop3 tables and as C expressions."""
    for x in range(16):
        for key in range(16):
            env = {"x%d" % i: (0xFFFFFFFF if (x >> i) & 1 else 0) for i in range(4)}
            env.update({"k%d" % i: (0xFFFFFFFF if (key >> i) & 1 else 0) for i in range(4)})
            y = [None] * 4
            for line in src.split("\n"):
                line = line.strip()
                if not line.startswith(("const bc_u32 t", "y[")):
                    continue
                lhs, rhs = line.rstrip(";").split(" = ", 1)
                val = aes.eval_lut3(rhs, env)
                if lhs.startswith("y["):
                    y[int(lhs[2])] = val
                else:
                    env[lhs.split()[-1]] = val
            got = sum((y[b] & 1) << b for b in range(4))
            if any(v not in (0, 0xFFFFFFFF) for v in y) or got != table[x] ^ key:
                return "x=%x key=%x: %x, want %x" % (x, key, got, table[x] ^ key)
    return None


def main():
    if sorted(SBOX) != list(range(16)):
        sys.exit("the S-box is not a permutation")
    inv = [0] * 16
    for i, v in enumerate(SBOX):
        inv[v] = i
    parts, counts = [], {}
    for name, fname, table in (("S", "bc_present_bs_sbox_k", SBOX), ("S^-1", "bc_present_bs_inv_sbox_k", inv)):
        targets = output_tables(table)
        best = Search(targets).run(13)
        if best is None:
            sys.exit("%s: no network found" % name)
        cost, steps = best
        gates = sum(1 for s in steps if s[0] == "gate")
        doc = ("%s and the key after it: y[b] = bit b of %s(x3 x2 x1 x0) ^ k_b, over 32 lanes; "
               "%d 3-input functions (%d gates, 4 outputs with the key)." % (name, name, cost, gates))
        src, n = emit(fname, doc, steps, targets)
        if n != cost:
            sys.exit("%s: emitted %d functions, searched %d" % (name, n, cost))
        err = check_c(src, table)
        if err:
            sys.exit("%s: emitted C is wrong: %s" % (fname, err))
        print("%s: %d 3-input functions" % (fname, cost), file=sys.stderr)
        parts.append(src)
        counts[name] = cost
    hdr = ["/*",
           " * GENERATED by scripts/gen_present_bs_sbox.py; do not edit. Regenerate with",
           " *     scripts/gen_present_bs_sbox.py",
           " *",
           " * PRESENT's S-box (CHES 2007, Table 1) and its inverse on 32 nibbles at once,",
           " * bitsliced (x_i, y[i]: bit i of the nibbles, bit 0 the least significant), each",
           " * followed by the XOR of four round-key masks k0..k3: an output whose last gate has",
           " * two inputs takes its key bit as the third input of the same 3-input function.",
           " * Found by the generator's search over small networks; checked on all 16 inputs",
           " * and all 16 key nibbles by the generator and against the S-box by",
           " * tests/unit/test_present_core.cpp.",
           " */",
           "#ifndef BC_CORES_PRESENT_SBOX_H",
           "#define BC_CORES_PRESENT_SBOX_H",
           "",
           "#include \"dialect/bc_dialect.h\"",
           "/* BC_AES_LUT3: one 3-input function (a LOP3 with its truth table on CUDA). */",
           "#include \"cores/aes/aes_bitsliced_lut3.h\"",
           "",
           "#define BC_PRESENT_SBOX_LUTS %d" % counts["S"],
           "#define BC_PRESENT_INV_SBOX_LUTS %d" % counts["S^-1"],
           "",
           ""]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    open(OUT, "w").write("\n".join(hdr) + "\n\n".join(parts) + "\n\n#endif /* BC_CORES_PRESENT_SBOX_H */\n")
    print("wrote " + OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
