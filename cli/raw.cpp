#include "raw.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <openssl/crypto.h>

#include "common.h"
#include "io.h"
#include "keys.h"

namespace bcli {

namespace {

// Reads the whole input into memory (AEAD and single-unit XTS need it all).
RawBuffer read_all(Input& in, uint64_t limit, size_t& len) {
    if (in.random_access()) {
        if (in.size() > limit)
            fail(kExitUsage, fmt::format("{} is {} bytes, over the {}-byte limit of this mode", in.name(),
                                         in.size(), limit));
        RawBuffer buf(static_cast<size_t>(std::max<uint64_t>(in.size(), 1)), true);
        len = in.read_full(buf.data(), static_cast<size_t>(in.size()));
        uint8_t extra;
        if (len != in.size() || in.read_full(&extra, 1) != 0)
            fail(kExitIo, fmt::format("{} changed size while being read", in.name()));
        return buf;
    }
    RawBuffer buf(size_t(1) << 20, true);
    len = 0;
    for (;;) {
        if (len == buf.size()) {
            if (buf.size() > limit)
                fail(kExitUsage, fmt::format("input over the {}-byte limit of this mode", limit));
            RawBuffer bigger(buf.size() * 2, true);
            std::memcpy(bigger.data(), buf.data(), len);
            buf = std::move(bigger);
        }
        len += in.read_full(buf.data() + len, buf.size() - len);
        if (len < buf.size()) break;  // read_full is short only at the end
    }
    if (len > limit) fail(kExitUsage, fmt::format("input over the {}-byte limit of this mode", limit));
    return buf;
}

// 128-bit little-endian tweak plus n (XTS data unit numbering).
void add_le128(uint8_t* t, uint64_t n) {
    unsigned carry = 0;
    for (int i = 0; i < 16; ++i) {
        unsigned sum = unsigned(t[i]) + unsigned(i < 8 ? (n >> (8 * i)) & 0xff : 0) + carry;
        t[i] = static_cast<uint8_t>(sum);
        carry = sum >> 8;
    }
}

struct RawRun {
    uint64_t in_bytes = 0;
    uint64_t out_bytes = 0;
};

}  // namespace

void run_raw(const RawOptions& opt, bool decrypt, const std::string& in_path, const std::string& out_path) {
    if (opt.algorithm.empty()) fail(kExitUsage, "--raw needs -a ALGORITHM");
    bc_algorithm_info info{};
    bc_status qs = bc_algorithm_query(opt.algorithm.c_str(), &info);
    if (qs != BC_OK)
        fail(kExitUsage, fmt::format("unknown algorithm '{}' (see `bulkcrypt list`)", opt.algorithm));

    // Arguments that only some kinds take.
    const bool aead = info.kind == BC_KIND_AEAD;
    if (!opt.aad_hex.empty() && !aead) fail(kExitUsage, "--aad-hex is for AEAD algorithms only");
    if (opt.tag_size != 0 && !aead) fail(kExitUsage, "--tag-size is for AEAD algorithms only");
    if (opt.sector_size != 0 && info.kind != BC_KIND_XTS) fail(kExitUsage, "--sector-size is for XTS only");
    if (!opt.pad.empty() && opt.pad != "pkcs7" && opt.pad != "none")
        fail(kExitUsage, fmt::format("--pad: '{}' (use pkcs7 or none)", opt.pad));
    const bool pad = opt.pad == "pkcs7";
    if (pad && info.kind != BC_KIND_BLOCK_MODE) fail(kExitUsage, "--pad pkcs7 is for ECB and CBC only");
    if (opt.sector_size != 0 && opt.sector_size < 16) fail(kExitUsage, "--sector-size must be at least 16");

    if (opt.key_hex.empty() == opt.key_file.empty())
        fail(kExitUsage, "--raw needs exactly one of --key-hex K or --key-file F");
    SecureBytes key;
    if (!opt.key_hex.empty()) {
        std::vector<uint8_t> k = parse_hex(opt.key_hex, "--key-hex");
        key = SecureBytes(k.data(), k.size());
        OPENSSL_cleanse(k.data(), k.size());
    } else {
        key = read_key_file(opt.key_file, info.key_size);
    }
    std::vector<uint8_t> iv = parse_hex(opt.iv_hex, "--iv-hex");
    if (iv.empty() && info.iv_size_max > 0)
        fail(kExitUsage, fmt::format("{} needs --iv-hex ({} bytes)", opt.algorithm, info.iv_size));
    std::vector<uint8_t> aad = parse_hex(opt.aad_hex, "--aad-hex");
    const size_t tag_len = opt.tag_size != 0 ? static_cast<size_t>(opt.tag_size) : info.tag_size;

    Context ctx;
    open_context(ctx, opt.device, opt.options);
    Key k;
    check(bc_key_create(ctx.ctx, opt.algorithm.c_str(), key.data(), key.size(), &k.key), "bad key");
    key.wipe();

    Input in;
    in.open(in_path);
    Output out;
    out.open(out_path, opt.force);
    const double t0 = now_seconds();
    RawRun run;

    if (aead || (info.kind == BC_KIND_XTS && opt.sector_size == 0)) {
        // One message: buffer it whole, one call, nothing written unless it succeeds.
        const uint64_t limit = std::min<uint64_t>(info.max_message_size == UINT64_MAX ? (uint64_t(1) << 40)
                                                                                      : info.max_message_size + tag_len,
                                                  uint64_t(1) << 40);
        size_t len = 0;
        RawBuffer data = read_all(in, limit, len);
        const size_t cap = len + tag_len + 16;
        RawBuffer result(cap, true);
        size_t out_len = 0;
        bc_status st;
        if (aead && !decrypt) {
            st = bc_aead_seal(k.key, iv.data(), iv.size(), aad.data(), aad.size(), data.data(), len,
                              result.data(), cap, &out_len, tag_len, nullptr);
        } else if (aead) {
            if (len < tag_len) fail(kExitAuth, fmt::format("input shorter than the {}-byte tag", tag_len));
            st = bc_aead_open(k.key, iv.data(), iv.size(), aad.data(), aad.size(), data.data(), len,
                              result.data(), cap, &out_len, tag_len, nullptr);
            if (st == BC_ERR_AUTH_FAILED) fail(kExitAuth, "authentication failed: no output written");
        } else {
            bc_params params{};
            st = (decrypt ? bc_decrypt : bc_encrypt)(k.key, iv.data(), iv.size(), data.data(), len,
                                                     result.data(), cap, &out_len, &params);
        }
        check(st, fmt::format("{} {}", decrypt ? "decrypting" : "encrypting", opt.algorithm));
        out.write_all(result.data(), out_len);
        run.in_bytes = len;
        run.out_bytes = out_len;
    } else {
        // Streamable: chunks of whole blocks (ECB, CBC), whole data units (XTS)
        // or anything (CTR, stream ciphers), each one call.
        uint64_t chunk = std::max<uint64_t>(opt.chunk, 4096);
        if (info.kind == BC_KIND_XTS) chunk = std::max<uint64_t>(1, chunk / opt.sector_size) * opt.sector_size;
        else if (info.block_size > 1) chunk = chunk / info.block_size * info.block_size;
        const size_t csize = static_cast<size_t>(chunk);
        const size_t bs = info.block_size;  // ECB/CBC: whole blocks of it per chunk (8 or 16)
        RawBuffer bufs[2] = {RawBuffer(csize, true), RawBuffer(csize, true)};
        RawBuffer result(csize + 2 * std::max<size_t>(bs, 16), true);  // room for a padding block
        std::vector<uint8_t> chain = iv;  // CBC chaining value, XTS tweak
        int cur = 0;
        size_t cur_len = in.read_full(bufs[cur].data(), csize);
        for (;;) {
            // Know whether this is the last chunk: read the next one first.
            size_t next_len = cur_len == csize ? in.read_full(bufs[1 - cur].data(), csize) : 0;
            const bool last = next_len == 0;
            bc_params params{};
            if (pad && last) params.flags |= BC_FLAG_PAD_PKCS7;
            params.data_unit_size = opt.sector_size;
            params.offset = info.kind == BC_KIND_STREAM ? run.in_bytes : 0;
            const uint8_t* this_iv = info.kind == BC_KIND_STREAM ? iv.data() : chain.data();
            const size_t this_iv_len = info.kind == BC_KIND_STREAM ? iv.size() : chain.size();
            // The next CBC chaining value is the last ciphertext block (the
            // input's when decrypting), taken before the call; a block is the
            // cipher's (8 or 16 bytes).
            std::vector<uint8_t> next_chain;
            if (info.kind == BC_KIND_BLOCK_MODE && !chain.empty() && decrypt && cur_len >= bs)
                next_chain.assign(bufs[cur].data() + cur_len - bs, bufs[cur].data() + cur_len);
            size_t out_len = 0;
            if (cur_len > 0 || last) {
                bc_status st = (decrypt ? bc_decrypt : bc_encrypt)(k.key, this_iv_len ? this_iv : nullptr,
                                                                   this_iv_len, bufs[cur].data(), cur_len,
                                                                   result.data(), result.size(), &out_len,
                                                                   &params);
                check(st, fmt::format("{} {}", decrypt ? "decrypting" : "encrypting", opt.algorithm));
            }
            if (info.kind == BC_KIND_BLOCK_MODE && !chain.empty() && !last) {
                if (decrypt) chain = next_chain;
                else chain.assign(result.data() + out_len - bs, result.data() + out_len);
            }
            if (info.kind == BC_KIND_XTS && !last) add_le128(chain.data(), cur_len / opt.sector_size);
            out.write_all(result.data(), out_len);
            run.in_bytes += cur_len;
            run.out_bytes += out_len;
            if (last) break;
            cur = 1 - cur;
            cur_len = next_len;
        }
    }
    out.commit(false);
    const double seconds = now_seconds() - t0;
    if (opt.json) {
        nlohmann::json j;
        j["operation"] = decrypt ? "decrypt" : "encrypt";
        j["mode"] = "raw";
        j["algorithm"] = opt.algorithm;
        j["device"] = bc_context_device_name(ctx.ctx);
        j["backend"] = bc_context_backend(ctx.ctx);
        j["input_bytes"] = run.in_bytes;
        j["output_bytes"] = run.out_bytes;
        j["seconds"] = seconds;
        j["gb_per_s"] = seconds > 0 ? double(run.in_bytes) / seconds / 1e9 : 0.0;
        std::string text = j.dump() + "\n";
        std::FILE* f = out.is_stdout() ? stderr : stdout;
        std::fputs(text.c_str(), f);
    }
}

}  // namespace bcli
