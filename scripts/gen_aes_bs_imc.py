#!/usr/bin/env python3
"""Generates src/cores/aes/aes_bitsliced_imc.h: InvMixColumns of one column with its
round key, out = InvMixColumns(a) ^ k, as a network of 2- and 3-input XORs (one GPU
LOP3 each).

Why: bitsliced decryption paid ~184 instructions a column for the key XOR and
InvMixColumns written as MixColumns after a pre-map (a0, a2 ^= 4(a0 ^ a2); a1, a3 ^=
4(a1 ^ a3)), against ~76 for MixColumns alone: decryption rounds cost ~25 % more than
encryption rounds (bench/notes/aes-gpu.md). InvMixColumns is linear, so its 32 output bits (and
the key bit each takes) can be written as any XOR network of the 32 input bits. The
key is applied after InvMixColumns (the equivalent inverse cipher's keys, InvMixColumns
of the round key), so each output can be one gate: its key bit and one or two signals.
A greedy finds those signals. Each step, every unfinished target is first rewritten
as a short XOR of all the signals so far, inputs and gates alike, by random
information sets (the first 32 independent signals in a random order give one
combination; the shortest of 10 is taken), so a target may use signals whose terms
cancel. Then the new gate is the pair or triple of signals that most targets share (a
target of more than 3 signals gains 2 from a triple, one of 3 gains 1), ties broken at
random, until every target is at most 2 signals. Gates left unused are dropped, and a
gate used once is folded into its user where the two take at most 3 inputs. Many
seeded tries, the smallest network kept.

Output: one BC_FN function; every gate is checked against GF(2^8) here on random
columns. Deterministic (fixed seeds). Usage: scripts/gen_aes_bs_imc.py [--tries N]
"""
import argparse
import itertools
import os
import random
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_aes_bs_sbox import gf_mul  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "src/cores/aes/aes_bitsliced_imc.h")
INV_MIX = [[14, 11, 13, 9], [9, 14, 11, 13], [13, 9, 14, 11], [11, 13, 9, 14]]
NIN = 32  # signals 0..31: bit b of row i is 8*i + b; 32..63: the key bit of output 8*i + b


def targets():
    """Output bit 8*i + b (without its key bit) as a 32-bit mask of the input bits it XORs."""
    rows = []
    for i in range(4):
        for b in range(8):
            rows.append(sum(1 << (8 * j + bb) for j in range(4) for bb in range(8)
                            if (gf_mul(1 << bb, INV_MIX[i][j]) >> b) & 1))
    return rows


def shortest(vecs, ts, rng, sets):
    """For each mask in ts, a short set of signals (a bit mask over vecs) whose XOR is it:
    the best over `sets` random information sets (the first 32 independent signals of
    a random order; each mask has one combination of those)."""
    order_ = [i for i, v in enumerate(vecs) if v]
    best = [None] * len(ts)
    for _ in range(sets):
        rng.shuffle(order_)
        basis = {}  # top bit -> (vector, signals XORed into it)
        for i in order_:
            v, comb = vecs[i], 1 << i
            while v:
                top = v.bit_length() - 1
                if top not in basis:
                    basis[top] = (v, comb)
                    break
                v ^= basis[top][0]
                comb ^= basis[top][1]
            if len(basis) == NIN:
                break
        for j, t in enumerate(ts):
            comb = 0
            while t:
                bv, bc = basis[t.bit_length() - 1]
                t ^= bv
                comb ^= bc
            if best[j] is None or comb.bit_count() < best[j].bit_count() or (
                    comb.bit_count() == best[j].bit_count() and rng.random() < 0.3):
                best[j] = comb
    return best


def greedy(rows, rng, sets=10):
    """Gates (new signal, inputs) and, for each output, the one or two signals it XORs
    with its key bit."""
    vecs = [1 << b for b in range(NIN)] + [0] * NIN  # key bits: no part of any target
    reps = [{b for b in range(NIN) if t >> b & 1} for t in rows]
    gates = []
    while True:
        # each unfinished target re-expressed over all signals so far (cancellation allowed)
        open_ = [j for j, r in enumerate(reps) if len(r) > 2]
        for j, comb in zip(open_, shortest(vecs, [rows[j] for j in open_], rng, sets)):
            if comb.bit_count() <= len(reps[j]):
                reps[j] = {i for i in range(len(vecs)) if comb >> i & 1}
        if all(len(r) <= 2 for r in reps):
            break
        # a target with 3 signals gains 1 from a pair or from its own triple, others 1 a
        # pair and 2 a triple
        pairs, triples = Counter(), Counter()
        for r in reps:
            if len(r) > 2:
                s = sorted(r)
                pairs.update(itertools.combinations(s, 2))
                (pairs if len(s) == 3 else triples).update(itertools.combinations(s, 3))
        best, score = None, -1.0
        for ins in itertools.chain(pairs, (t for t in triples if t not in pairs)):
            v = pairs[ins] + 2 * triples[ins] + 0.9 * rng.random()
            if v > score:
                best, score = ins, v
        g = len(vecs)
        vecs.append(vecs[best[0]] ^ vecs[best[1]] ^ (vecs[best[2]] if len(best) == 3 else 0))
        gates.append((g, best))
        for r in reps:
            if len(r) > 2 and r.issuperset(best):
                r.difference_update(best)
                r.add(g)
    # output 8*i + b is a new signal: its one or two signals and its key bit
    outs = []
    for j, r in enumerate(reps):
        g = len(vecs)
        vecs.append(None)
        gates.append((g, tuple(sorted(r)) + (NIN + j,)))
        outs.append(g)
    return prune(gates, outs), outs


def prune(gates, outs):
    """Drops gates nothing uses (targets re-expressed later may leave some behind), then
    folds each gate used once into its user where the two have at most 3 inputs."""
    gates = {g: list(ins) for g, ins in gates}
    while True:
        users = {}
        for g, ins in gates.items():
            for x in ins:
                users.setdefault(x, []).append(g)
        dead = [g for g in gates if g not in users and g not in outs]
        if dead:
            for g in dead:
                del gates[g]
            continue
        fold = next(((g, users[g][0]) for g in sorted(gates) if g not in outs and len(users[g]) == 1
                     and len(gates[users[g][0]]) + len(gates[g]) <= 4), None)
        if fold is None:
            return [(g, tuple(gates[g])) for g in sorted(gates)]
        g, u = fold
        gates[u] = [x for x in gates[u] if x != g] + gates[g]
        del gates[g]


def order(gates, outs, rng):
    """The gates in an order that keeps few words live (list scheduling): the state's 32
    input words are live until their last use, a gate's result until its last use (an
    output until the end), key words are loaded where used. At each step the ready gate
    that frees the most words is taken, ties broken towards the gate whose result has the
    fewest uses left to wait for, then at random. Returns (gates, peak live words)."""
    users = {}
    for g, ins in gates:
        for x in ins:
            users.setdefault(x, []).append(g)
    left = {x: len(u) for x, u in users.items()}
    done = set(range(2 * NIN))
    outset = set(outs)
    pending = list(gates)
    live = sum(1 for x in range(NIN) if x in left)
    peak, ordered = live, []
    while pending:
        best, key = None, None
        for i, (g, ins) in enumerate(pending):
            if not all(x in done for x in ins):
                continue
            freed = sum(1 for x in ins if (x < NIN or x >= 2 * NIN) and left[x] == 1 and x not in outset)
            k = (freed, -len(users.get(g, [])), rng.random())
            if key is None or k > key:
                best, key = i, k
        g, ins = pending.pop(best)
        live += 1  # the result
        peak = max(peak, live)
        for x in ins:
            left[x] -= 1
            if left[x] == 0 and (x < NIN or x >= 2 * NIN) and x not in outset:
                live -= 1
        done.add(g)
        ordered.append((g, ins))
    return ordered, peak


def check(gates, outs, rng):
    for _ in range(200):
        col = [rng.randrange(256) for _ in range(4)]
        key = [rng.randrange(256) for _ in range(4)]
        val = {8 * i + b: (col[i] >> b) & 1 for i in range(4) for b in range(8)}
        val.update({NIN + 8 * i + b: (key[i] >> b) & 1 for i in range(4) for b in range(8)})
        for g, ins in gates:
            val[g] = 0
            for x in ins:
                val[g] ^= val[x]
        for i in range(4):
            want = key[i]
            for j in range(4):
                want ^= gf_mul(col[j], INV_MIX[i][j])
            got = sum(val[outs[8 * i + b]] << b for b in range(8))
            if got != want:
                sys.exit("gen_aes_bs_imc: the network is wrong")


def emit(gates, outs, tries, peak):
    def name(x):
        if x < NIN:
            return f"a{x // 8}[{x % 8}]"
        if x < 2 * NIN:
            return f"k[{x - NIN}]"
        return f"g{x - 2 * NIN}"

    lines = []
    for g, ins in gates:
        args = [name(x) for x in ins]
        if len(args) == 2:
            call = f"BC_AES_LUT3({args[0]}, {args[1]}, 0u, 0x3c, {args[0]} ^ {args[1]})"
        else:
            call = f"BC_AES_LUT3({args[0]}, {args[1]}, {args[2]}, 0x96, {args[0]} ^ {args[1]} ^ {args[2]})"
        lines.append(f"    const bc_u32 {name(g)} = {call};")
    lines += [f"    o{i // 8}[{i % 8}] = {name(s)};" for i, s in enumerate(outs)]
    body = "\n".join(lines)
    return f"""/*
 * GENERATED by scripts/gen_aes_bs_imc.py; do not edit. InvMixColumns of one column
 * with the round key applied after it, out = InvMixColumns(a) ^ k, as {len(gates)} XORs of
 * two or three inputs (one GPU LOP3 each; best of {tries} seeded greedy tries), checked
 * against GF(2^8) by the generator and by the tests. Gates in an order that keeps at most
 * {peak} words live (the 32 inputs until their last use, results, outputs).
 */
#ifndef BC_CORES_AES_BITSLICED_IMC_H
#define BC_CORES_AES_BITSLICED_IMC_H

/* a0..a3: rows 0..3 of the column (8 words each, bit b at [b]); k: 32 key words, row i
 * bit b at k[8*i + b]; o0..o3: the output rows, laid out as a0..a3. Every gate is
 * computed before the first output is written, so o_i may be a_i (in place). */
BC_FN void bc_aes_bs_inv_mix_col_key(const bc_u32 *a0, const bc_u32 *a1, const bc_u32 *a2, const bc_u32 *a3,
                                     const BC_AES_BS_RK_SPACE bc_u32 *k, bc_u32 *o0, bc_u32 *o1, bc_u32 *o2,
                                     bc_u32 *o3) {{
{body}
}}

#endif
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tries", type=int, default=600)
    args = ap.parse_args()
    rows = targets()
    # the fewest gates, then (each network ordered a few ways) the fewest live words
    best, best_key = None, None
    for seed in range(args.tries):
        rng = random.Random(seed)
        g, o = greedy(rows, rng)
        if best_key is not None and len(g) > best_key[0]:
            continue
        for _ in range(4):
            og, peak = order(g, o, rng)
            if best_key is None or (len(og), peak) < best_key:
                best, best_key = (og, o), (len(og), peak)
    check(*best, random.Random(12345))
    with open(OUT, "w") as f:
        f.write(emit(*best, args.tries, best_key[1]))
    print(f"{OUT}: {best_key[0]} gates, at most {best_key[1]} words live")


if __name__ == "__main__":
    main()
