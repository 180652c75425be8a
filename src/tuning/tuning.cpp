#include "tuning/tuning.h"

#include "tuning/tuned.h"

#include <cstdlib>
#include <cstring>

namespace bc {
namespace tuning {

namespace {

const char* const kAesNames[kAesVariantCount] = {"plain", "fk", "fk-cs", "cl", "cle", "pair", "pair-cc", "pair-dec"};
const char* const kGhashNames[kGhashVariantCount] = {"uint4", "planes", "tensor"};
const char* const kXtsLayoutNames[kXtsLayoutCount] = {"interleaved", "tiles", "interleaved-smem"};
const char* const kOpenClAesNames[kOpenClAesVariantCount] = {"batch", "pair"};

// The position of s in names[0..n), -1 when absent.
int index_of(const char* const* names, int n, const std::string& s) {
    for (int i = 0; i < n; ++i)
        if (s == names[i]) return i;
    return -1;
}

bool device_matches(const DeviceClass& c, const DeviceTraits& d) {
    if (c.kind != d.kind) return false;
    if (c.name_contains && d.name.find(c.name_contains) == std::string::npos) return false;
    if (c.cc_major >= 0 && c.cc_major != d.cc_major) return false;
    if (c.cc_minor >= 0 && c.cc_minor != d.cc_minor) return false;
    if (c.gpu >= 0 && (c.gpu == 1) != d.gpu) return false;
    return true;
}

// How much of the device an entry names: a name counts most, then the compute capability.
int device_specificity(const DeviceClass& c) {
    return (c.name_contains ? 4 : 0) + (c.cc_major >= 0 ? 1 : 0) + (c.cc_minor >= 0 ? 1 : 0) + (c.gpu >= 0 ? 1 : 0);
}

const Tuning& select(const DeviceTraits& dev, const char* family, const char* mode) {
    // This machine's measurements of this very device first (tuning/tuned.h)
    if (dev.tuned)
        if (const Tuning* t = find_tuned(dev, family, mode)) return *t;
    size_t n = 0;
    const Tuning* table = default_table(&n);
    const Tuning* best = nullptr;
    int best_score = -1;
    for (size_t i = 0; i < n; ++i) {
        const Tuning& t = table[i];
        if (!device_matches(t.device, dev)) continue;
        const bool fam = std::strcmp(t.family, family) == 0;
        if (!fam && std::strcmp(t.family, "generic") != 0) continue;
        const bool md = std::strcmp(t.mode, mode) == 0;
        if (!md && std::strcmp(t.mode, "*") != 0) continue;
        // The device first, then the family, then the mode; the first of equals wins.
        const int score = device_specificity(t.device) * 4 + (fam ? 2 : 0) + (md ? 1 : 0);
        if (score > best_score) {
            best = &t;
            best_score = score;
        }
    }
    // The table's last entry is the fallback of last resort (defaults.cpp keeps it so).
    return best ? *best : table[n - 1];
}

bool parse_int(const std::string& s, long lo, long hi, int* out) {
    if (s.empty() || s.size() > 9) return false;
    char* end = nullptr;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (*end != '\0' || v < lo || v > hi) return false;
    *out = int(v);
    return true;
}

std::string joined(const char* const* names, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += (i ? "|" : "") + std::string(names[i]);
    return s;
}

}  // namespace

const char* aes_variant_name(int v) { return v >= 0 && v < kAesVariantCount ? kAesNames[v] : "?"; }
int aes_variant_from_name(const std::string& s) { return index_of(kAesNames, kAesVariantCount, s); }
const char* ghash_variant_name(int v) { return v >= 0 && v < kGhashVariantCount ? kGhashNames[v] : "?"; }
int xts_layout_from_name(const std::string& s) { return index_of(kXtsLayoutNames, kXtsLayoutCount, s); }
int ghash_variant_from_name(const std::string& s) { return index_of(kGhashNames, kGhashVariantCount, s); }
const char* opencl_aes_variant_name(int v) {
    return v >= 0 && v < kOpenClAesVariantCount ? kOpenClAesNames[v] : "?";
}
int opencl_aes_variant_from_name(const std::string& s) { return index_of(kOpenClAesNames, kOpenClAesVariantCount, s); }

const char* family_of(const Algorithm& alg) {
    switch (alg.cipher) {
        case Cipher::AES: return "aes";
        case Cipher::ChaCha20:
        case Cipher::XChaCha20: return "chacha";
        case Cipher::Salsa20:
        case Cipher::XSalsa20: return "salsa";
        case Cipher::Noop: return "noop";
        case Cipher::Block: return alg.block && alg.block->name ? alg.block->name : "generic";
    }
    return "generic";
}

const char* mode_name(Mode m) {
    switch (m) {
        case Mode::ECB: return "ecb";
        case Mode::CBC: return "cbc";
        case Mode::CTR: return "ctr";
        case Mode::XTS: return "xts";
        case Mode::GCM: return "gcm";
        case Mode::Stream: return "stream";
        case Mode::ChaChaPoly: return "chachapoly";
    }
    return "*";
}

const Tuning& select_tuning(const DeviceTraits& dev, const Algorithm& alg) {
    return select(dev, family_of(alg), mode_name(alg.mode));
}

const Tuning& select_tuning(const DeviceTraits& dev, const char* family, const char* mode) {
    return select(dev, family ? family : "generic", mode ? mode : "*");
}

const Tuning& select_tuning(const DeviceTraits& dev) { return select(dev, "generic", "*"); }

Tuning apply_overrides(const Tuning& t, const Overrides& o) {
    Tuning r = t;
    if (o.chunk) {
        r.pipeline.chunk_bytes = o.chunk;
        r.pipeline.stage_bytes = o.chunk;
    }
    if (o.depth > 0) r.pipeline.depth = o.depth;
    if (o.aes_variant >= 0) r.kernel.variant = o.aes_variant;
    if (o.ghash_variant >= 0) r.ghash.variant = o.ghash_variant;
    if (o.pair_cc_waves > 0) r.pair.variant = o.pair_cc_waves;
    if (o.work_group > 0) r.kernel.threads_per_block = o.work_group;
    if (o.threads > 0) r.kernel.threads_per_block = o.threads;
    if (o.blocks_per_sm > 0) r.kernel.blocks_per_sm = o.blocks_per_sm;
    if (o.unroll > 0) r.kernel.items_per_thread = o.unroll;
    if (o.pair_blocks_per_sm > 0) r.pair.blocks_per_sm = o.pair_blocks_per_sm;
    return r;
}

bool parse_option(const std::string& key, const std::string& value, Overrides* o, bool* known, std::string* why) {
    *known = true;
    // An integer from lo to hi into *field, or *why says the range.
    auto ranged = [&](long lo, long hi, int* field) {
        if (parse_int(value, lo, hi, field)) return true;
        *why = key + " takes " + std::to_string(lo) + ".." + std::to_string(hi);
        return false;
    };
    if (key == "depth") {
        return ranged(1, kMaxDepth, &o->depth);
    } else if (key == "cuda.aes_variant") {
        o->aes_variant = aes_variant_from_name(value);
        if (o->aes_variant >= 0) return true;
        *why = "cuda.aes_variant takes " + joined(kAesNames, kAesVariantCount);
    } else if (key == "cuda.ghash") {
        o->ghash_variant = ghash_variant_from_name(value);
        if (o->ghash_variant >= 0) return true;
        *why = "cuda.ghash takes " + joined(kGhashNames, kGhashVariantCount);
    } else if (key == "cuda.xts_layout") {
        o->xts_layout = xts_layout_from_name(value);
        if (o->xts_layout >= 0) return true;
        *why = "cuda.xts_layout takes " + joined(kXtsLayoutNames, kXtsLayoutCount);
    } else if (key == "cuda.blocks_per_sm") {
        return ranged(1, kMaxBlocksPerSm, &o->blocks_per_sm);
    } else if (key == "cuda.pair_blocks_per_sm") {
        return ranged(1, kMaxBlocksPerSm, &o->pair_blocks_per_sm);
    } else if (key == "cuda.threads") {
        if (parse_int(value, 32, 1024, &o->threads) && o->threads % 32 == 0) return true;
        *why = "cuda.threads takes a multiple of 32 from 32 to 1024";
    } else if (key == "cuda.unroll") {
        if (parse_int(value, 1, 4, &o->unroll) && o->unroll != 3) return true;
        *why = "cuda.unroll takes 1, 2 or 4";
    } else if (key == "cuda.pair_cc_waves") {
        return ranged(1, kMaxPairCcWaves, &o->pair_cc_waves);
    } else if (key == "opencl.work_group") {
        return ranged(1, kMaxWorkGroup, &o->work_group);
    } else if (key == "opencl.aes_variant") {
        o->opencl_aes_variant = opencl_aes_variant_from_name(value);
        if (o->opencl_aes_variant >= 0) return true;
        *why = "opencl.aes_variant takes " + joined(kOpenClAesNames, kOpenClAesVariantCount);
    } else if (key == "opencl.aes_work_group") {
        return ranged(1, kMaxWorkGroup, &o->opencl_aes_work_group);
    } else if (key == "opencl.aes_groups_per_unit") {
        return ranged(1, kMaxBlocksPerSm, &o->opencl_aes_groups);
    } else if (key == "tuning") {
        o->shipped_only = value == "shipped";
        if (value == "shipped" || value == "tuned") return true;
        *why = "tuning takes tuned|shipped";
    } else {
        *known = false;
        return true;
    }
    return false;
}

}  // namespace tuning
}  // namespace bc
