// The cipher dispatch: every catalogue algorithm, under OpenSSL's name where OpenSSL has
// the cipher (and bulkcrypt's beside it), else under bulkcrypt's name.
//
// A context keeps its key bytes until the first piece of data decides the path: under the
// provider's threshold, OpenSSL's own implementation (from the provider's library context,
// called through its provider's dispatch: openssl_cipher.h); otherwise a bulkcrypt key and stream on the provider's
// device. AAD given before that is kept and replayed. Streams write every byte of CTR,
// stream ciphers and AEADs at the update that brings it, as EVP expects of ciphers of
// block size 1; ECB and CBC keep what EVP allows (under a block, or the last block when
// decrypting with padding). XTS, as OpenSSL's: each update is one whole data unit under
// the IV's tweak (a one-shot call), final adds nothing.
//
// OpenSSL's path keeps its keyed inner context from message to message (a TLS connection
// re-initialises only the nonce of each record), and TLS 1.2's record parameters
// (AEAD_TLS1_AAD, TLS1_IV_FIXED, ...) put a context on that path for good: records are at
// most 16 KiB plus overhead, below any threshold worth having.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <utility>

#include "openssl_cipher.h"
#include "provider.h"

namespace bc_provider {
namespace {

constexpr size_t kMaxAlgorithms = 160;

// What OpenSSL needs to know of an algorithm, from the C API's catalogue.
struct Alg {
    std::string name;
    bc_algorithm_info info{};
    unsigned mode = 0;        // EVP_CIPH_*_MODE
    size_t evp_block = 1;     // EVP's block size: the cipher's for ECB and CBC, 1 otherwise
    bool aead = false;
    bool padding_mode = false;  // ECB and CBC: PKCS#7 on by default, as EVP does
    bool xts = false;
    bool short_nonces = false;  // ChaCha20-Poly1305: OpenSSL takes nonces of 1 to 11 bytes (zero-padded in front)
};

std::vector<Alg>& algs() {
    static std::vector<Alg> v;
    static std::once_flag once;
    std::call_once(once, [] {
        for (size_t i = 0; const char* n = bc_algorithm_name(i); ++i) {
            if (v.size() == kMaxAlgorithms) break;
            Alg a;
            a.name = n;
            if (bc_algorithm_query(n, &a.info) != BC_OK) continue;
            auto ends = [&](const char* s) {
                const size_t l = std::strlen(s);
                return a.name.size() >= l && a.name.compare(a.name.size() - l, l, s) == 0;
            };
            a.aead = a.info.kind == BC_KIND_AEAD;
            if (ends("-ecb")) a.mode = EVP_CIPH_ECB_MODE;
            else if (ends("-cbc")) a.mode = EVP_CIPH_CBC_MODE;
            else if (ends("-ctr")) a.mode = EVP_CIPH_CTR_MODE;
            else if (ends("-xts")) a.mode = EVP_CIPH_XTS_MODE;
            else if (ends("-gcm")) a.mode = EVP_CIPH_GCM_MODE;
            else a.mode = EVP_CIPH_STREAM_CIPHER;
            a.padding_mode = a.info.kind == BC_KIND_BLOCK_MODE;
            a.xts = a.info.kind == BC_KIND_XTS;
            a.evp_block = a.padding_mode ? a.info.block_size : 1;
            a.short_nonces = a.name == "chacha20-poly1305";
            v.push_back(a);
        }
    });
    return v;
}

struct CipherCtx {
    ProviderContext* prov = nullptr;
    const Alg* alg = nullptr;
    bool enc = true;
    std::vector<unsigned char> key, iv;
    size_t keylen = 0, ivlen = 0, taglen = 16;
    bool key_set = false, iv_set = false, padding = true;
    unsigned char tag[16] = {};
    bool tag_set = false, tag_ready = false;
    std::vector<unsigned char> aad;   // AAD before the path is chosen
    enum class Path { Undecided, Device, OpenSsl } path = Path::Undecided;
    bc_key* bkey = nullptr;
    bc_stream* stream = nullptr;
    OpenSslCtx inner;          // OpenSSL's path
    bool inner_keyed = false;  // inner holds this key (it always has this key length, IV length and direction)
    bool tls = false;          // TLS 1.2 record mode: OpenSSL's path only
    size_t threshold = 0;      // threshold_for this algorithm, fixed for the provider's life
    uint64_t msg_bytes = 0;    // input of this message so far (bulkcrypt's path)
    std::vector<unsigned char> chain, tail;  // CBC on bulkcrypt's path: see follow_ciphertext
    bool failed = false;
};

void wipe(std::vector<unsigned char>& v) {
    if (!v.empty()) OPENSSL_cleanse(v.data(), v.size());
    v.clear();
}

// Drops OpenSSL's keyed context: the key, its length, the IV length or the direction changed.
void drop_inner(CipherCtx* c) {
    c->inner.reset();  // OpenSSL cleanses its key schedule
    c->inner_keyed = false;
}

// Ends the current message's state, keeping the key, the settings and OpenSSL's keyed context.
void reset_message(CipherCtx* c) {
    bc_stream_destroy(c->stream);
    c->stream = nullptr;
    c->aad.clear();  // AAD is not secret: kept, not wiped
    c->msg_bytes = 0;
    c->chain.clear();
    c->tail.clear();
    c->path = CipherCtx::Path::Undecided;
    c->tag_ready = false;
    c->failed = false;
}

void free_ctx(void* vctx) {
    auto* c = static_cast<CipherCtx*>(vctx);
    if (!c) return;
    reset_message(c);
    drop_inner(c);
    bc_key_destroy(c->bkey);
    wipe(c->key);
    wipe(c->iv);
    OPENSSL_cleanse(c->tag, sizeof c->tag);
    delete c;
}

void* new_ctx(void* provctx, size_t index) {
    auto* c = new (std::nothrow) CipherCtx;
    if (!c) return nullptr;
    c->prov = static_cast<ProviderContext*>(provctx);
    c->alg = &algs()[index];
    c->threshold = threshold_for(c->prov, c->alg->name);
    c->keylen = c->alg->info.key_size;
    c->ivlen = c->alg->info.iv_size;
    c->taglen = c->alg->info.tag_size ? c->alg->info.tag_size : 16;
    c->padding = c->alg->padding_mode;
    return c;
}

void* dup_ctx(void* vctx) {
    auto* c = static_cast<CipherCtx*>(vctx);
    if (c->path != CipherCtx::Path::Undecided) return nullptr;  // a message in flight is not copied
    auto* d = new (std::nothrow) CipherCtx;
    if (!d) return nullptr;
    d->prov = c->prov;
    d->alg = c->alg;
    d->threshold = c->threshold;
    d->enc = c->enc;
    d->key = c->key;
    d->iv = c->iv;
    d->keylen = c->keylen;
    d->ivlen = c->ivlen;
    d->taglen = c->taglen;
    d->key_set = c->key_set;
    d->iv_set = c->iv_set;
    d->padding = c->padding;
    d->aad = c->aad;
    return d;
}

int init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv, size_t ivlen,
         const OSSL_PARAM params[], bool enc);
int set_ctx_params(void* vctx, const OSSL_PARAM params[]);

// OSSL_FUNC_cipher_encrypt_init (kEnc) and decrypt_init.
template <bool kEnc>
int init_for(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv, size_t ivlen,
             const OSSL_PARAM params[]) {
    return init(vctx, key, keylen, iv, ivlen, params, kEnc);
}

// Whether two keys are equal, in time that depends on their length alone (as CRYPTO_memcmp,
// a word at a time: comparing a key at every init cost CRYPTO_memcmp ~230 instructions of a
// small ChaCha20-Poly1305 message's ~4,600).
bool same_bytes(const unsigned char* a, const unsigned char* b, size_t n) {
    uint64_t diff = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        std::memcpy(&x, a + i, 8);
        std::memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    for (; i < n; ++i) diff |= static_cast<uint64_t>(a[i] ^ b[i]);
    return diff == 0;
}

int init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv, size_t ivlen,
         const OSSL_PARAM params[], bool enc) {
    auto* c = static_cast<CipherCtx*>(vctx);
    reset_message(c);
    if (c->enc != enc) drop_inner(c);
    c->enc = enc;  // an expected tag given before init stays (evp_test's order)
    c->tls = false;
    if (!set_ctx_params(c, params)) return 0;
    // The same key again (openssl speed and TLS re-initialise with it): both paths keep their
    // keyed state, bulkcrypt's key object included.
    if (key) {
        const bc_algorithm_info& i = c->alg->info;
        if (keylen < i.key_size_min || keylen > i.key_size_max) return 0;
        // as OpenSSL's own XTS: a key whose two halves are equal is refused for encryption
        if (c->alg->xts && enc && CRYPTO_memcmp(key, key + keylen / 2, keylen / 2) == 0) {
            raise_error(c->prov, "bulkcrypt provider: XTS key halves are equal");
            return 0;
        }
        if (c->key_set && keylen == c->keylen && same_bytes(key, c->key.data(), keylen)) key = nullptr;
    }
    if (key) {
        c->inner_keyed = false;  // OpenSSL's context is re-keyed in place at the next message
        wipe(c->key);
        c->key.assign(key, key + keylen);
        c->keylen = keylen;
        c->key_set = true;
        bc_key_destroy(c->bkey);
        c->bkey = nullptr;
    }
    if (iv) {
        if (ivlen < c->ivlen) return 0;  // EVP passes its IV buffer length; the cipher's length is ours
        c->iv.assign(iv, iv + c->ivlen);
        c->iv_set = true;
    }
    return 1;
}

}  // namespace

// One provider context's algorithm table, and OpenSSL's own cipher for each algorithm
// (nullptr where OpenSSL lacks it), fetched once from the provider's library context
// rather than at every small message.
struct CipherTable {
    std::deque<std::string> strings;  // stable addresses for the names and properties
    std::vector<std::array<OSSL_DISPATCH, 16>> dispatch;
    std::vector<OSSL_ALGORITHM> algorithms;
    std::vector<EVP_CIPHER*> fetched;      // by algorithm index: holds OpenSSL's provider loaded
    std::vector<OpenSslCipher> openssl;    // by algorithm index: newctx null where OpenSSL lacks it
};

namespace {

const OpenSslCipher* openssl_cipher(const ProviderContext* p, const Alg* a) {
    const size_t i = static_cast<size_t>(a - algs().data());
    if (!p->ciphers || i >= p->ciphers->openssl.size() || !p->ciphers->openssl[i].newctx) return nullptr;
    return &p->ciphers->openssl[i];
}

// Puts the message on OpenSSL's path: the keyed inner context, re-keyed only when the key
// or its shape changed, else given this message's IV (the calls EVP_CipherInit_ex2 makes).
int use_openssl(CipherCtx* c, const OpenSslCipher* o) {
    const unsigned char* iv = c->iv.empty() ? nullptr : c->iv.data();
    bool ok = true;
    if (!c->inner) {
        ok = c->inner.create(o);
        if (ok && c->alg->aead && c->ivlen != c->alg->info.iv_size)
            ok = c->inner.set_size(OSSL_CIPHER_PARAM_AEAD_IVLEN, c->ivlen);
        if (ok && c->alg->info.key_size_min != c->alg->info.key_size_max)
            ok = c->inner.set_size(OSSL_CIPHER_PARAM_KEYLEN, c->keylen);
        c->inner_keyed = false;
    }
    // same cipher, key length, IV length and direction: a new key, or none when it is in place
    if (ok) ok = c->inner.init(c->enc, c->inner_keyed ? nullptr : c->key.data(), c->keylen, iv, c->iv.size());
    c->inner_keyed = ok;
    if (ok && c->alg->padding_mode) ok = c->inner.set_uint(OSSL_CIPHER_PARAM_PADDING, c->padding ? 1 : 0);
    size_t l = 0;
    // an output size as EVP gives it: OpenSSL's AEADs check it against AAD too
    if (ok && !c->aad.empty()) ok = o->update(c->inner.ctx, nullptr, &l, c->aad.size(), c->aad.data(), c->aad.size());
    if (!ok) {
        drop_inner(c);
        return 0;
    }
    c->path = CipherCtx::Path::OpenSsl;
    c->prov->fallback_calls++;
    return 1;
}

// Chooses the path at the first piece of data (n bytes; final passes 0).
int choose_path(CipherCtx* c, size_t n) {
    if (c->path != CipherCtx::Path::Undecided) return 1;
    if (!c->key_set || (c->ivlen && !c->iv_set)) return 0;
    const OpenSslCipher* e = n < c->threshold || c->tls ? openssl_cipher(c->prov, c->alg) : nullptr;
    // OpenSSL's cipher may refuse a setting bulkcrypt's takes (ChaCha20-Poly1305's short
    // nonces before OpenSSL 3.2) when it is keyed: bulkcrypt's path then runs the message,
    // and the refusal is not the caller's error. A keyed context takes a new IV as OpenSSL's
    // own does (the mark costs ~160 instructions a message: not paid then).
    bool openssl = false;
    if (e && c->inner_keyed) {
        openssl = use_openssl(c, e);
    } else if (e) {
        ERR_set_mark();
        openssl = use_openssl(c, e);
        if (openssl) ERR_clear_last_mark();
        else ERR_pop_to_mark();
    }
    if (!openssl) {
        if (c->tls) return 0;  // TLS record mode needs OpenSSL's cipher
        if (!c->bkey && bc_key_create(device_context(c->prov, c->alg->name), c->alg->name.c_str(), c->key.data(), c->keylen, &c->bkey) != BC_OK)
            return 0;
        bc_params p{};
        if (c->alg->padding_mode && c->padding) p.flags = BC_FLAG_PAD_PKCS7;
        std::vector<unsigned char> iv = c->iv;
        if (c->alg->short_nonces && iv.size() < 12) iv.insert(iv.begin(), 12 - iv.size(), 0);  // OpenSSL's short nonces
        if (!c->alg->xts && bc_stream_create(c->bkey, c->enc ? BC_ENCRYPT : BC_DECRYPT, iv.empty() ? nullptr : iv.data(),
                                             iv.size(), &p, &c->stream) != BC_OK)
            return 0;
        if (!c->aad.empty() && bc_stream_aad(c->stream, c->aad.data(), c->aad.size()) != BC_OK) return 0;
        c->path = CipherCtx::Path::Device;
        c->prov->device_calls++;
    }
    c->aad.clear();
    return 1;
}

// CBC's chaining value on bulkcrypt's path: the stream of ciphertext (output when
// encrypting, input when decrypting) is followed through `tail`, its bytes since the last
// block boundary, and `chain`, its last whole block.
void follow_ciphertext(CipherCtx* c, const unsigned char* p, size_t n) {
    const size_t block = c->alg->info.block_size, t = c->tail.size();
    const size_t whole = (t + n) / block * block;
    auto at = [&](size_t i) { return i < t ? c->tail[i] : p[i - t]; };
    if (whole >= block) {
        c->chain.resize(block);
        for (size_t i = 0; i < block; ++i) c->chain[i] = at(whole - block + i);
    }
    std::vector<unsigned char> rest;
    for (size_t i = whole; i < t + n; ++i) rest.push_back(at(i));
    c->tail.swap(rest);
}

// EVP_CIPHER_CTX_get_updated_iv: what OpenSSL's own ciphers report after the bytes so far.
// CBC: the last ciphertext block; CTR: the IV plus the blocks begun; others: the IV.
bool updated_iv(const CipherCtx* c, std::vector<unsigned char>* iv) {
    if (c->path == CipherCtx::Path::OpenSsl) {
        iv->assign(EVP_MAX_IV_LENGTH, 0);
        if (!c->inner.get_octets(OSSL_CIPHER_PARAM_UPDATED_IV, iv->data(), iv->size())) return false;
        iv->resize(c->iv.size());
        return true;
    }
    *iv = c->iv;
    const size_t block = c->alg->info.block_size;
    if (c->path != CipherCtx::Path::Device || iv->size() != block) return true;
    if (c->alg->mode == EVP_CIPH_CBC_MODE) {
        if (!c->chain.empty()) *iv = c->chain;
    } else if (c->alg->mode == EVP_CIPH_CTR_MODE) {
        uint64_t add = (c->msg_bytes + block - 1) / block;  // big-endian addition over the whole block
        for (size_t i = block; i-- > 0 && add;) {
            add += (*iv)[i];
            (*iv)[i] = static_cast<unsigned char>(add);
            add >>= 8;
        }
    }
    return true;
}

// Every update but those of small messages, which update() hands to OpenSSL's cipher; out
// of line, so that their path saves no registers.
__attribute__((noinline)) int update_other(CipherCtx* c, unsigned char* out, size_t* outl, size_t outsize,
                                           const unsigned char* in, size_t inl) {
    *outl = 0;
    if (c->failed) return 0;
    if (c->alg->aead && out == nullptr) {  // AAD
        if (c->path == CipherCtx::Path::Undecided) {
            c->aad.insert(c->aad.end(), in, in + inl);
            return 1;
        }
        if (c->path == CipherCtx::Path::Device) return bc_stream_aad(c->stream, in, inl) == BC_OK;
        return c->inner.fn->update(c->inner.ctx, nullptr, outl, inl, in, inl);  // TLS 1.2 record
    }
    if (c->path == CipherCtx::Path::Undecided && !choose_path(c, inl)) return c->failed = true, 0;
    if (c->tls) c->prov->fallback_calls++;  // each TLS 1.2 record is one message
    if (c->path == CipherCtx::Path::OpenSsl)  // a TLS 1.2 record: one that fails its check fails alone
        return c->inner.fn->update(c->inner.ctx, out, outl, outsize, in, inl);
    if (!c->enc && c->alg->mode == EVP_CIPH_CBC_MODE) follow_ciphertext(c, in, inl);  // before an in-place call overwrites it
    size_t n = 0;
    if (c->alg->xts) {  // one data unit
        const bc_status st = c->enc ? bc_encrypt(c->bkey, c->iv.data(), c->ivlen, in, inl, out, outsize, &n, nullptr)
                                    : bc_decrypt(c->bkey, c->iv.data(), c->ivlen, in, inl, out, outsize, &n, nullptr);
        if (st != BC_OK) return c->failed = true, 0;
    } else if (bc_stream_update(c->stream, in, inl, out, outsize, &n) != BC_OK) {
        return c->failed = true, 0;
    }
    c->msg_bytes += inl;
    if (c->enc && c->alg->mode == EVP_CIPH_CBC_MODE) follow_ciphertext(c, out, n);
    *outl = n;
    return 1;
}

int update(void* vctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in, size_t inl) {
    auto* c = static_cast<CipherCtx*>(vctx);
    // small messages: straight to OpenSSL's cipher, AAD included (its failures are its own)
    if (c->path == CipherCtx::Path::OpenSsl && !c->tls) return c->inner.fn->update(c->inner.ctx, out, outl, outsize, in, inl);
    return update_other(c, out, outl, outsize, in, inl);
}

int final(void* vctx, unsigned char* out, size_t* outl, size_t outsize) {
    auto* c = static_cast<CipherCtx*>(vctx);
    *outl = 0;
    if (c->failed || !choose_path(c, 0)) return 0;
    if (c->alg->aead && !c->enc && !c->tag_set) return 0;  // nothing to check the message against
    struct TagUsed {  // an expected tag serves one message
        CipherCtx* c;
        ~TagUsed() { c->tag_set = false; }
    } used{c};
    if (c->path == CipherCtx::Path::OpenSsl) {
        if (c->alg->aead && !c->enc && !c->inner.set_octets(OSSL_CIPHER_PARAM_AEAD_TAG, c->tag, c->taglen)) return 0;
        if (!c->inner.fn->final(c->inner.ctx, out, outl, outsize)) return c->failed = true, 0;
        c->tag_ready = c->alg->aead && c->enc;  // in the inner context until asked for (most callers of
                                                // small messages, TLS records, ask once)
        return 1;
    }
    if (c->alg->aead && !c->enc && bc_stream_set_tag(c->stream, c->tag, c->taglen) != BC_OK) return 0;
    size_t n = 0;
    if (c->alg->xts) return 1;
    if (bc_stream_final(c->stream, out, outsize, &n) != BC_OK) return c->failed = true, 0;
    *outl = n;
    if (c->alg->aead && c->enc) {
        if (bc_stream_get_tag(c->stream, c->tag, c->taglen) != BC_OK) return 0;
        c->tag_ready = true;
    }
    return 1;
}

// One call: EVP_Cipher. For AEADs with out == NULL it is AAD, with in == NULL final.
int one_shot(void* vctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in, size_t inl) {
    auto* c = static_cast<CipherCtx*>(vctx);
    if (in == nullptr) return final(vctx, out, outl, outsize);
    if (!update(vctx, out, outl, outsize, in, inl)) return 0;
    if (c->alg->aead || out == nullptr) return 1;
    size_t more = 0;
    if (*outl > outsize) return 0;
    if (!final(vctx, out + *outl, &more, outsize - *outl)) return 0;
    *outl += more;
    return 1;
}

// ---- parameters

int get_alg_params(OSSL_PARAM params[], size_t index) {
    const Alg& a = algs()[index];
    OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) && !OSSL_PARAM_set_uint(p, a.mode)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) && !OSSL_PARAM_set_size_t(p, a.info.key_size)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) && !OSSL_PARAM_set_size_t(p, a.info.iv_size)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) && !OSSL_PARAM_set_size_t(p, a.evp_block)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD)) && !OSSL_PARAM_set_int(p, a.aead ? 1 : 0)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CUSTOM_IV)) && !OSSL_PARAM_set_int(p, a.aead ? 1 : 0)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_CTS)) && !OSSL_PARAM_set_int(p, 0)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK)) && !OSSL_PARAM_set_int(p, 0)) return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY)) && !OSSL_PARAM_set_int(p, 0)) return 0;
    return 1;
}

const OSSL_PARAM kAlgParams[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, nullptr),      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),   OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, nullptr),       OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, nullptr),        OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, nullptr), OSSL_PARAM_END};
const OSSL_PARAM* gettable_params(void*) { return kAlgParams; }

// TLS record parameters, which only OpenSSL's ciphers implement: the context moves to
// OpenSSL's path (keyed now if it is not) and the parameters go to its inner context.
constexpr const char* kTlsSettable[] = {OSSL_CIPHER_PARAM_TLS_VERSION, OSSL_CIPHER_PARAM_TLS_MAC_SIZE,
                                        OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED,
                                        OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV};
constexpr const char* kTlsGettable[] = {OSSL_CIPHER_PARAM_TLS_MAC, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD,
                                        OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN};

int set_tls_params(CipherCtx* c, const OSSL_PARAM params[]) {
    std::vector<OSSL_PARAM> tls;
    for (const char* name : kTlsSettable)
        if (const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, name)) tls.push_back(*p);
    if (tls.empty()) return 1;
    tls.push_back(OSSL_PARAM_construct_end());
    const OpenSslCipher* e = openssl_cipher(c->prov, c->alg);
    if (!e || !c->key_set) return 0;
    if (!c->tls) {
        reset_message(c);
        if (!use_openssl(c, e)) return 0;
        c->tls = true;
    }
    return c->inner.fn->set_ctx_params(c->inner.ctx, tls.data());
}


// The context's parameters, in one pass over the caller's array (EVP asks for the IV
// length at every init and update: a locate per known key cost a third of a small AEAD
// message's instructions).
int get_one(CipherCtx* c, OSSL_PARAM* p) {
    const char* k = p->key;
    if (!std::strcmp(k, OSSL_CIPHER_PARAM_IVLEN)) return OSSL_PARAM_set_size_t(p, c->ivlen);
    if (!std::strcmp(k, OSSL_CIPHER_PARAM_KEYLEN)) return OSSL_PARAM_set_size_t(p, c->keylen);
    if (!std::strcmp(k, OSSL_CIPHER_PARAM_PADDING)) return OSSL_PARAM_set_uint(p, c->padding ? 1 : 0);
    if (!std::strcmp(k, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) return OSSL_PARAM_set_size_t(p, c->taglen);
    if (!std::strcmp(k, OSSL_CIPHER_PARAM_AEAD_TAG)) {
        if (!c->alg->aead || !c->enc || !c->tag_ready || p->data_size == 0 || p->data_size > c->taglen) return 0;
        if (c->path == CipherCtx::Path::OpenSsl &&  // OpenSSL's path keeps it in its context
            !c->inner.get_octets(OSSL_CIPHER_PARAM_AEAD_TAG, c->tag, c->taglen))
            return 0;
        return OSSL_PARAM_set_octet_string(p, c->tag, p->data_size);
    }
    if (!std::strcmp(k, OSSL_CIPHER_PARAM_IV)) return !c->iv_set || OSSL_PARAM_set_octet_string(p, c->iv.data(), c->iv.size());
    if (!std::strcmp(k, OSSL_CIPHER_PARAM_UPDATED_IV)) {
        if (!c->iv_set) return 1;
        std::vector<unsigned char> iv;
        return updated_iv(c, &iv) && OSSL_PARAM_set_octet_string(p, iv.data(), iv.size());
    }
    if (!std::strcmp(k, "bulkcrypt-threshold")) return OSSL_PARAM_set_size_t(p, c->threshold);
    for (const char* name : kTlsGettable) {
        if (std::strcmp(k, name) != 0) continue;
        OSSL_PARAM one[] = {*p, OSSL_PARAM_END};
        if (!c->tls || !c->inner.fn->get_ctx_params(c->inner.ctx, one)) return 0;
        p->return_size = one[0].return_size;
        return 1;
    }
    return 1;  // not ours: left unset
}

int get_ctx_params(void* vctx, OSSL_PARAM params[]) {
    auto* c = static_cast<CipherCtx*>(vctx);
    for (OSSL_PARAM* p = params; p && p->key; ++p)
        if (!get_one(c, p)) return 0;
    return 1;
}

int set_one(CipherCtx* c, const OSSL_PARAM* p, bool* tls) {
    const char* k = p->key;
    if (!std::strcmp(k, OSSL_CIPHER_PARAM_PADDING)) {
        unsigned v = 0;
        // EVP sets it again at every init: only a change within a message is refused
        if (!OSSL_PARAM_get_uint(p, &v) || ((v != 0) != c->padding && c->path != CipherCtx::Path::Undecided)) return 0;
        c->padding = v != 0;
    } else if (!std::strcmp(k, OSSL_CIPHER_PARAM_KEYLEN)) {
        size_t v = 0;
        if (!OSSL_PARAM_get_size_t(p, &v) || v < c->alg->info.key_size_min || v > c->alg->info.key_size_max) return 0;
        if (v != c->keylen) drop_inner(c);
        c->keylen = v;
    } else if (!std::strcmp(k, OSSL_CIPHER_PARAM_AEAD_IVLEN)) {
        size_t v = 0;
        // ChaCha20-Poly1305's nonces of 1 to 11 bytes are OpenSSL's (zero-padded at the front)
        const size_t min = c->alg->short_nonces ? 1 : c->alg->info.iv_size_min;
        if (!c->alg->aead || !OSSL_PARAM_get_size_t(p, &v) || v < min || v > c->alg->info.iv_size_max) return 0;
        // as OpenSSL's AEADs: allowed at any time; a new length ends the message and wants a new IV
        if (v != c->ivlen) {
            reset_message(c);
            drop_inner(c);
            c->ivlen = v;
            c->iv_set = false;
        }
    } else if (!std::strcmp(k, "xts_standard")) {
        const char* v = nullptr;  // OpenSSL 3.2+: IEEE 1619 (ours) or GB/T 17964 (refused)
        if (!c->alg->xts || !OSSL_PARAM_get_utf8_string_ptr(p, &v) || OPENSSL_strcasecmp(v, "IEEE") != 0) return 0;
    } else if (!std::strcmp(k, OSSL_CIPHER_PARAM_AEAD_TAG)) {
        if (!c->alg->aead) return 0;
        const size_t n = p->data_size;
        if (n < c->alg->info.tag_size_min || n > c->alg->info.tag_size_max) return 0;
        if (p->data != nullptr) {  // the expected tag (decryption)
            if (c->enc) return 0;
            std::memcpy(c->tag, p->data, n);
            c->tag_set = true;
        }
        c->taglen = n;
    } else {
        for (const char* name : kTlsSettable) *tls = *tls || !std::strcmp(k, name);
    }
    return 1;
}

int set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
    auto* c = static_cast<CipherCtx*>(vctx);
    bool tls = false;
    for (const OSSL_PARAM* p = params; p && p->key; ++p)
        if (!set_one(c, p, &tls)) return 0;
    return !tls || set_tls_params(c, params);
}

const OSSL_PARAM kCtxGettable[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),     OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),      OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0), OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0), OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_TLS_MAC, nullptr, 0),
    OSSL_PARAM_size_t("bulkcrypt-threshold", nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, nullptr),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, nullptr, 0), OSSL_PARAM_END};
const OSSL_PARAM kCtxSettable[] = {
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr), OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, nullptr), OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, nullptr), OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, nullptr),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, nullptr, 0),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, nullptr, 0), OSSL_PARAM_END};
const OSSL_PARAM* gettable_ctx_params(void*, void*) { return kCtxGettable; }
const OSSL_PARAM* settable_ctx_params(void*, void*) { return kCtxSettable; }

// ---- one dispatch table an algorithm: newctx and get_params know their algorithm by index

template <size_t I>
void* new_ctx_at(void* provctx) { return new_ctx(provctx, I); }
template <size_t I>
int get_params_at(OSSL_PARAM params[]) { return get_alg_params(params, I); }

using Fn = void (*)(void);
template <size_t... I>
constexpr std::array<std::pair<Fn, Fn>, sizeof...(I)> per_index(std::index_sequence<I...>) {
    return {{{reinterpret_cast<Fn>(new_ctx_at<I>), reinterpret_cast<Fn>(get_params_at<I>)}...}};
}
const auto kPerIndex = per_index(std::make_index_sequence<kMaxAlgorithms>{});

}  // namespace

namespace {

// Every name OpenSSL gives a cipher (its canonical one first, aliases and OID after), and
// bulkcrypt's when it is not among them: "AES-256-GCM:id-aes256-GCM:2.16...:aes-256-gcm".
std::string openssl_names(const EVP_CIPHER* e, const std::string& ours) {
    std::vector<std::string> all;
    EVP_CIPHER_names_do_all(
        e, [](const char* n, void* v) { static_cast<std::vector<std::string>*>(v)->push_back(n); }, &all);
    std::string names = EVP_CIPHER_get0_name(e);
    bool has_ours = OPENSSL_strcasecmp(names.c_str(), ours.c_str()) == 0;
    for (const std::string& n : all) {
        if (OPENSSL_strcasecmp(n.c_str(), EVP_CIPHER_get0_name(e)) == 0) continue;
        names += ":" + n;
        has_ours = has_ours || OPENSSL_strcasecmp(n.c_str(), ours.c_str()) == 0;
    }
    if (!has_ours) names += ":" + ours;
    return names;
}

}  // namespace

const OSSL_ALGORITHM* cipher_algorithms(ProviderContext* p) {
    // OpenSSL may ask from several threads at once
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    if (p->ciphers) return p->ciphers->algorithms.data();
    auto t = std::make_unique<CipherTable>();
    const std::vector<Alg>& v = algs();
    t->dispatch.reserve(v.size());
    const std::string props = "provider=bulkcrypt,bulkcrypt.device=" + p->device_kind;
    ERR_set_mark();  // the ciphers OpenSSL lacks leave no error behind
    for (size_t i = 0; i < v.size(); ++i) {
        // OpenSSL's name first where it has the cipher, then bulkcrypt's when it differs
        EVP_CIPHER* e = EVP_CIPHER_fetch(p->fallback_libctx, v[i].name.c_str(), nullptr);
        std::string names = v[i].name;
        if (e) names = openssl_names(e, v[i].name);
        t->fetched.push_back(e);
        // OpenSSL's implementation serves small messages when it takes bulkcrypt's IV length
        OpenSslCipher o;
        if (e && EVP_CIPHER_get_iv_length(e) == static_cast<int>(v[i].info.iv_size) && resolve_openssl_cipher(e, &o))
            t->openssl.push_back(o);
        else
            t->openssl.push_back({});
        t->strings.push_back(names);
        const char* name_str = t->strings.back().c_str();
        t->strings.push_back(props);
        const char* prop_str = t->strings.back().c_str();
        t->dispatch.push_back({{
            {OSSL_FUNC_CIPHER_NEWCTX, kPerIndex[i].first},
            {OSSL_FUNC_CIPHER_FREECTX, reinterpret_cast<Fn>(free_ctx)},
            {OSSL_FUNC_CIPHER_DUPCTX, reinterpret_cast<Fn>(dup_ctx)},
            {OSSL_FUNC_CIPHER_ENCRYPT_INIT, reinterpret_cast<Fn>(init_for<true>)},
            {OSSL_FUNC_CIPHER_DECRYPT_INIT, reinterpret_cast<Fn>(init_for<false>)},
            {OSSL_FUNC_CIPHER_UPDATE, reinterpret_cast<Fn>(update)},
            {OSSL_FUNC_CIPHER_FINAL, reinterpret_cast<Fn>(final)},
            {OSSL_FUNC_CIPHER_CIPHER, reinterpret_cast<Fn>(one_shot)},
            {OSSL_FUNC_CIPHER_GET_PARAMS, kPerIndex[i].second},
            {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, reinterpret_cast<Fn>(gettable_params)},
            {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, reinterpret_cast<Fn>(get_ctx_params)},
            {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, reinterpret_cast<Fn>(set_ctx_params)},
            {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, reinterpret_cast<Fn>(gettable_ctx_params)},
            {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, reinterpret_cast<Fn>(settable_ctx_params)},
            {0, nullptr},
            {0, nullptr},
        }});
        t->algorithms.push_back({name_str, prop_str, t->dispatch.back().data(), nullptr});
    }
    ERR_pop_to_mark();
    t->algorithms.push_back({nullptr, nullptr, nullptr, nullptr});
    p->ciphers = t.release();
    return p->ciphers->algorithms.data();
}

void free_cipher_table(ProviderContext* p) {
    if (!p->ciphers) return;
    for (EVP_CIPHER* e : p->ciphers->fetched) EVP_CIPHER_free(e);
    delete p->ciphers;
    p->ciphers = nullptr;
}

}  // namespace bc_provider
