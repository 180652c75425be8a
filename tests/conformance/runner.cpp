#include "runner.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "table.h"

namespace conf {

// ---- helpers ------------------------------------------------------------------------------

std::string status_name(bc_status s) {
    switch (s) {
#define NAME(x) \
    case x:     \
        return #x;
        NAME(BC_OK)
        NAME(BC_ERR_NULL_POINTER)
        NAME(BC_ERR_INVALID_ARGUMENT)
        NAME(BC_ERR_UNKNOWN_ALGORITHM)
        NAME(BC_ERR_KEY_SIZE)
        NAME(BC_ERR_IV_SIZE)
        NAME(BC_ERR_TAG_SIZE)
        NAME(BC_ERR_INPUT_LENGTH)
        NAME(BC_ERR_MESSAGE_TOO_LONG)
        NAME(BC_ERR_COUNTER_OVERFLOW)
        NAME(BC_ERR_OVERLAP)
        NAME(BC_ERR_OUTPUT_TOO_SMALL)
        NAME(BC_ERR_AUTH_FAILED)
        NAME(BC_ERR_BAD_PADDING)
        NAME(BC_ERR_NOT_SUPPORTED)
        NAME(BC_ERR_BAD_DEVICE)
        NAME(BC_ERR_NO_DEVICE)
        NAME(BC_ERR_DEVICE)
        NAME(BC_ERR_OUT_OF_MEMORY)
        NAME(BC_ERR_BAD_STATE)
        NAME(BC_ERR_BAD_OPTION)
        NAME(BC_ERR_INTERNAL)
#undef NAME
    }
    return "bc_status(" + std::to_string(static_cast<int>(s)) + ")";
}

static std::string status_text(bc_status s) {
    std::string t = status_name(s);
    if (s != BC_OK) {
        const char* d = bc_last_error();
        if (d != nullptr && *d) t += " (" + std::string(d) + ")";
    }
    return t;
}

std::string describe_mismatch(const Bytes& got, const Bytes& want) {
    std::ostringstream o;
    size_t i = 0;
    while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
    auto shorten = [](const Bytes& b, size_t from) {
        size_t start = from > 8 ? from - 8 : 0;
        size_t n = std::min<size_t>(b.size() - std::min(start, b.size()), 32);
        std::string s = start ? "..." : "";
        s += hex_encode(b.data() + std::min(start, b.size()), n);
        if (start + n < b.size()) s += "...";
        return s;
    };
    o << "length " << got.size() << " (want " << want.size() << "), first difference at byte " << i
      << ": got " << shorten(got, i) << " want " << shorten(want, i);
    return o.str();
}

uint64_t hash_string(const std::string& s) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::vector<size_t> random_split(size_t len, Rng& rng, int style) {
    std::vector<size_t> pieces;
    size_t left = len;
    size_t maxp;
    switch (style) {
        case 0: maxp = std::max<size_t>(1, len / 6); break;                    // a few, zero-length allowed
        case 1: maxp = len <= 2048 ? 37 : std::max<size_t>(37, len / 40); break;  // many small
        default: maxp = 17; break;
    }
    if (style == 1 && len > 0) {   // a one-byte piece first: everything after is misaligned
        pieces.push_back(1);
        --left;
    }
    while (left > 0) {
        size_t p = std::min<size_t>(left, style == 0 ? rng.below(maxp + 1) : 1 + rng.below(maxp));
        pieces.push_back(p);
        left -= p;
    }
    if (style == 0) pieces.push_back(0);
    return pieces;
}

// ---- backends -------------------------------------------------------------------------------

static std::vector<BackendSlot> g_backends;

std::vector<BackendSlot>& backends() { return g_backends; }

static bool wanted(const std::string& filter, const std::string& family) {
    if (filter.empty()) return true;
    std::stringstream ss(filter);
    std::string item;
    while (std::getline(ss, item, ','))
        if (trim(item) == family) return true;
    return false;
}

static BackendSlot open_slot(const std::string& label, const std::string& device, const std::string& options) {
    BackendSlot b;
    b.label = label;
    b.device = device;
    b.options = options;
    bc_status st = bc_context_create(device.c_str(), options.empty() ? nullptr : options.c_str(), &b.ctx);
    if (st != BC_OK) {
        b.unavailable = "bc_context_create(\"" + device + "\"" + (options.empty() ? "" : ", \"" + options + "\"") +
                        ") = " + status_text(st);
        b.ctx = nullptr;
    }
    return b;
}

void open_backends(const std::string& filter) {
    if (wanted(filter, "cpu")) g_backends.push_back(open_slot("cpu", "cpu", ""));
    if (wanted(filter, "portable")) g_backends.push_back(open_slot("cpu/portable", "cpu", "cpu.impl=portable"));
    // AES through the generic block-cipher kernels (context option aes=generic).
    auto generic_slot = [](const std::string& device, const std::string& label) {
        BackendSlot b = open_slot(label + "/generic", device, "aes=generic");
        b.aes_raw_only = true;
        return b;
    };
    const bool generic_only = wanted(filter, "generic");
    if (wanted(filter, "cuda")) {
        BackendSlot b = open_slot("cuda:0", "cuda:0", "");
        if (b.ctx == nullptr) b.unavailable = "no CUDA device: " + b.unavailable;
        g_backends.push_back(b);
    }
    if (wanted(filter, "cuda") || generic_only) {
        BackendSlot g = generic_slot("cuda:0", "cuda:0");
        if (g.ctx == nullptr) g.unavailable = "no CUDA device: " + g.unavailable;
        g_backends.push_back(g);
    }
    // "opencl" takes every OpenCL device, "opencl:N" device N alone
    if (wanted(filter, "opencl") || generic_only || filter.find("opencl:") != std::string::npos) {
        for (int i = 0; i < 16; ++i) {
            const std::string dev = "opencl:" + std::to_string(i);
            const bool this_one = wanted(filter, "opencl") || wanted(filter, dev);
            BackendSlot b = open_slot(dev, dev, "");
            if (b.ctx == nullptr) {
                if (i == 0) {
                    b.label = "opencl";
                    b.unavailable = "no OpenCL device: " + b.unavailable;
                    g_backends.push_back(b);
                    BackendSlot g = generic_slot(dev, "opencl");
                    g.unavailable = b.unavailable;
                    bc_context_destroy(g.ctx);
                    g.ctx = nullptr;
                    g_backends.push_back(g);
                }
                break;
            }
            if (this_one) g_backends.push_back(b);
            else bc_context_destroy(b.ctx);
            if (this_one || generic_only) g_backends.push_back(generic_slot(dev, dev));
        }
    }
    for (const auto& b : g_backends) {
        if (b.ctx)
            std::printf("backend %-14s %s: %s\n", b.label.c_str(), bc_context_backend(b.ctx),
                        bc_context_device_name(b.ctx));
        else
            std::printf("backend %-14s skipped: %s\n", b.label.c_str(), b.unavailable.c_str());
    }
}

void close_backends() {
    for (auto& b : g_backends) bc_context_destroy(b.ctx);
    g_backends.clear();
}

// ---- raw modes ------------------------------------------------------------------------------

namespace {

enum class Layout { Apart, InPlace, Misaligned, MisalignedInPlace };
const char* layout_name(Layout l) {
    switch (l) {
        case Layout::Apart: return "out-of-place";
        case Layout::InPlace: return "in-place";
        case Layout::Misaligned: return "misaligned+1";
        case Layout::MisalignedInPlace: return "misaligned+1 in-place";
    }
    return "?";
}
const Layout kLayouts[] = {Layout::Apart, Layout::InPlace, Layout::Misaligned, Layout::MisalignedInPlace};

struct CallResult {
    bc_status st = BC_OK;
    Bytes out;          // out_len bytes
    size_t out_len = 0;
    bool wiped = true;  // the whole output region (out_cap bytes) is zero
    bool untouched = false;  // the output region holds what it held before the call
    std::string detail;
};

bool all_zero(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (p[i]) return false;
    return true;
}

// Places in at the layout's position; out_cap bytes of output room. The
// buffers are oversized so the library always gets non-NULL pointers.
struct Buffers {
    std::vector<uint8_t> inbuf, outbuf;
    uint8_t* in = nullptr;
    uint8_t* out = nullptr;
    Buffers(const Bytes& input, size_t out_cap, Layout l) {
        const size_t room = std::max(input.size(), out_cap) + 64;
        const size_t shift = (l == Layout::Misaligned || l == Layout::MisalignedInPlace) ? 1 : 0;
        inbuf.assign(room, 0xC3);
        in = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(inbuf.data()) + 15) & ~uintptr_t(15)) + shift;
        if (!input.empty()) std::memcpy(in, input.data(), input.size());
        if (l == Layout::InPlace || l == Layout::MisalignedInPlace) {
            out = in;
        } else {
            outbuf.assign(room, 0xA5);
            out = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(outbuf.data()) + 15) & ~uintptr_t(15)) +
                  (shift ? 3 : 0);
        }
    }
};

bc_params make_params(const Case& c) {
    bc_params p;
    std::memset(&p, 0, sizeof p);
    p.flags = c.flags;
    p.memory = BC_MEMORY_HOST;
    p.offset = c.offset;
    p.data_unit_size = c.data_unit;
    return p;
}

CallResult raw_oneshot(bc_key* k, bool enc, const Case& c, const Bytes& input, Layout l) {
    const size_t cap = input.size() + ((enc && (c.flags & BC_FLAG_PAD_PKCS7)) ? 16 : 0);
    Buffers b(input, cap, l);
    bc_params p = make_params(c);
    CallResult r;
    size_t out_len = 12345;
    r.st = enc ? bc_encrypt(k, c.iv.data(), c.iv.size(), b.in, input.size(), b.out, cap, &out_len, &p)
               : bc_decrypt(k, c.iv.data(), c.iv.size(), b.in, input.size(), b.out, cap, &out_len, &p);
    r.detail = status_text(r.st);
    r.out_len = out_len;
    if (r.st == BC_OK && out_len <= cap) r.out.assign(b.out, b.out + out_len);
    r.wiped = all_zero(b.out, cap);
    if (b.out == b.in) {
        r.untouched = input.empty() || std::memcmp(b.out, input.data(), input.size()) == 0;
    } else {
        r.untouched = true;
        for (size_t i = 0; i < cap; ++i) r.untouched = r.untouched && b.out[i] == 0xA5;
    }
    return r;
}

CallResult raw_stream(bc_key* k, bool enc, const Case& c, const Bytes& input, const std::vector<size_t>& split) {
    CallResult r;
    bc_params p = make_params(c);
    bc_stream* s = nullptr;
    r.st = bc_stream_create(k, enc ? BC_ENCRYPT : BC_DECRYPT, c.iv.data(), c.iv.size(), &p, &s);
    if (r.st != BC_OK) {
        r.detail = "bc_stream_create: " + status_text(r.st);
        return r;
    }
    // Room: update may hold back and later write up to 64 bytes, or one XTS data unit.
    std::vector<uint8_t> out(input.size() + 64 + static_cast<size_t>(c.data_unit) + 16, 0xA5);
    std::vector<uint8_t> in(input.size() + 1);
    if (!input.empty()) std::memcpy(in.data(), input.data(), input.size());
    size_t pos = 0, written = 0;
    for (size_t piece : split) {
        size_t n = 0;
        r.st = bc_stream_update(s, in.data() + pos, piece, out.data() + written, out.size() - written, &n);
        if (r.st != BC_OK) {
            r.detail = "bc_stream_update(" + std::to_string(piece) + " bytes at " + std::to_string(pos) +
                       "): " + status_text(r.st);
            bc_stream_destroy(s);
            return r;
        }
        if (n > out.size() - written) {
            r.st = BC_ERR_INTERNAL;
            r.detail = "bc_stream_update reported more bytes than the room it had";
            bc_stream_destroy(s);
            return r;
        }
        pos += piece;
        written += n;
    }
    size_t n = 0;
    r.st = bc_stream_final(s, out.data() + written, out.size() - written, &n);
    bc_stream_destroy(s);
    if (r.st != BC_OK) {
        r.detail = "bc_stream_final: " + status_text(r.st);
        return r;
    }
    written += n;
    r.out.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(std::min(written, out.size())));
    r.out_len = written;
    return r;
}

std::string split_text(const std::vector<size_t>& split) {
    std::string s;
    for (size_t i = 0; i < split.size() && i < 8; ++i) s += (i ? "," : "") + std::to_string(split[i]);
    if (split.size() > 8) s += ",...(" + std::to_string(split.size()) + " pieces)";
    return s;
}

// Judges one output of a valid raw case.
std::string judge(const Case& c, const CallResult& r, const Bytes& want, const std::string& what) {
    if (r.st != BC_OK) return what + ": " + (r.detail.empty() ? status_text(r.st) : r.detail);
    if (c.check) {
        std::string e = c.check(r.out);
        return e.empty() ? "" : what + ": " + e;
    }
    if (r.out != want) return what + ": " + describe_mismatch(r.out, want);
    return "";
}

std::string run_raw(bc_key* k, const Case& c, Rng& rng) {
    if (c.expect == Expect::BadPadding) {
        // Decryption of a malformed padding: BC_ERR_BAD_PADDING, output wiped.
        for (Layout l : kLayouts) {
            CallResult r = raw_oneshot(k, false, c, c.ct, l);
            bool ok = r.st == BC_ERR_BAD_PADDING || (c.ct.empty() && r.st == BC_ERR_INPUT_LENGTH);
            if (!ok)
                return std::string("decrypt ") + layout_name(l) + ": got " + r.detail + ", want BC_ERR_BAD_PADDING";
            if (r.out_len != 0) return std::string("decrypt ") + layout_name(l) + ": out_len not 0 on failure";
            if (!r.wiped) return std::string("decrypt ") + layout_name(l) + ": output not wiped on failure";
        }
        CallResult r = raw_stream(k, false, c, c.ct, random_split(c.ct.size(), rng, 1));
        if (r.st != BC_ERR_BAD_PADDING && !(c.ct.empty() && r.st == BC_ERR_INPUT_LENGTH))
            return "streaming decrypt: got " + (r.st == BC_OK ? std::string("BC_OK") : r.detail) +
                   ", want BC_ERR_BAD_PADDING";
        return "";
    }
    if (c.expect == Expect::CounterOverflow) {
        for (int dir = 0; dir < 2; ++dir) {
            const bool enc = dir == 0;
            const std::string d = enc ? "encrypt " : "decrypt ";
            for (Layout l : kLayouts) {
                CallResult r = raw_oneshot(k, enc, c, enc ? c.pt : c.ct, l);
                if (r.st != BC_ERR_COUNTER_OVERFLOW)
                    return d + layout_name(l) + ": the counter wraps; got " + (r.st == BC_OK ? "BC_OK" : r.detail) +
                           ", want BC_ERR_COUNTER_OVERFLOW";
                // Refused by the argument checks (IV and length say it all):
                // the header says such a call writes nothing.
                if (r.out_len != 0) return d + layout_name(l) + ": out_len not 0 on failure";
                if (!r.untouched)
                    return d + layout_name(l) + ": BC_ERR_COUNTER_OVERFLOW but the output was written (" +
                           (r.wiped ? "wiped" : "changed") + "); a call refused by its argument checks writes nothing";
            }
            CallResult r = raw_stream(k, enc, c, enc ? c.pt : c.ct, random_split(c.pt.size(), rng, 1));
            if (r.st != BC_ERR_COUNTER_OVERFLOW)
                return d + "streaming: the counter wraps; got " + (r.st == BC_OK ? "BC_OK" : r.detail) +
                       ", want BC_ERR_COUNTER_OVERFLOW";
        }
        return "";
    }
    if (c.expect != Expect::Valid) return "internal: raw cases are valid, bad-padding or counter-overflow";
    for (int dir = 0; dir < 2; ++dir) {
        const bool enc = dir == 0;
        if (enc ? !c.encrypt : !c.decrypt) continue;
        // With a check function the input is pt in both directions (keystream
        // ciphers: decrypting zeros gives the keystream too).
        const Bytes& input = (enc || c.check) ? c.pt : c.ct;
        const Bytes& want = (enc || c.check) ? c.ct : c.pt;
        const std::string d = enc ? "encrypt " : "decrypt ";
        for (Layout l : kLayouts) {
            std::string e = judge(c, raw_oneshot(k, enc, c, input, l), want, d + layout_name(l));
            if (!e.empty()) return e;
        }
        for (int style = 0; style < 2; ++style) {
            std::vector<size_t> split = random_split(input.size(), rng, style);
            std::string e = judge(c, raw_stream(k, enc, c, input, split), want,
                                  d + "streaming pieces " + split_text(split));
            if (!e.empty()) return e;
        }
    }
    return "";
}

// ---- AEAD ----------------------------------------------------------------------------------

CallResult aead_seal(bc_key* k, const Case& c, const Bytes& aad, Layout l) {
    const size_t cap = c.pt.size() + c.tag.size();
    Buffers b(c.pt, cap, l);
    Bytes ad(aad.size() + 1);
    if (!aad.empty()) std::memcpy(ad.data(), aad.data(), aad.size());
    CallResult r;
    size_t out_len = 12345;
    r.st = bc_aead_seal(k, c.iv.data(), c.iv.size(), ad.data(), aad.size(), b.in, c.pt.size(), b.out, cap,
                        &out_len, c.tag.size(), nullptr);
    r.detail = status_text(r.st);
    r.out_len = out_len;
    if (r.st == BC_OK && out_len <= cap) r.out.assign(b.out, b.out + out_len);
    return r;
}

CallResult aead_open(bc_key* k, const Case& c, const Bytes& aad, const Bytes& input, Layout l) {
    const size_t cap = input.size() >= c.tag.size() ? input.size() - c.tag.size() : 0;
    Buffers b(input, std::max<size_t>(cap, 1), l);
    Bytes ad(aad.size() + 1);
    if (!aad.empty()) std::memcpy(ad.data(), aad.data(), aad.size());
    CallResult r;
    size_t out_len = 12345;
    r.st = bc_aead_open(k, c.iv.data(), c.iv.size(), ad.data(), aad.size(), b.in, input.size(), b.out, cap,
                        &out_len, c.tag.size(), nullptr);
    r.detail = status_text(r.st);
    r.out_len = out_len;
    if (r.st == BC_OK && out_len <= cap) r.out.assign(b.out, b.out + out_len);
    r.wiped = all_zero(b.out, cap);
    return r;
}

CallResult aead_seal_detached(bc_key* k, const Case& c) {
    Buffers b(c.pt, c.pt.size(), Layout::Apart);
    Bytes tag(c.tag.size() + 1, 0xA5), ad(c.aad.size() + 1);
    if (!c.aad.empty()) std::memcpy(ad.data(), c.aad.data(), c.aad.size());
    CallResult r;
    r.st = bc_aead_seal_detached(k, c.iv.data(), c.iv.size(), ad.data(), c.aad.size(), b.in, c.pt.size(), b.out,
                                 tag.data(), c.tag.size(), nullptr);
    r.detail = status_text(r.st);
    if (r.st == BC_OK) {
        r.out.assign(b.out, b.out + c.pt.size());
        r.out.insert(r.out.end(), tag.begin(), tag.begin() + static_cast<std::ptrdiff_t>(c.tag.size()));
    }
    return r;
}

CallResult aead_open_detached(bc_key* k, const Case& c, const Bytes& tag) {
    Buffers b(c.ct, std::max<size_t>(c.ct.size(), 1), Layout::Misaligned);
    Bytes t(tag.size() + 1), ad(c.aad.size() + 1);
    if (!tag.empty()) std::memcpy(t.data(), tag.data(), tag.size());
    if (!c.aad.empty()) std::memcpy(ad.data(), c.aad.data(), c.aad.size());
    CallResult r;
    r.st = bc_aead_open_detached(k, c.iv.data(), c.iv.size(), ad.data(), c.aad.size(), b.in, c.ct.size(), t.data(),
                                 tag.size(), b.out, nullptr);
    r.detail = status_text(r.st);
    if (r.st == BC_OK) r.out.assign(b.out, b.out + c.ct.size());
    r.wiped = all_zero(b.out, c.ct.size());
    return r;
}

// Streaming AEAD: the AAD in two pieces, the body in random pieces.
CallResult aead_stream(bc_key* k, const Case& c, bool enc, const Bytes& input, const Bytes& tag_in,
                       const std::vector<size_t>& split) {
    CallResult r;
    bc_stream* s = nullptr;
    r.st = bc_stream_create(k, enc ? BC_ENCRYPT : BC_DECRYPT, c.iv.data(), c.iv.size(), nullptr, &s);
    if (r.st != BC_OK) {
        r.detail = "bc_stream_create: " + status_text(r.st);
        return r;
    }
    auto fail = [&](const std::string& what) {
        r.detail = what + ": " + status_text(r.st);
        bc_stream_destroy(s);
        return r;
    };
    Bytes ad(c.aad.size() + 1);
    if (!c.aad.empty()) std::memcpy(ad.data(), c.aad.data(), c.aad.size());
    const size_t half = c.aad.size() / 3;
    if ((r.st = bc_stream_aad(s, ad.data(), half)) != BC_OK) return fail("bc_stream_aad");
    if ((r.st = bc_stream_aad(s, ad.data() + half, c.aad.size() - half)) != BC_OK) return fail("bc_stream_aad");
    std::vector<uint8_t> out(input.size() + 64, 0xA5), in(input.size() + 1);
    if (!input.empty()) std::memcpy(in.data(), input.data(), input.size());
    size_t pos = 0, written = 0;
    for (size_t piece : split) {
        size_t n = 0;
        r.st = bc_stream_update(s, in.data() + pos, piece, out.data() + written, out.size() - written, &n);
        if (r.st != BC_OK) return fail("bc_stream_update");
        pos += piece;
        written += std::min(n, out.size() - written);
    }
    if (!enc) {
        Bytes t(tag_in.size() + 1);
        if (!tag_in.empty()) std::memcpy(t.data(), tag_in.data(), tag_in.size());
        if ((r.st = bc_stream_set_tag(s, t.data(), tag_in.size())) != BC_OK) return fail("bc_stream_set_tag");
    }
    size_t n = 0;
    r.st = bc_stream_final(s, out.data() + written, out.size() - written, &n);
    if (r.st != BC_OK) return fail("bc_stream_final");
    written += std::min(n, out.size() - written);
    r.out.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(written));
    if (enc) {
        Bytes t(c.tag.size() + 1, 0xA5);
        if ((r.st = bc_stream_get_tag(s, t.data(), c.tag.size())) != BC_OK) return fail("bc_stream_get_tag");
        r.out.insert(r.out.end(), t.begin(), t.begin() + static_cast<std::ptrdiff_t>(c.tag.size()));
    }
    bc_stream_destroy(s);
    return r;
}

Bytes concat(const Bytes& a, const Bytes& b) {
    Bytes r = a;
    r.insert(r.end(), b.begin(), b.end());
    return r;
}

// An open that must fail with BC_ERR_AUTH_FAILED and release nothing.
std::string must_fail_auth(const CallResult& r, const std::string& what) {
    if (r.st != BC_ERR_AUTH_FAILED) return what + ": got " + (r.st == BC_OK ? "BC_OK" : r.detail) + ", want BC_ERR_AUTH_FAILED";
    if (!r.wiped) return what + ": BC_ERR_AUTH_FAILED but the output is not zeroed";
    if (r.out_len != 0) return what + ": out_len " + std::to_string(r.out_len) + " on failure, want 0";
    return "";
}

std::string run_aead(bc_key* k, const Case& c, Rng& rng) {
    const Bytes sealed = concat(c.ct, c.tag);
    if (c.expect == Expect::IvSize) {
        CallResult s = aead_seal(k, c, c.aad, Layout::Apart);
        if (s.st != BC_ERR_IV_SIZE) return "seal with a " + std::to_string(c.iv.size()) + "-byte nonce: got " + s.detail + ", want BC_ERR_IV_SIZE";
        CallResult o = aead_open(k, c, c.aad, sealed, Layout::Apart);
        if (o.st != BC_ERR_IV_SIZE) return "open with a " + std::to_string(c.iv.size()) + "-byte nonce: got " + o.detail + ", want BC_ERR_IV_SIZE";
        bc_stream* st = nullptr;
        bc_status cs = bc_stream_create(k, BC_DECRYPT, c.iv.data(), c.iv.size(), nullptr, &st);
        bc_stream_destroy(st);
        if (cs != BC_ERR_IV_SIZE) return "bc_stream_create with a bad nonce: got " + status_text(cs) + ", want BC_ERR_IV_SIZE";
        return "";
    }
    if (c.expect == Expect::AuthFailed) {
        for (Layout l : kLayouts) {
            std::string e = must_fail_auth(aead_open(k, c, c.aad, sealed, l), std::string("open ") + layout_name(l));
            if (!e.empty()) return e;
        }
        std::string e = must_fail_auth(aead_open_detached(k, c, c.tag), "open detached");
        if (!e.empty()) return e;
        CallResult r = aead_stream(k, c, false, c.ct, c.tag, random_split(c.ct.size(), rng, 0));
        if (r.st != BC_ERR_AUTH_FAILED) return "streaming open: got " + (r.st == BC_OK ? std::string("BC_OK") : r.detail) + ", want BC_ERR_AUTH_FAILED";
        return "";
    }
    // Valid: seal and open in every form.
    for (Layout l : kLayouts) {
        CallResult r = aead_seal(k, c, c.aad, l);
        if (r.st != BC_OK) return std::string("seal ") + layout_name(l) + ": " + r.detail;
        if (r.out != sealed) return std::string("seal ") + layout_name(l) + ": " + describe_mismatch(r.out, sealed);
    }
    {
        CallResult r = aead_seal_detached(k, c);
        if (r.st != BC_OK) return "seal detached: " + r.detail;
        if (r.out != sealed) return "seal detached: " + describe_mismatch(r.out, sealed);
        std::vector<size_t> split = random_split(c.pt.size(), rng, 1);
        r = aead_stream(k, c, true, c.pt, {}, split);
        if (r.st != BC_OK) return "streaming seal pieces " + split_text(split) + ": " + r.detail;
        if (r.out != sealed) return "streaming seal pieces " + split_text(split) + ": " + describe_mismatch(r.out, sealed);
    }
    for (Layout l : kLayouts) {
        CallResult r = aead_open(k, c, c.aad, sealed, l);
        if (r.st != BC_OK) return std::string("open ") + layout_name(l) + ": " + r.detail;
        if (r.out != c.pt) return std::string("open ") + layout_name(l) + ": " + describe_mismatch(r.out, c.pt);
    }
    {
        CallResult r = aead_open_detached(k, c, c.tag);
        if (r.st != BC_OK) return "open detached: " + r.detail;
        if (r.out != c.pt) return "open detached: " + describe_mismatch(r.out, c.pt);
        std::vector<size_t> split = random_split(c.ct.size(), rng, 0);
        r = aead_stream(k, c, false, c.ct, c.tag, split);
        if (r.st != BC_OK) return "streaming open pieces " + split_text(split) + ": " + r.detail;
        if (r.out != c.pt) return "streaming open pieces " + split_text(split) + ": " + describe_mismatch(r.out, c.pt);
    }
    // Negative re-opens: one flipped bit in ct, tag and aad; a trailing byte.
    if (!c.ct.empty()) {
        Bytes bad = sealed;
        bad[rng.below(c.ct.size())] ^= static_cast<uint8_t>(1u << rng.below(8));
        std::string e = must_fail_auth(aead_open(k, c, c.aad, bad, Layout::Apart), "open with a flipped ciphertext bit");
        if (!e.empty()) return e;
    }
    {
        Bytes bad = sealed;
        bad[c.ct.size() + rng.below(c.tag.size())] ^= static_cast<uint8_t>(1u << rng.below(8));
        std::string e = must_fail_auth(aead_open(k, c, c.aad, bad, Layout::Misaligned), "open with a flipped tag bit");
        if (!e.empty()) return e;
        Bytes badtag(bad.begin() + static_cast<std::ptrdiff_t>(c.ct.size()), bad.end());
        e = must_fail_auth(aead_open_detached(k, c, badtag), "open detached with a flipped tag bit");
        if (!e.empty()) return e;
        CallResult r = aead_stream(k, c, false, c.ct, badtag, random_split(c.ct.size(), rng, 1));
        if (r.st != BC_ERR_AUTH_FAILED) return "streaming open with a flipped tag bit: got " + (r.st == BC_OK ? std::string("BC_OK") : r.detail) + ", want BC_ERR_AUTH_FAILED";
    }
    if (!c.aad.empty()) {
        Bytes bad_aad = c.aad;
        bad_aad[rng.below(bad_aad.size())] ^= static_cast<uint8_t>(1u << rng.below(8));
        std::string e = must_fail_auth(aead_open(k, c, bad_aad, sealed, Layout::InPlace), "open with a flipped AAD bit");
        if (!e.empty()) return e;
    }
    {
        Bytes longer = sealed;
        longer.push_back(0);
        std::string e = must_fail_auth(aead_open(k, c, c.aad, longer, Layout::Apart), "open with a trailing byte");
        if (!e.empty()) return e;
    }
    return "";
}

}  // namespace

// ---- the case runner -------------------------------------------------------------------------

// What is running now, for the crash report (a crash inside the library must
// still name the case that caused it).
static char g_current[1024];

const char* current_case() { return g_current; }
void set_current(const std::string& what) { std::snprintf(g_current, sizeof g_current, "%s", what.c_str()); }

bool runs_on(const BackendSlot& b, const Case& c) {
    return !b.aes_raw_only || (c.type == CaseType::Raw && starts_with(c.alg, "aes-"));
}

void run_case(const Case& c) {
    if (!c.skip.empty()) {   // not applicable anywhere: one row, not one per backend
        results().skip(RowKey{c.alg, c.source, "(every backend)"}, c.skip);
        return;
    }
    for (BackendSlot& b : g_backends) {
        if (!runs_on(b, c)) continue;
        std::snprintf(g_current, sizeof g_current, "%s on %s (%s)", c.id.c_str(), b.label.c_str(), c.alg.c_str());
        const RowKey row{c.alg, c.source, b.label};
        if (b.ctx == nullptr) {   // a backend this machine lacks: one row for all its cases
            results().skip(RowKey{"(every case)", "(every file and test)", b.label}, b.unavailable);
            continue;
        }
        bc_key* k = nullptr;
        bc_status st = bc_key_create(b.ctx, c.alg.c_str(), c.key.data(), c.key.size(), &k);
        if (st == BC_ERR_UNKNOWN_ALGORITHM) {
            results().skip(row, "'" + c.alg + "' is not in this build's catalogue");
            continue;
        }
        if (st == BC_ERR_NOT_SUPPORTED) {
            results().skip(row, "backend does not support '" + c.alg + "': " + status_text(st));
            continue;
        }
        if (st != BC_OK) {
            results().fail(row, c.id, "bc_key_create: " + status_text(st));
            continue;
        }
        Rng rng(hash_string(c.id + "|" + b.label));
        std::string err = c.type == CaseType::Raw ? run_raw(k, c, rng) : run_aead(k, c, rng);
        bc_key_destroy(k);
        if (err.empty()) {
            results().pass(row);
            if (c.expect == Expect::CounterOverflow)
                results().note(row, "counter wraps: the file expects the wrap; held to bulkcrypt's contract, "
                                    "BC_ERR_COUNTER_OVERFLOW (e.g. " + c.id.substr(0, c.id.find(" (the counter")) + ")");
        }
        else
            results().fail(row, c.id, err);
    }
}

}  // namespace conf
