#!/usr/bin/env python3
"""Generates src/cores/aes/aes_bitsliced_lut3.h: the AES S-box and inverse S-box
as networks of 3-input functions, one per GPU LOP3 instruction.

Why: the bitsliced AES kernels are bound by the integer pipe, and 16 S-boxes a
round are ~75 % of their instructions. ptxas fuses the 128-gate Boyar-Peralta
circuit (bc_aes_bs_sbox_k8 in aes_bitsliced.h) into 94 LOP3; the inverse S-box,
written as inverse affine + forward circuit + inverse affine, costs ~110. Mapping
the whole circuit onto 3-input functions with a LUT mapper (ABC, `&if -K 3`, plus
its resynthesis passes) gives fewer. For the inverse, both inverse affine maps are
composed into the reference's linear layers first (composed_inverse: new XOR
networks by Paar's greedy), which ABC alone does not find (98 LUTs without, 85 with).

Input: the reference circuit, parsed from bc_aes_bs_sbox_k8 in aes_bitsliced.h
(so the reference stays the one reviewed source of the circuit). Output: a header
of two BC_FN functions, each LUT written as a short C expression of its inputs
(every target compiles it; CUDA's ptxas maps each onto one LOP3).
Every function is checked against the S-box computed from GF(2^8) here.

Usage: scripts/gen_aes_bs_sbox.py [--abc berkeley-abc]
Needs berkeley-abc (apt-get install berkeley-abc); CI does not run this.
"""
import argparse
import itertools
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REF = os.path.join(ROOT, "src/cores/aes/aes_bitsliced.h")
OUT = os.path.join(ROOT, "src/cores/aes/aes_bitsliced_lut3.h")


# ------------------------------------------------------------ GF(2^8) reference

def gf_mul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a = ((a << 1) ^ (0x11B if a & 0x80 else 0)) & 0xFF
        b >>= 1
    return r


def sbox_table():
    inv = [0] * 256
    for x in range(1, 256):
        for y in range(1, 256):
            if gf_mul(x, y) == 1:
                inv[x] = y
                break
    rot = lambda v, n: ((v << n) | (v >> (8 - n))) & 0xFF
    s = [0] * 256
    for x in range(256):
        b = inv[x]
        s[x] = b ^ rot(b, 1) ^ rot(b, 2) ^ rot(b, 3) ^ rot(b, 4) ^ 0x63
    inv_s = [0] * 256
    for x in range(256):
        inv_s[s[x]] = x
    return s, inv_s


# ------------------------------------------------------------ symbolic circuit

class Net:
    """A gate network over named inputs; nodes are (op, a, b) tuples, hashed."""

    def __init__(self, inputs):
        self.nodes = []          # index -> (op, a, b); op in IN, XOR, AND, OR, NOT
        self.ids = {}
        self.inputs = [self.add("IN", name, None) for name in inputs]

    def add(self, op, a, b):
        key = (op, a, b)
        if key not in self.ids:
            self.ids[key] = len(self.nodes)
            self.nodes.append(key)
        return self.ids[key]

    def sim(self, outputs, vec):
        """Values of outputs (node ids) for input bits vec (list of 0/1)."""
        val = []
        for op, a, b in self.nodes:
            if op == "IN":
                val.append(vec[len(val)])
            elif op == "NOT":
                val.append(1 - val[a])
            elif op == "XOR":
                val.append(val[a] ^ val[b])
            elif op == "AND":
                val.append(val[a] & val[b])
            else:
                val.append(val[a] | val[b])
        return [val[o] for o in outputs]


class Sym:
    def __init__(self, net, i):
        self.net, self.i = net, i

    def _op(self, op, other):
        return Sym(self.net, self.net.add(op, self.i, other.i))

    def __xor__(self, o):
        return self._op("XOR", o)

    def __and__(self, o):
        return self._op("AND", o)

    def __or__(self, o):
        return self._op("OR", o)

    def __invert__(self):
        return Sym(self.net, self.net.add("NOT", self.i, None))


def reference_body():
    """The statements of bc_aes_bs_sbox_k8 as (target, C expression) pairs."""
    src = open(REF).read()
    m = re.search(r"BC_FN void bc_aes_bs_sbox_k8\([^)]*\)\s*\{(.*?)\n\}", src, re.S)
    if not m:
        sys.exit("bc_aes_bs_sbox_k8 not found in " + REF)
    stmts = []
    for line in m.group(1).split(";"):
        line = re.sub(r"/\*.*?\*/", "", line, flags=re.S).strip()
        if not line:
            continue
        line = re.sub(r"^bc_u32\s+", "", line)
        for part in line.split(","):  # "bc_u32 U0 = x[7], U1 = x[6]"
            part = re.sub(r"^bc_u32\s+", "", part.strip())
            lhs, rhs = (t.strip() for t in part.split("=", 1))
            stmts.append((lhs, rhs))
    return stmts


def forward_circuit(x):
    """Runs the reference circuit on the 8 symbols x (bit 0 first), keys zero."""
    env = {"x": list(x)}
    zero = x[0] ^ x[0]
    for i in range(8):
        env["k%d" % i] = zero
    out = list(x)
    for lhs, rhs in reference_body():
        v = eval(rhs, {}, env)  # the C expressions are Python expressions too
        mm = re.match(r"x\[(\d)\]$", lhs)
        if mm:
            out[int(mm.group(1))] = v
        else:
            env[lhs] = v
    return out


def inv_affine(x, with_const=True):
    """A'(x): y_i = x_{i+2} ^ x_{i+5} ^ x_{i+7} ^ bit i of 0x05."""
    y = [x[(i + 2) % 8] ^ x[(i + 5) % 8] ^ x[(i + 7) % 8] for i in range(8)]
    if with_const:
        y[0], y[2] = ~y[0], ~y[2]
    return y


class Aff:
    """An affine form over GF(2): XOR of the basis signals in mask, plus the constant c."""

    def __init__(self, mask, c=0):
        self.mask, self.c = mask, c

    def __xor__(self, o):
        return Aff(self.mask ^ o.mask, self.c ^ o.c)

    def __invert__(self):
        return Aff(self.mask, self.c ^ 1)


def paar(net, basis, targets):
    """XORs for the linear targets (masks over the Syms in basis), Paar's greedy: the pair
    of signals that occurs in the most targets becomes a new signal, until every target
    is one signal. Returns one Sym per target."""
    sig = list(basis)
    rows = [set(i for i in range(len(basis)) if (t >> i) & 1) for t in targets]
    while True:
        best, pair = 0, None
        cols = sorted(set().union(*rows)) if rows else []
        for a_i, a in enumerate(cols):
            for b in cols[a_i + 1:]:
                n = sum(1 for r in rows if a in r and b in r)
                if n > best:
                    best, pair = n, (a, b)
        if best < 1 or all(len(r) <= 1 for r in rows):
            break
        a, b = pair
        sig.append(sig[a] ^ sig[b])
        k = len(sig) - 1
        for r in rows:
            if a in r and b in r and len(r) > 1:
                r.discard(a)
                r.discard(b)
                r.add(k)
    out = []
    for r in rows:
        if len(r) != 1:
            sys.exit("paar: a target is empty or was not reduced")
        out.append(sig[next(iter(r))])
    return out


def composed_inverse(net, x):
    """The inverse S-box with both inverse affine maps composed into the reference's
    linear layers: invS(y) = inv(z), z = A'(y). The top layer (the signals the non-linear
    middle reads) becomes affine forms of y, the bottom (the 8 outputs) forms of the 18
    products, and each is rebuilt as XORs by Paar's greedy before ABC maps the whole."""
    stmts = reference_body()
    z = inv_affine([Aff(1 << i) for i in range(8)])
    env = {"x": z}
    top = [(l, r) for l, r in stmts if re.match(r"[UT]\d+$", l)]
    mid = [(l, r) for l, r in stmts if re.match(r"M\d+$", l)]
    bot = [(l, r) for l, r in stmts if not re.match(r"[UTM]\d+$", l)]
    for lhs, rhs in top:
        env[lhs] = eval(rhs, {}, env)
    used = sorted(set(n for _, r in mid for n in re.findall(r"\b[UT]\d+\b", r)), key=lambda n: (n[0], int(n[1:])))
    syms = paar(net, x, [env[n].mask for n in used])
    senv = {}
    for n, sym in zip(used, syms):
        senv[n] = ~sym if env[n].c else sym
    for lhs, rhs in mid:
        senv[lhs] = eval(rhs, {}, senv)
    prods = sorted(set(n for _, r in bot for n in re.findall(r"\bM\d+\b", r)), key=lambda n: int(n[1:]))
    benv = {n: Aff(1 << i) for i, n in enumerate(prods)}
    for i in range(8):
        benv["k%d" % i] = Aff(0)
    s_out = [None] * 8
    for lhs, rhs in bot:
        v = eval(rhs, {}, benv)
        mm = re.match(r"x\[(\d)\]$", lhs)
        if mm:
            s_out[int(mm.group(1))] = v
        else:
            benv[lhs] = v
    # inv(z) = A'(S(z)) with A' including its constant (invS = A' o S o A')
    outs = inv_affine(s_out)
    osyms = paar(net, [senv[n] for n in prods], [o.mask for o in outs])
    return [~sym if o.c else sym for sym, o in zip(osyms, outs)]


def build(inverse):
    net = Net(["x%d" % i for i in range(8)])
    x = [Sym(net, i) for i in net.inputs]
    y = composed_inverse(net, x) if inverse else forward_circuit(x)
    return net, [v.i for v in y]


# ------------------------------------------------------------ ABC round trip

def write_blif(net, outputs, path):
    """Only the nodes the outputs reach; XOR as a 2-line cover."""
    live = set()
    stack = list(outputs)
    while stack:
        n = stack.pop()
        if n in live:
            continue
        live.add(n)
        op, a, b = net.nodes[n]
        if op != "IN":
            stack.append(a)
            if b is not None:
                stack.append(b)
    name = lambda n: "x%d" % n if net.nodes[n][0] == "IN" else "n%d" % n
    lines = [".model sbox", ".inputs " + " ".join("x%d" % i for i in range(8)),
             ".outputs " + " ".join("y%d" % i for i in range(8))]
    for n in sorted(live):
        op, a, b = net.nodes[n]
        if op == "IN":
            continue
        if op == "NOT":
            lines += [".names %s %s" % (name(a), name(n)), "0 1"]
        else:
            cover = {"XOR": ["10 1", "01 1"], "AND": ["11 1"], "OR": ["1- 1", "-1 1"]}[op]
            lines += [".names %s %s %s" % (name(a), name(b), name(n))] + cover
    for i, o in enumerate(outputs):
        lines += [".names %s y%d" % (name(o), i), "1 1"]
    lines.append(".end")
    open(path, "w").write("\n".join(lines) + "\n")


def read_blif(path):
    """A mapped network: list of (output, [inputs], truth table over the inputs)."""
    luts, cur = [], None
    for raw in open(path):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(".names"):
            parts = line.split()[1:]
            cur = [parts[-1], parts[:-1], []]
            luts.append(cur)
        elif line.startswith("."):
            cur = None
        elif cur is not None:
            cur[2].append(line)
    out = []
    for name, ins, cover in luts:
        k = len(ins)
        tt = 0
        for m in range(1 << k):
            bits = [(m >> j) & 1 for j in range(k)]  # bit j: input j
            on = False
            for row in cover:
                if k == 0:
                    on = row.strip() == "1"
                    continue
                pat, val = row.split()
                if all(p == "-" or int(p) == b for p, b in zip(pat, bits)):
                    on = val == "1"
                    break
            # a cover of "0" rows lists the off-set
            if cover and cover[0].split()[-1] == "0" and k > 0:
                on = not any(all(p == "-" or int(p) == b for p, b in zip(r.split()[0], bits)) for r in cover)
            if on:
                tt |= 1 << m
        out.append((name, ins, tt))
    return out


# Tried (2026-11-22, berkeley-abc 1.01 of Debian 12): `lutpack` and `&satlut` give
# fewer nodes but with 4 inputs; `mfs2`/`&mfs` change nothing; `&syn2`/`&dc2` first
# make it worse. The forward S-box comes out at 81-86 LUTs, the composed inverse at
# 85-87 (98-105 from inverse affine + circuit + inverse affine).
ABC_SCRIPTS = [
    "strash; dch -f; if -K 3 -a",
    "strash; &get -n; &st; &synch2; &if -K 3 -a; &put",
    "strash; &get -n; &st; &synch2; &if -K 3 -a -F 10 -A 10 -C 16; &put",
    "strash; &get -n; &st; &synch2; &if -K 3 -a -e -F 10 -A 10 -C 32; &put",
]


def map_with_abc(net, outputs, abc):
    """The smallest valid mapping (every LUT of at most 3 inputs) of the scripts."""
    best = None
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.blif")
        write_blif(net, outputs, src)
        for i, script in enumerate(ABC_SCRIPTS):
            dst = os.path.join(d, "out%d.blif" % i)
            r = subprocess.run([abc, "-c", "read_blif %s; %s; write_blif %s" % (src, script, dst)],
                               capture_output=True, text=True)
            if r.returncode != 0 or not os.path.exists(dst):
                print("abc failed on script %d: %s" % (i, r.stderr.strip()[-300:]), file=sys.stderr)
                continue
            luts = read_blif(dst)
            if any(len(ins) > 3 for _, ins, _ in luts):
                print("script %d: LUTs of more than 3 inputs, skipped" % i, file=sys.stderr)
                continue
            cost = lut_cost(luts)
            print("script %d: %d LUTs" % (i, cost), file=sys.stderr)
            if best is None or cost < best[0]:
                best = (cost, luts, script)
    if best is None:
        sys.exit("no ABC script gave a 3-input mapping")
    return best


def lut_cost(luts):
    """Instructions: every LUT of 2 or 3 inputs, and the inverters on outputs."""
    return sum(1 for name, ins, tt in luts if len(ins) >= 2 or (len(ins) == 1 and tt == 1))


# ------------------------------------------------------------ C expressions

def expr_table():
    """A shortest C expression (fewest operators) for each 3-input truth table."""
    A, B, C = 0xF0, 0xCC, 0xAA  # truth tables of inputs a, b, c over 8 minterms
    best = {A: ("a", 0), B: ("b", 0), C: ("c", 0), 0: ("0u", 0), 0xFF: ("~0u", 0)}
    frontier = dict(best)
    for _ in range(5):
        new = {}
        items = list(best.items())
        for t, (e, c) in items:
            nt = (~t) & 0xFF
            cand = ("~%s" % wrap(e), c + 1)
            if nt not in best or best[nt][1] > cand[1]:
                new.setdefault(nt, cand)
                if new[nt][1] > cand[1]:
                    new[nt] = cand
        for (t1, (e1, c1)), (t2, (e2, c2)) in itertools.product(items, items):
            for op, f in (("^", lambda p, q: p ^ q), ("&", lambda p, q: p & q), ("|", lambda p, q: p | q)):
                t = f(t1, t2) & 0xFF
                c = c1 + c2 + 1
                if (t not in best or best[t][1] > c) and (t not in new or new[t][1] > c):
                    new[t] = ("%s %s %s" % (wrap(e1), op, wrap(e2)), c)
        if not new:
            break
        best.update(new)
        if len(best) == 256:
            pass
    return best


def wrap(e):
    return e if re.match(r"^~?[a-z0-9u]+$", e) else "(%s)" % e


def lut_expr(table, ins, tt, name_of):
    """C expression of a LUT over ins (BLIF order: input j = bit j of the minterm)."""
    k = len(ins)
    # spread the k-input table over 3 inputs a (bit 0), b (bit 1), c (bit 2)
    vars3 = ["a", "b", "c"]
    t8 = 0
    for m in range(8):
        sub = 0
        for j in range(k):
            sub |= ((m >> j) & 1) << j
        if (tt >> sub) & 1:
            t8 |= 1 << m
    # expr_table's convention: a = 0xF0 means a is bit 2 of the minterm index
    conv = 0
    for m in range(8):
        a, b, c = m & 1, (m >> 1) & 1, (m >> 2) & 1
        if (t8 >> m) & 1:
            conv |= 1 << ((a << 2) | (b << 1) | c)
    e = table[conv][0]
    names = [name_of(i) for i in ins] + ["0u"] * (3 - k)
    c_expr = re.sub(r"\b([abc])\b", lambda mm: names[vars3.index(mm.group(1))], e)
    # BC_AES_LUT3(a, b, c, truth table, expression): lop3's table convention, a = 0xf0,
    # b = 0xcc, c = 0xaa, which is expr_table's
    return "BC_AES_LUT3(%s, %s, %s, 0x%02x, %s)" % (names[0], names[1], names[2], conv, c_expr)


def emit_function(fname, luts, doc):
    table = expr_table()
    outs = {"y%d" % i: i for i in range(8)}
    # topological order: BLIF from ABC is already ordered, but make sure
    defined = set("x%d" % i for i in range(8))
    order, pending = [], list(luts)
    while pending:
        rest = []
        for l in pending:
            if all(i in defined for i in l[1]):
                order.append(l)
                defined.add(l[0])
            else:
                rest.append(l)
        if len(rest) == len(pending):
            sys.exit("cycle in the mapped network")
        pending = rest
    temps = {}

    def name_of(n):
        if n.startswith("x"):
            return "x" + n[1:]
        return temps[n]

    body = []
    final = {}
    for name, ins, tt in order:
        if name in outs and len(ins) == 1 and tt == 2:  # buffer onto an output
            final[outs[name]] = name_of(ins[0])
            continue
        e = lut_expr(table, ins, tt, name_of)
        if name in outs:
            final[outs[name]] = e
        else:
            temps[name] = "t%d" % len(temps)
            body.append("    const bc_u32 %s = %s;" % (temps[name], e))
    lines = ["/* %s */" % doc, "BC_FN void %s(bc_u32 *x) {" % fname]
    lines.append("    const bc_u32 " + ", ".join("x%d = x[%d]" % (i, i) for i in range(8)) + ";")
    lines += body
    for i in range(8):
        lines.append("    x[%d] = %s;" % (i, final[i]))
    lines.append("}")
    return "\n".join(lines), len(body) + sum(1 for i in range(8) if re.search(r"[\^&|~]", final[i]))


def eval_lut3(call, env):
    """Value of 'BC_AES_LUT3(a, b, c, 0xNN, expr)' both ways: as lop3 and as the expression."""
    m = re.match(r"BC_AES_LUT3\((\w+), (\w+), (\w+), 0x([0-9a-f]{2}), (.*)\)$", call)
    a, b, c = (env.get(n, 0) for n in m.group(1, 2, 3))
    imm = int(m.group(4), 16)
    lop = 0
    for bit in range(32):
        idx = (((a >> bit) & 1) << 2) | (((b >> bit) & 1) << 1) | ((c >> bit) & 1)
        lop |= ((imm >> idx) & 1) << bit
    expr = eval(m.group(5).replace("0u", "0"), {}, env) & 0xFFFFFFFF
    if lop != expr:
        sys.exit("LUT table and expression differ: " + call)
    return lop


def check_c(func_src, table):
    """Evaluates the emitted C body with Python ints (one byte per call)."""
    for v in range(256):
        env = {"x%d" % i: (0xFFFFFFFF if (v >> i) & 1 else 0) for i in range(8)}
        for line in func_src.split("\n"):
            m = re.match(r"\s*(?:const bc_u32 (t\d+)|x\[(\d)\]) = (.*);$", line)
            if not m:
                continue
            rhs = m.group(3)
            val = eval_lut3(rhs, env) if rhs.startswith("BC_AES_LUT3") else env[rhs]
            env[m.group(1) or "y" + m.group(2)] = val
        got = sum(((env["y%d" % i] & 1) << i) for i in range(8))
        if got != table[v]:
            return "byte %02x: %02x, want %02x" % (v, got, table[v])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--abc", default="berkeley-abc")
    args = ap.parse_args()
    s, inv_s = sbox_table()
    parts = []
    for inverse, fname, table in ((False, "bc_aes_bs_sbox_lut3", s), (True, "bc_aes_bs_inv_sbox_lut3", inv_s)):
        net, outs = build(inverse)
        for v in range(256):  # the symbolic reference first
            got = net.sim(outs, [(v >> i) & 1 for i in range(8)])
            if sum(b << i for i, b in enumerate(got)) != table[v]:
                sys.exit("%s: the parsed reference circuit is wrong at %02x" % (fname, v))
        cost, luts, script = map_with_abc(net, outs, args.abc)
        what = "inverse S-box" if inverse else "S-box"
        src, n = emit_function(fname, luts, "%s, x[0..7] = bits 0..7 of 32 bytes, in place: %d 3-input "
                               "functions (ABC: %s)." % (what, cost, script))
        err = check_c(src, table)
        if err:
            sys.exit("%s: emitted C is wrong: %s" % (fname, err))
        print("%s: %d LUTs, %d C statements with operators" % (fname, cost, n), file=sys.stderr)
        parts.append(src)
    hdr = ["/*",
           " * GENERATED by scripts/gen_aes_bs_sbox.py from bc_aes_bs_sbox_k8 (aes_bitsliced.h);",
           " * do not edit. The AES S-box and its inverse as networks of 3-input functions",
           " * (one GPU LOP3 each), mapped by ABC; the inverse folds both inverse affine maps",
           " * into the network. Checked against GF(2^8) by the generator and by the tests.",
           " */",
           "#ifndef BC_CORES_AES_BITSLICED_LUT3_H",
           "#define BC_CORES_AES_BITSLICED_LUT3_H",
           "",
           "/* One 3-input function. On the GPU an explicit LOP3 with the truth table: left to",
           " * itself ptxas re-fuses the C expressions into more instructions.",
           " * Elsewhere the expression. */",
           "#if defined(BC_TARGET_CUDA) && defined(__CUDA_ARCH__)",
           "template <unsigned kTable>",
           "__device__ __forceinline__ bc_u32 bc_aes_lop3(bc_u32 a, bc_u32 b, bc_u32 c) {",
           "    bc_u32 d;",
           "    asm(\"lop3.b32 %0, %1, %2, %3, %4;\" : \"=r\"(d) : \"r\"(a), \"r\"(b), \"r\"(c), \"n\"(kTable));",
           "    return d;",
           "}",
           "#define BC_AES_LUT3(a, b, c, imm, e) bc_aes_lop3<imm>(a, b, c)",
           "#else",
           "#define BC_AES_LUT3(a, b, c, imm, e) (e)",
           "#endif",
           "",
           ""]
    open(OUT, "w").write("\n".join(hdr) + "\n\n".join(parts) + "\n\n#endif\n")
    print("wrote " + OUT, file=sys.stderr)


if __name__ == "__main__":
    main()
