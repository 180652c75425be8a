#include "modes/poly1305/poly1305.h"

#include <cstring>

#include "util/secure.h"

namespace bc {
namespace {

typedef unsigned __int128 u128;

constexpr uint64_t kM44 = (uint64_t(1) << 44) - 1;
constexpr uint64_t kM42 = (uint64_t(1) << 42) - 1;

inline uint64_t le64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}
inline void st64(uint8_t* p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}

// d += a * b, where 2^130 = 5 folds the high products back (x20 = 5 * 2^2 for the
// limb weights 2^132 and 2^176 = 2^44 * 2^132).
inline void mul_acc(u128 d[3], const Poly1305Elem& a, const Poly1305Elem& b) {
    const uint64_t b1_20 = b.l[1] * 20, b2_20 = b.l[2] * 20;
    d[0] += (u128)a.l[0] * b.l[0] + (u128)a.l[1] * b2_20 + (u128)a.l[2] * b1_20;
    d[1] += (u128)a.l[0] * b.l[1] + (u128)a.l[1] * b.l[0] + (u128)a.l[2] * b2_20;
    d[2] += (u128)a.l[0] * b.l[2] + (u128)a.l[1] * b.l[1] + (u128)a.l[2] * b.l[0];
}

// Carries d into limbs: l0 < 2^44, l1 <= 2^44 + small, l2 < 2^42.
inline Poly1305Elem carry(const u128 d[3]) {
    Poly1305Elem r;
    u128 t0 = d[0];
    r.l[0] = (uint64_t)t0 & kM44;
    u128 t1 = d[1] + (uint64_t)(t0 >> 44);
    r.l[1] = (uint64_t)t1 & kM44;
    u128 t2 = d[2] + (uint64_t)(t1 >> 44);
    r.l[2] = (uint64_t)t2 & kM42;
    uint64_t c = (uint64_t)(t2 >> 42);
    r.l[0] += c * 5;
    c = r.l[0] >> 44;
    r.l[0] &= kM44;
    r.l[1] += c;
    return r;
}

// A 16-byte block as an element, plus 2^128 (bit 40 of the top limb).
inline Poly1305Elem load_block(const uint8_t* p) {
    uint64_t t0 = le64(p), t1 = le64(p + 8);
    Poly1305Elem m;
    m.l[0] = t0 & kM44;
    m.l[1] = ((t0 >> 44) | (t1 << 20)) & kM44;
    m.l[2] = (t1 >> 24) | (uint64_t(1) << 40);
    return m;
}

// One carry pass over the limbs (44/44/42 bits), folding the carry out of the
// top limb back in as 5 (2^130 = 5 mod p).
inline void carry_pass(Poly1305Elem& x) {
    uint64_t c = x.l[0] >> 44;
    x.l[0] &= kM44;
    x.l[1] += c;
    c = x.l[1] >> 44;
    x.l[1] &= kM44;
    x.l[2] += c;
    c = x.l[2] >> 42;
    x.l[2] &= kM42;
    x.l[0] += c * 5;
}

// Fully reduced (0 <= x < p) limbs, constant time.
inline Poly1305Elem freeze(Poly1305Elem x) {
    // Two carry passes: limbs within 44/44/42 bits, value < 2^130.
    carry_pass(x);
    carry_pass(x);
    {
        uint64_t c = x.l[0] >> 44;
        x.l[0] &= kM44;
        x.l[1] += c;
        c = x.l[1] >> 44;
        x.l[1] &= kM44;
        x.l[2] += c;
    }
    // x < 2^130 = p + 5: subtract p once when x + 5 reaches 2^130.
    uint64_t g0 = x.l[0] + 5;
    uint64_t c = g0 >> 44;
    g0 &= kM44;
    uint64_t g1 = x.l[1] + c;
    c = g1 >> 44;
    g1 &= kM44;
    uint64_t g2 = x.l[2] + c;
    uint64_t take = uint64_t(0) - (g2 >> 42);  // all ones when x >= p
    g2 &= kM42;
    x.l[0] = (x.l[0] & ~take) | (g0 & take);
    x.l[1] = (x.l[1] & ~take) | (g1 & take);
    x.l[2] = (x.l[2] & ~take) | (g2 & take);
    return x;
}

}  // namespace

Poly1305Elem poly1305_load_r(const uint8_t r[16]) {
    uint64_t t0 = le64(r) & 0x0ffffffc0fffffffull;
    uint64_t t1 = le64(r + 8) & 0x0ffffffc0ffffffcull;
    Poly1305Elem e;
    e.l[0] = t0 & kM44;
    e.l[1] = ((t0 >> 44) | (t1 << 20)) & kM44;
    e.l[2] = (t1 >> 24) & kM42;
    return e;
}

Poly1305Elem poly1305_load17(const uint8_t in[17]) {
    uint64_t t0 = le64(in), t1 = le64(in + 8);
    uint64_t t2 = in[16];
    Poly1305Elem e;
    e.l[0] = t0 & kM44;
    e.l[1] = ((t0 >> 44) | (t1 << 20)) & kM44;
    e.l[2] = (t1 >> 24) | (t2 << 40);  // up to 48 bits
    // Fold bits at and above 2^130 (x 5).
    uint64_t c = e.l[2] >> 42;
    e.l[2] &= kM42;
    e.l[0] += c * 5;
    return e;
}

void poly1305_store17(const Poly1305Elem& x, uint8_t out[17]) {
    Poly1305Elem f = freeze(x);
    uint64_t lo = f.l[0] | (f.l[1] << 44);
    uint64_t hi = (f.l[1] >> 20) | (f.l[2] << 24);
    st64(out, lo);
    st64(out + 8, hi);
    out[16] = uint8_t(f.l[2] >> 40);
}

Poly1305Elem poly1305_mul(const Poly1305Elem& a, const Poly1305Elem& b) {
    u128 d[3] = {0, 0, 0};
    mul_acc(d, a, b);
    return carry(d);
}

Poly1305Elem poly1305_add(const Poly1305Elem& a, const Poly1305Elem& b) {
    Poly1305Elem s;
    for (int i = 0; i < 3; ++i) s.l[i] = a.l[i] + b.l[i];
    carry_pass(s);
    return s;
}

Poly1305Elem poly1305_pow(const Poly1305Elem& x, uint64_t e) {
    Poly1305Elem result = {{1, 0, 0}};
    Poly1305Elem base = x;
    while (e != 0) {  // e is public (a block count)
        if (e & 1) result = poly1305_mul(result, base);
        e >>= 1;
        if (e != 0) base = poly1305_mul(base, base);
    }
    return result;
}

// ---- incremental partial ---------------------------------------------------------

Poly1305Partial::Poly1305Partial(const uint8_t r[16]) {
    h_ = Poly1305Elem{{0, 0, 0}};
    r_ = poly1305_load_r(r);
    r2_ = poly1305_mul(r_, r_);
    r3_ = poly1305_mul(r2_, r_);
    r4_ = poly1305_mul(r3_, r_);
}

Poly1305Partial::~Poly1305Partial() {
    secure_wipe(&h_, sizeof(h_));
    secure_wipe(&r_, sizeof(r_));
    secure_wipe(&r2_, sizeof(r2_));
    secure_wipe(&r3_, sizeof(r3_));
    secure_wipe(&r4_, sizeof(r4_));
}

void Poly1305Partial::blocks(const uint8_t* data, size_t nblocks) {
    Poly1305Elem h = h_;
    size_t i = 0;
    // Four blocks per step: h = (h + m1) r^4 + m2 r^3 + m3 r^2 + m4 r, one carry.
    for (; i + 4 <= nblocks; i += 4) {
        const uint8_t* p = data + 16 * i;
        Poly1305Elem m1 = load_block(p), m2 = load_block(p + 16), m3 = load_block(p + 32),
                     m4 = load_block(p + 48);
        for (int k = 0; k < 3; ++k) m1.l[k] += h.l[k];
        u128 d[3] = {0, 0, 0};
        mul_acc(d, m1, r4_);
        mul_acc(d, m2, r3_);
        mul_acc(d, m3, r2_);
        mul_acc(d, m4, r_);
        h = carry(d);
    }
    for (; i < nblocks; ++i) {
        Poly1305Elem m = load_block(data + 16 * i);
        for (int k = 0; k < 3; ++k) m.l[k] += h.l[k];
        h = poly1305_mul(m, r_);
    }
    h_ = h;
    count_ += nblocks;
}

void Poly1305Partial::update_padded(const uint8_t* data, size_t len) {
    size_t whole = len / 16;
    if (whole) blocks(data, whole);
    size_t rest = len - 16 * whole;
    if (rest) {
        uint8_t last[16] = {0};
        std::memcpy(last, data + 16 * whole, rest);
        blocks(last, 1);
        secure_wipe(last, sizeof(last));
    }
}

void Poly1305Partial::value(uint8_t partial[17]) const { poly1305_store17(h_, partial); }

// ---- the C API's entry points ------------------------------------------------------

void poly1305_partial(const uint8_t r[16], const uint8_t* data, size_t len, uint8_t partial[17]) {
    Poly1305Partial p(r);
    p.update_padded(data, len);
    p.value(partial);
}

void poly1305_combine(uint8_t acc[17], const uint8_t partial[17], uint64_t nblocks,
                      const uint8_t r[16]) {
    Poly1305Elem rr = poly1305_load_r(r);
    Poly1305Elem a = poly1305_load17(acc);
    Poly1305Elem p = poly1305_load17(partial);
    Poly1305Elem rn = poly1305_pow(rr, nblocks);
    Poly1305Elem out = poly1305_add(poly1305_mul(a, rn), p);
    poly1305_store17(out, acc);
    secure_wipe(&rr, sizeof(rr));
    secure_wipe(&rn, sizeof(rn));
    secure_wipe(&a, sizeof(a));
}

void poly1305_finish(const uint8_t acc[17], const uint8_t s[16], uint8_t tag[16]) {
    // acc is fully reduced by contract; add its low 128 bits to s mod 2^128.
    uint64_t a0 = le64(acc), a1 = le64(acc + 8);
    uint64_t s0 = le64(s), s1 = le64(s + 8);
    u128 t = (u128)a0 + s0;
    uint64_t lo = (uint64_t)t;
    uint64_t hi = a1 + s1 + (uint64_t)(t >> 64);
    st64(tag, lo);
    st64(tag + 8, hi);
}

}  // namespace bc
