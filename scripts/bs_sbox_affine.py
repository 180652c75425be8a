"""Bitsliced S-box networks for S-boxes built on inversion in GF(2^8).

Many ciphers' S-boxes are S(x) = B(inv(A x ^ a)) ^ b: Camellia's s1, SM4's, ARIA's,
SEED's (a power map x^-k is inversion followed by squarings, which are linear) and
CLEFIA's S1, each over its own representation of GF(2^8). Every representation is
isomorphic to AES's (GF(2)[X]/(X^8 + X^4 + X^3 + X + 1)) through a linear map, so
such an S-box is the non-linear middle of the AES S-box circuit (bc_aes_bs_sbox_k8 in
aes_bitsliced.h, parsed by gen_aes_bs_sbox.py) between two linear layers. This module
composes the outer maps into the circuit's top and bottom linear layers, rebuilds
them as XORs with Paar's greedy, and leaves the mapping onto 3-input functions to
gen_aes_bs_sbox.map_with_abc.

Bytes are integers with bit i = coefficient of X^i (bit 0 the least significant);
a linear map is given as its 8 column images (lin_cols).
"""
import re
import sys

import gen_aes_bs_sbox as aes


def lin_cols(fn):
    """A linear map of bytes as its 8 column images (fn(1 << i))."""
    return [fn(1 << i) for i in range(8)]


def apply_cols(cols, v):
    r = 0
    for i in range(8):
        if (v >> i) & 1:
            r ^= cols[i]
    return r


def field_isomorphism(mul):
    """psi: AES's representation -> the field whose product is mul(a, b), X^i -> gamma^i
    for a root gamma of AES's polynomial there; returns (psi, phi = psi^-1) as tables."""
    for gamma in range(2, 256):
        pw = [1]
        for _ in range(8):
            pw.append(mul(pw[-1], gamma))
        # gamma^8 + gamma^4 + gamma^3 + gamma + 1 == 0
        if pw[8] ^ pw[4] ^ pw[3] ^ pw[1] ^ pw[0] == 0:
            psi = [apply_cols(pw[:8], v) for v in range(256)]
            if len(set(psi)) != 256:
                continue
            phi = [0] * 256
            for v in range(256):
                phi[psi[v]] = v
            return psi, phi
    sys.exit("no root of the AES polynomial in the target field")


def affine_inversion_network(m_in, c_in, m_out, c_out):
    """The network of y = M_out inv_AES(M_in x ^ c_in) ^ c_out over symbols x0..x7 (bit 0
    first), inv_AES the inverse (0 -> 0) in AES's representation, M_in and M_out linear
    maps as column images. To build S(x) = B(inv_F(A x ^ a)) ^ b over another field F
    with isomorphism psi: AES -> F (phi = psi^-1): M_in = phi o A, c_in = phi(a),
    M_out = B o psi, c_out = b. Returns (net, outputs)."""
    stmts = aes.reference_body()
    net = aes.Net(["x%d" % i for i in range(8)])
    x = [aes.Sym(net, i) for i in net.inputs]

    # z = M_in x ^ c_in as affine forms of x (bit i of z: the x_j with bit i of column j set)
    z = []
    for i in range(8):
        mask = sum(1 << j for j in range(8) if (m_in[j] >> i) & 1)
        z.append(aes.Aff(mask, (c_in >> i) & 1))
    env = {"x": z}
    top = [(l, r) for l, r in stmts if re.match(r"[UT]\d+$", l)]
    mid = [(l, r) for l, r in stmts if re.match(r"M\d+$", l)]
    bot = [(l, r) for l, r in stmts if not re.match(r"[UTM]\d+$", l)]
    for lhs, rhs in top:
        env[lhs] = eval(rhs, {}, env)
    used = sorted(set(n for _, r in mid for n in re.findall(r"\b[UT]\d+\b", r)),
                  key=lambda n: (n[0], int(n[1:])))
    syms = aes.paar(net, x, [env[n].mask for n in used])
    senv = {}
    for n, sym in zip(used, syms):
        senv[n] = ~sym if env[n].c else sym
    for lhs, rhs in mid:
        senv[lhs] = eval(rhs, {}, senv)

    # bottom: S_AES's outputs as affine forms of the products, then inv = A'(S_AES),
    # then y = M_out inv ^ c_out
    prods = sorted(set(n for _, r in bot for n in re.findall(r"\bM\d+\b", r)), key=lambda n: int(n[1:]))
    benv = {n: aes.Aff(1 << i) for i, n in enumerate(prods)}
    for i in range(8):
        benv["k%d" % i] = aes.Aff(0)
    s_out = [None] * 8
    for lhs, rhs in bot:
        v = eval(rhs, {}, benv)
        mm = re.match(r"x\[(\d)\]$", lhs)
        if mm:
            s_out[int(mm.group(1))] = v
        else:
            benv[lhs] = v
    inv = aes.inv_affine(s_out)
    outs = []
    for i in range(8):
        acc = aes.Aff(0, (c_out >> i) & 1)
        for j in range(8):
            if (m_out[j] >> i) & 1:
                acc = acc ^ inv[j]
        outs.append(acc)
    osyms = aes.paar(net, [senv[n] for n in prods], [o.mask for o in outs])
    y = [~sym if o.c else sym for sym, o in zip(osyms, outs)]
    return net, [v.i for v in y]


def check_network(net, outs, table, what):
    """Exits unless the network computes table on all 256 inputs."""
    for v in range(256):
        got = net.sim(outs, [(v >> i) & 1 for i in range(8)])
        if sum(b << i for i, b in enumerate(got)) != table[v]:
            sys.exit("%s: the network is wrong at %02x" % (what, v))


def gate_count(net, outputs):
    """2-input gates (AND, OR, XOR) and inverters the outputs reach."""
    live, stack = set(), list(outputs)
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
    ops = [net.nodes[n][0] for n in live]
    return {k: ops.count(k) for k in ("XOR", "AND", "OR", "NOT")}
