// Bad input (issue 2, item 7): each misuse has its own status, and a refused
// call releases nothing. Run on every backend this build opens.
//
// GCM's per-message limit (2^36 - 32 bytes) cannot be reached with real data on
// a test machine, so the over-limit calls get buffers that are reserved but not
// accessible (PROT_NONE): the length must be refused before any byte is
// touched; touching one ends the run with a crash report naming the check.
#include <sys/mman.h>

#include <cstring>
#include <set>

#include <gtest/gtest.h>

#include "runner.h"
#include "table.h"

namespace conf {
namespace {

const char* kSource = "bad input";

class BadInput : public testing::Test {
protected:
    void SetUp() override { failed_before_ = results().total_failed(); }
    void TearDown() override { EXPECT_EQ(results().total_failed(), failed_before_) << "see the table"; }

    // One check: got must be want.
    void expect(const std::string& alg, const std::string& backend, const std::string& what, bc_status got,
                bc_status want) {
        const RowKey row{alg, kSource, backend};
        if (got == want) {
            results().pass(row);
        } else {
            const char* d = bc_last_error();
            results().fail(row, "bad input: " + what,
                           "got " + status_name(got) + (d && *d ? " (" + std::string(d) + ")" : "") + ", want " +
                               status_name(want));
        }
    }
    void expect_true(const std::string& alg, const std::string& backend, const std::string& what, bool ok,
                     const std::string& why) {
        const RowKey row{alg, kSource, backend};
        if (ok) results().pass(row);
        else results().fail(row, "bad input: " + what, why);
    }
    size_t failed_before_ = 0;
};

bc_key* make_key(bc_context* ctx, const char* alg, size_t len) {
    Bytes k(len);
    for (size_t i = 0; i < len; ++i) k[i] = static_cast<uint8_t>(i * 7 + 1);
    bc_key* key = nullptr;
    if (bc_key_create(ctx, alg, k.data(), k.size(), &key) != BC_OK) return nullptr;
    return key;
}

bool all_zero(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (p[i]) return false;
    return true;
}

TEST_F(BadInput, ApiWide) {
    const std::string b = "(api)";
    bc_context* ctx = nullptr;
    expect("context", b, "device \"gpu:x\"", bc_context_create("gpu:x", nullptr, &ctx), BC_ERR_BAD_DEVICE);
    bc_context_destroy(ctx), ctx = nullptr;
    expect("context", b, "device \"cuda:x\"", bc_context_create("cuda:x", nullptr, &ctx), BC_ERR_BAD_DEVICE);
    bc_context_destroy(ctx), ctx = nullptr;
    expect("context", b, "option \"nosuchkey=1\"", bc_context_create("cpu", "nosuchkey=1", &ctx), BC_ERR_BAD_OPTION);
    bc_context_destroy(ctx), ctx = nullptr;
    expect("context", b, "option \"threads=abc\"", bc_context_create("cpu", "threads=abc", &ctx), BC_ERR_BAD_OPTION);
    bc_context_destroy(ctx), ctx = nullptr;
    expect("context", b, "option \"cpu.impl=fast\"", bc_context_create("cpu", "cpu.impl=fast", &ctx),
           BC_ERR_BAD_OPTION);
    bc_context_destroy(ctx), ctx = nullptr;
    expect("context", b, "device \"cuda:99\" (absent)", bc_context_create("cuda:99", nullptr, &ctx), BC_ERR_NO_DEVICE);
    bc_context_destroy(ctx), ctx = nullptr;
    expect("context", b, "bc_context_create(ctx = NULL)", bc_context_create("cpu", nullptr, nullptr),
           BC_ERR_NULL_POINTER);

    // Every status has its own sentence.
    std::set<std::string> seen;
    bool distinct = true;
    for (int s = BC_OK; s <= BC_ERR_INTERNAL; ++s) {
        const char* m = bc_status_message(static_cast<bc_status>(s));
        if (m == nullptr || !seen.insert(m).second) distinct = false;
    }
    expect_true("status", b, "bc_status_message distinct and non-NULL for every status", distinct,
                "two statuses share a message, or one is NULL");
    expect_true("status", b, "bc_status_message of an out-of-range value is not NULL",
                bc_status_message(static_cast<bc_status>(999)) != nullptr, "NULL");

    bc_algorithm_info info;
    expect("catalogue", b, "bc_algorithm_query(\"aes-999-gcm\")", bc_algorithm_query("aes-999-gcm", &info),
           BC_ERR_UNKNOWN_ALGORITHM);
    expect("catalogue", b, "bc_algorithm_query(NULL)", bc_algorithm_query(nullptr, &info), BC_ERR_NULL_POINTER);
    expect_true("catalogue", b, "bc_max_message_size(\"aes-128-gcm\") = 2^36 - 32",
                bc_max_message_size("aes-128-gcm") == (uint64_t(1) << 36) - 32,
                "got " + std::to_string(bc_max_message_size("aes-128-gcm")));
    expect_true("catalogue", b, "sizes of an unknown name are 0",
                bc_key_size("nope") == 0 && bc_iv_size("nope") == 0 && bc_tag_size("nope") == 0, "not 0");
    expect_true("catalogue", b, "bc_key_size(\"aes-256-xts\") = 64 (both keys)", bc_key_size("aes-256-xts") == 64,
                "got " + std::to_string(bc_key_size("aes-256-xts")));
}

TEST_F(BadInput, PerBackend) {
    for (BackendSlot& slot : backends()) {
        if (slot.ctx == nullptr) {
            results().skip(RowKey{"(every check)", kSource, slot.label}, slot.unavailable);
            continue;
        }
        const std::string b = slot.label;
        set_current("bad input on " + b);
        bc_context* ctx = slot.ctx;
        Bytes key32(32, 1), key15(15, 1), iv16(16, 2), iv12(12, 3), data(4096, 4), out(4096 + 64, 0xAA);
        size_t n = 0;
        bc_key* k = nullptr;

        // ---- keys
        expect("aes-128-gcm", b, "15-byte key", bc_key_create(ctx, "aes-128-gcm", key15.data(), 15, &k),
               BC_ERR_KEY_SIZE);
        bc_key_destroy(k), k = nullptr;
        expect("aes-256-xts", b, "48-byte key (2x192)", bc_key_create(ctx, "aes-256-xts", data.data(), 48, &k),
               BC_ERR_KEY_SIZE);
        bc_key_destroy(k), k = nullptr;
        expect("chacha20", b, "16-byte key", bc_key_create(ctx, "chacha20", key32.data(), 16, &k), BC_ERR_KEY_SIZE);
        bc_key_destroy(k), k = nullptr;
        expect("(catalogue)", b, "unknown algorithm \"aes-128-ocb\"",
               bc_key_create(ctx, "aes-128-ocb", key32.data(), 16, &k), BC_ERR_UNKNOWN_ALGORITHM);
        bc_key_destroy(k), k = nullptr;
        expect("(catalogue)", b, "bc_key_create(algorithm = NULL)", bc_key_create(ctx, nullptr, key32.data(), 16, &k),
               BC_ERR_NULL_POINTER);
        expect("aes-128-ctr", b, "bc_key_create(key = NULL)", bc_key_create(ctx, "aes-128-ctr", nullptr, 16, &k),
               BC_ERR_NULL_POINTER);
        expect("aes-128-ctr", b, "bc_key_create(ctx = NULL)",
               bc_key_create(nullptr, "aes-128-ctr", key32.data(), 16, &k), BC_ERR_NULL_POINTER);
        expect("aes-128-ctr", b, "bc_key_create(out = NULL)",
               bc_key_create(ctx, "aes-128-ctr", key32.data(), 16, nullptr), BC_ERR_NULL_POINTER);

        // ---- raw modes
        bc_key* ctr = make_key(ctx, "aes-128-ctr", 16);
        bc_key* cbc = make_key(ctx, "aes-128-cbc", 16);
        bc_key* ecb = make_key(ctx, "aes-128-ecb", 16);
        bc_key* xts = make_key(ctx, "aes-128-xts", 32);
        bc_key* gcm = make_key(ctx, "aes-128-gcm", 16);
        bc_key* cp = make_key(ctx, "chacha20-poly1305", 32);
        if (!ctr || !cbc || !ecb || !xts || !gcm || !cp) {
            results().fail(RowKey{"(keys)", kSource, b}, "bad input: key creation", "a valid key was refused");
        } else {
            expect("aes-128-ctr", b, "12-byte CTR counter block",
                   bc_encrypt(ctr, iv12.data(), 12, data.data(), 64, out.data(), out.size(), &n, nullptr),
                   BC_ERR_IV_SIZE);
            expect("aes-128-cbc", b, "15-byte CBC IV",
                   bc_encrypt(cbc, iv16.data(), 15, data.data(), 64, out.data(), out.size(), &n, nullptr),
                   BC_ERR_IV_SIZE);
            expect("aes-128-ecb", b, "ECB given a 16-byte IV",
                   bc_encrypt(ecb, iv16.data(), 16, data.data(), 64, out.data(), out.size(), &n, nullptr),
                   BC_ERR_IV_SIZE);
            expect("aes-128-cbc", b, "CBC 33 bytes without padding",
                   bc_encrypt(cbc, iv16.data(), 16, data.data(), 33, out.data(), out.size(), &n, nullptr),
                   BC_ERR_INPUT_LENGTH);
            expect("aes-128-ecb", b, "ECB decrypt 17 bytes",
                   bc_decrypt(ecb, nullptr, 0, data.data(), 17, out.data(), out.size(), &n, nullptr),
                   BC_ERR_INPUT_LENGTH);
            expect("aes-128-xts", b, "XTS 15 bytes",
                   bc_encrypt(xts, iv16.data(), 16, data.data(), 15, out.data(), out.size(), &n, nullptr),
                   BC_ERR_INPUT_LENGTH);
            expect("aes-128-xts", b, "XTS 0 bytes",
                   bc_encrypt(xts, iv16.data(), 16, data.data(), 0, out.data(), out.size(), &n, nullptr),
                   BC_ERR_INPUT_LENGTH);
            {
                bc_params p;
                std::memset(&p, 0, sizeof p);
                p.data_unit_size = 512;
                std::memset(out.data(), 0xAA, out.size());
                bc_status st = bc_encrypt(xts, iv16.data(), 16, data.data(), 512 + 8, out.data(), out.size(), &n, &p);
                expect("aes-128-xts", b, "XTS data units of 512 with a last unit of 8 bytes", st, BC_ERR_INPUT_LENGTH);
                bool untouched = true;
                for (size_t i = 0; i < out.size(); ++i) untouched = untouched && out[i] == 0xAA;
                expect_true("aes-128-xts", b, "XTS refused by its argument checks: output untouched, out_len 0",
                            n == 0 && untouched, "the output was written or out_len is not 0");
            }
            expect("aes-128-cbc", b, "PKCS#7 encrypt with out_cap = in_len (needs one more block)", [&] {
                bc_params p;
                std::memset(&p, 0, sizeof p);
                p.flags = BC_FLAG_PAD_PKCS7;
                return bc_encrypt(cbc, iv16.data(), 16, data.data(), 32, out.data(), 32, &n, &p);
            }(), BC_ERR_OUTPUT_TOO_SMALL);
            expect("aes-128-ctr", b, "out_cap one byte short",
                   bc_encrypt(ctr, iv16.data(), 16, data.data(), 100, out.data(), 99, &n, nullptr),
                   BC_ERR_OUTPUT_TOO_SMALL);
            // CTR wrap past 2^128 - 1.
            Bytes top(16, 0xff);
            expect("aes-128-ctr", b, "CTR from counter 2^128-1 for 17 bytes",
                   bc_encrypt(ctr, top.data(), 16, data.data(), 17, out.data(), out.size(), &n, nullptr),
                   BC_ERR_COUNTER_OVERFLOW);
            expect("aes-128-ctr", b, "CTR from counter 2^128-1 for 16 bytes (allowed)",
                   bc_encrypt(ctr, top.data(), 16, data.data(), 16, out.data(), out.size(), &n, nullptr), BC_OK);
            // Null pointers.
            expect("aes-128-ctr", b, "bc_encrypt(key = NULL)",
                   bc_encrypt(nullptr, iv16.data(), 16, data.data(), 16, out.data(), out.size(), &n, nullptr),
                   BC_ERR_NULL_POINTER);
            expect("aes-128-ctr", b, "bc_encrypt(iv = NULL, iv_len 16)",
                   bc_encrypt(ctr, nullptr, 16, data.data(), 16, out.data(), out.size(), &n, nullptr),
                   BC_ERR_NULL_POINTER);
            expect("aes-128-ctr", b, "bc_encrypt(in = NULL, in_len 16)",
                   bc_encrypt(ctr, iv16.data(), 16, nullptr, 16, out.data(), out.size(), &n, nullptr),
                   BC_ERR_NULL_POINTER);
            expect("aes-128-ctr", b, "bc_encrypt(out = NULL)",
                   bc_encrypt(ctr, iv16.data(), 16, data.data(), 16, nullptr, 16, &n, nullptr), BC_ERR_NULL_POINTER);
            expect("aes-128-ctr", b, "bc_encrypt(out_len = NULL)",
                   bc_encrypt(ctr, iv16.data(), 16, data.data(), 16, out.data(), out.size(), nullptr, nullptr),
                   BC_ERR_NULL_POINTER);
            // Partial overlap, both ways; in place is fine.
            {
                std::vector<uint8_t> buf(300, 5);
                expect("aes-128-ctr", b, "out = in + 1 (partial overlap)",
                       bc_encrypt(ctr, iv16.data(), 16, buf.data(), 200, buf.data() + 1, 200, &n, nullptr),
                       BC_ERR_OVERLAP);
                expect("aes-128-ctr", b, "in = out + 64 (partial overlap)",
                       bc_encrypt(ctr, iv16.data(), 16, buf.data() + 64, 200, buf.data(), 200, &n, nullptr),
                       BC_ERR_OVERLAP);
                expect("aes-128-ctr", b, "out = in (in place)",
                       bc_encrypt(ctr, iv16.data(), 16, buf.data(), 200, buf.data(), 200, &n, nullptr), BC_OK);
                expect("aes-128-gcm", b, "seal with out = in + 3 (partial overlap)",
                       bc_aead_seal(gcm, iv12.data(), 12, nullptr, 0, buf.data(), 100, buf.data() + 3, 116, &n, 16,
                                    nullptr),
                       BC_ERR_OVERLAP);
            }

            // ---- AEAD
            const size_t ct_len = 100;
            Bytes sealed(ct_len + 16);
            bc_status st = bc_aead_seal(gcm, iv12.data(), 12, iv16.data(), 16, data.data(), ct_len, sealed.data(),
                                        sealed.size(), &n, 16, nullptr);
            expect("aes-128-gcm", b, "seal (setup)", st, BC_OK);
            expect("aes-128-gcm", b, "tag_len 3", bc_aead_seal(gcm, iv12.data(), 12, nullptr, 0, data.data(), 10,
                                                               out.data(), out.size(), &n, 3, nullptr),
                   BC_ERR_TAG_SIZE);
            expect("aes-128-gcm", b, "tag_len 17", bc_aead_seal(gcm, iv12.data(), 12, nullptr, 0, data.data(), 10,
                                                                out.data(), out.size(), &n, 17, nullptr),
                   BC_ERR_TAG_SIZE);
            expect("chacha20-poly1305", b, "tag_len 12",
                   bc_aead_seal(cp, iv12.data(), 12, nullptr, 0, data.data(), 10, out.data(), out.size(), &n, 12,
                                nullptr),
                   BC_ERR_TAG_SIZE);
            expect("aes-128-gcm", b, "0-byte nonce", bc_aead_seal(gcm, iv12.data(), 0, nullptr, 0, data.data(), 10,
                                                                  out.data(), out.size(), &n, 16, nullptr),
                   BC_ERR_IV_SIZE);
            expect("chacha20-poly1305", b, "8-byte nonce",
                   bc_aead_seal(cp, iv12.data(), 8, nullptr, 0, data.data(), 10, out.data(), out.size(), &n, 16,
                                nullptr),
                   BC_ERR_IV_SIZE);
            expect("aes-128-gcm", b, "seal out_cap under in_len + tag_len",
                   bc_aead_seal(gcm, iv12.data(), 12, nullptr, 0, data.data(), 10, out.data(), 25, &n, 16, nullptr),
                   BC_ERR_OUTPUT_TOO_SMALL);
            expect("aes-128-gcm", b, "open input shorter than the tag",
                   bc_aead_open(gcm, iv12.data(), 12, nullptr, 0, sealed.data(), 15, out.data(), out.size(), &n, 16,
                                nullptr),
                   BC_ERR_INPUT_LENGTH);
            expect("aes-128-gcm", b, "aad = NULL with aad_len 5",
                   bc_aead_seal(gcm, iv12.data(), 12, nullptr, 5, data.data(), 10, out.data(), out.size(), &n, 16,
                                nullptr),
                   BC_ERR_NULL_POINTER);
            expect("aes-128-gcm", b, "seal_detached(tag = NULL)",
                   bc_aead_seal_detached(gcm, iv12.data(), 12, nullptr, 0, data.data(), 10, out.data(), nullptr, 16,
                                         nullptr),
                   BC_ERR_NULL_POINTER);
            {
                Bytes aad0(1);
                bc_status s0 = bc_aead_seal(gcm, iv12.data(), 12, nullptr, 0, data.data(), 10, out.data(), out.size(),
                                            &n, 16, nullptr);
                expect("aes-128-gcm", b, "aad = NULL with aad_len 0 (no AAD) is accepted", s0, BC_OK);
                (void)aad0;
            }
            // Wrong tag: BC_ERR_AUTH_FAILED, output zeroed.
            {
                Bytes bad = sealed;
                bad.back() ^= 0x80;
                std::memset(out.data(), 0xAA, out.size());
                n = 777;
                bc_status s1 = bc_aead_open(gcm, iv12.data(), 12, iv16.data(), 16, bad.data(), bad.size(), out.data(),
                                            ct_len, &n, 16, nullptr);
                expect("aes-128-gcm", b, "open with a wrong tag", s1, BC_ERR_AUTH_FAILED);
                expect_true("aes-128-gcm", b, "wrong tag: output zeroed, out_len 0",
                            n == 0 && all_zero(out.data(), ct_len), "plaintext left in the output or out_len != 0");
                std::memset(out.data(), 0xAA, out.size());
                Bytes bad_tag(sealed.end() - 16, sealed.end());
                bad_tag[0] ^= 1;
                s1 = bc_aead_open_detached(gcm, iv12.data(), 12, iv16.data(), 16, sealed.data(), ct_len,
                                           bad_tag.data(), 16, out.data(), nullptr);
                expect("aes-128-gcm", b, "open_detached with a wrong tag", s1, BC_ERR_AUTH_FAILED);
                expect_true("aes-128-gcm", b, "open_detached wrong tag: output zeroed",
                            all_zero(out.data(), ct_len), "plaintext left in the output");
            }
            // Over the per-message limit, with inaccessible buffers.
            {
                const uint64_t gcm_max = (uint64_t(1) << 36) - 32;
                const size_t reserve = static_cast<size_t>(gcm_max + 4096 + 64);
                void* in_map = mmap(nullptr, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
                void* out_map = mmap(nullptr, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
                if (in_map == MAP_FAILED || out_map == MAP_FAILED) {
                    results().skip(RowKey{"aes-128-gcm", kSource, b},
                                   "cannot reserve 2 x 64 GiB of address space for the over-limit checks");
                } else {
                    auto* pin = static_cast<uint8_t*>(in_map);
                    auto* pout = static_cast<uint8_t*>(out_map);
                    set_current("bad input on " + b + ": GCM seal of 2^36 - 31 bytes (must not touch the buffers)");
                    expect("aes-128-gcm", b, "seal of 2^36 - 31 bytes (one over the limit)",
                           bc_aead_seal(gcm, iv12.data(), 12, nullptr, 0, pin, gcm_max + 1, pout, reserve, &n, 16,
                                        nullptr),
                           BC_ERR_MESSAGE_TOO_LONG);
                    set_current("bad input on " + b + ": GCM open of 2^36 - 31 bytes + tag");
                    expect("aes-128-gcm", b, "open of 2^36 - 31 bytes + tag",
                           bc_aead_open(gcm, iv12.data(), 12, nullptr, 0, pin, gcm_max + 1 + 16, pout, reserve, &n,
                                        16, nullptr),
                           BC_ERR_MESSAGE_TOO_LONG);
                    const uint64_t cp_max = ((uint64_t(1) << 32) - 1) * 64;
                    set_current("bad input on " + b + ": ChaCha20-Poly1305 seal over (2^32-1)*64 bytes");
                    expect("chacha20-poly1305", b, "seal of (2^32 - 1) * 64 + 1 bytes",
                           bc_aead_seal(cp, iv12.data(), 12, nullptr, 0, pin, cp_max + 1, pout, reserve, &n, 16,
                                        nullptr),
                           BC_ERR_MESSAGE_TOO_LONG);
                    // Streaming: the total counts, whatever the pieces.
                    bc_stream* s = nullptr;
                    bc_status cs = bc_stream_create(gcm, BC_ENCRYPT, iv12.data(), 12, nullptr, &s);
                    if (cs == BC_OK) {
                        Bytes small(64, 1), sout(128);
                        size_t m = 0;
                        bc_status u1 = bc_stream_update(s, small.data(), 64, sout.data(), sout.size(), &m);
                        set_current("bad input on " + b + ": GCM stream update past the limit");
                        bc_status u2 = bc_stream_update(s, pin, gcm_max - 63, pout, reserve, &m);
                        expect("aes-128-gcm", b, "stream: 64 bytes then 2^36 - 95 more (over the limit)",
                               u1 == BC_OK ? u2 : u1, BC_ERR_MESSAGE_TOO_LONG);
                    } else {
                        expect("aes-128-gcm", b, "stream create (setup)", cs, BC_OK);
                    }
                    bc_stream_destroy(s);
                    set_current("bad input on " + b);
                }
                if (in_map != MAP_FAILED) munmap(in_map, reserve);
                if (out_map != MAP_FAILED) munmap(out_map, reserve);
            }
            // Streaming order.
            {
                bc_stream* s = nullptr;
                bc_status cs = bc_stream_create(gcm, BC_ENCRYPT, iv12.data(), 12, nullptr, &s);
                expect("aes-128-gcm", b, "stream create (setup)", cs, BC_OK);
                if (cs == BC_OK) {
                    Bytes tag(16);
                    size_t m = 0;
                    expect("aes-128-gcm", b, "stream get_tag before final", bc_stream_get_tag(s, tag.data(), 16),
                           BC_ERR_BAD_STATE);
                    expect("aes-128-gcm", b, "stream update (setup)",
                           bc_stream_update(s, data.data(), 20, out.data(), out.size(), &m), BC_OK);
                    expect("aes-128-gcm", b, "stream aad after update", bc_stream_aad(s, data.data(), 4),
                           BC_ERR_BAD_STATE);
                    expect("aes-128-gcm", b, "stream set_tag on an encryption", bc_stream_set_tag(s, tag.data(), 16),
                           BC_ERR_BAD_STATE);
                    expect("aes-128-gcm", b, "stream final (setup)",
                           bc_stream_final(s, out.data(), out.size(), &m), BC_OK);
                    expect("aes-128-gcm", b, "stream update after final",
                           bc_stream_update(s, data.data(), 20, out.data(), out.size(), &m), BC_ERR_BAD_STATE);
                }
                bc_stream_destroy(s);
                s = nullptr;
                cs = bc_stream_create(ctr, BC_ENCRYPT, iv16.data(), 16, nullptr, &s);
                if (cs == BC_OK)
                    expect("aes-128-ctr", b, "stream aad on a raw mode", bc_stream_aad(s, data.data(), 4),
                           BC_ERR_BAD_STATE);
                bc_stream_destroy(s);
                s = nullptr;
                cs = bc_stream_create(gcm, BC_DECRYPT, iv12.data(), 12, nullptr, &s);
                if (cs == BC_OK) {
                    size_t m = 0;
                    expect("aes-128-gcm", b, "stream decrypt final without set_tag",
                           bc_stream_final(s, out.data(), out.size(), &m), BC_ERR_BAD_STATE);
                }
                bc_stream_destroy(s);
                expect("aes-128-gcm", b, "bc_stream_create(out = NULL)",
                       bc_stream_create(gcm, BC_ENCRYPT, iv12.data(), 12, nullptr, nullptr), BC_ERR_NULL_POINTER);
            }
        }
        for (bc_key* key : {ctr, cbc, ecb, xts, gcm, cp}) bc_key_destroy(key);
    }
}

}  // namespace
}  // namespace conf
