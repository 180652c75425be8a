#include "container.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <openssl/crypto.h>

#include "common.h"
#include "io.h"
#include "pipeline.h"
#include "progress.h"

namespace bcli {

namespace {

constexpr uint8_t kMagic[8] = {0x89, 'B', 'C', 'F', '\r', '\n', 0x1a, '\n'};
constexpr uint8_t kVersion = 1;
constexpr size_t kFixedHeader = 64;
constexpr size_t kFileSaltSize = 32;
constexpr size_t kKeyCheckSize = 16;
constexpr size_t kTagSize = 16;
constexpr size_t kCounterAndFlag = 5;  // 32-bit big-endian segment counter, last-segment flag

struct ContainerAlg {
    uint8_t id;
    const char* name;
    size_t nonce_size;
};

// Ids are part of the format: never renumber, only append.
constexpr ContainerAlg kAlgs[] = {
    {1, "aes-256-gcm", 12},
    {2, "chacha20-poly1305", 12},
    {3, "aes-128-gcm", 12},
    {4, "xchacha20-poly1305", 24},
    {5, "sm4-gcm", 12},
    {6, "aria-128-gcm", 12},
    {7, "aria-192-gcm", 12},
    {8, "aria-256-gcm", 12},
    {9, "seed-128-gcm", 12},
};

const ContainerAlg* alg_by_name(const std::string& name) {
    for (const ContainerAlg& a : kAlgs)
        if (strcasecmp(a.name, name.c_str()) == 0) return &a;
    return nullptr;
}

const ContainerAlg* alg_by_id(uint8_t id) {
    for (const ContainerAlg& a : kAlgs)
        if (a.id == id) return &a;
    return nullptr;
}

void put_be32(uint8_t* p, uint32_t x) {
    p[0] = static_cast<uint8_t>(x >> 24);
    p[1] = static_cast<uint8_t>(x >> 16);
    p[2] = static_cast<uint8_t>(x >> 8);
    p[3] = static_cast<uint8_t>(x);
}

uint32_t get_be32(const uint8_t* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

// Everything both directions need once the header is known.
struct Session {
    const ContainerAlg* alg = nullptr;
    bc_algorithm_info info{};
    KdfParams kdf;
    uint32_t segment_size = 0;
    uint8_t file_salt[kFileSaltSize] = {};
    uint8_t key_check[kKeyCheckSize] = {};
    std::vector<uint8_t> nonce_prefix;
    std::vector<uint8_t> header;  // the exact header bytes: AAD of every segment
    Context ctx;
    Key key;
};

void query_algorithm(Session& s, const std::string& name, int missing_code) {
    const bc_status st = bc_algorithm_query(s.alg->name, &s.info);
    if (st != BC_OK)
        fail(missing_code, fmt::format("algorithm '{}' is not in this build's catalogue ({})", name,
                                       bc_status_message(st)));
    if (s.info.kind != BC_KIND_AEAD || s.info.key_size == 0)
        fail(kExitOther, fmt::format("catalogue entry '{}' is not an AEAD", name));
    if (s.nonce_prefix.size() + kCounterAndFlag != s.alg->nonce_size ||
        s.alg->nonce_size < s.info.iv_size_min || s.alg->nonce_size > s.info.iv_size_max)
        fail(kExitOther, fmt::format("catalogue entry '{}' does not accept {}-byte nonces", name,
                                     s.alg->nonce_size));
}

std::string file_key_info(const ContainerAlg* alg) { return std::string("bulkcrypt v1 file key ") + alg->name; }
const char* const kKeyCheckInfo = "bulkcrypt v1 key check";

void derive_check(const SecureBytes& master, const uint8_t* salt, uint8_t* check) {
    SecureBytes c = hkdf_sha256(master.data(), master.size(), salt, kFileSaltSize, kKeyCheckInfo,
                                kKeyCheckSize);
    std::memcpy(check, c.data(), kKeyCheckSize);
}

void build_header(Session& s) {
    std::vector<uint8_t> kdf = encode_kdf_params(s.kdf);
    std::vector<uint8_t>& h = s.header;
    h.assign(kFixedHeader, 0);
    std::memcpy(h.data(), kMagic, sizeof kMagic);
    h[8] = kVersion;
    h[9] = s.alg->id;
    h[10] = static_cast<uint8_t>(s.kdf.id);
    h[11] = static_cast<uint8_t>(kdf.size());
    put_be32(h.data() + 12, s.segment_size);
    std::memcpy(h.data() + 16, s.file_salt, kFileSaltSize);
    std::memcpy(h.data() + 48, s.key_check, kKeyCheckSize);
    h.insert(h.end(), s.nonce_prefix.begin(), s.nonce_prefix.end());
    h.insert(h.end(), kdf.begin(), kdf.end());
}

// code: what more than 2^32 segments means (encrypting: a usage error, fixed by
// a larger segment; decrypting: no valid file has them).
void make_nonce(const Session& s, uint64_t index, bool last, uint8_t* nonce, int code) {
    if (index > 0xffffffffull)
        fail(code, fmt::format("more than 2^32 segments of {} bytes{}", s.segment_size,
                               code == kExitUsage ? ": use a larger --segment-size" : ": not a valid file"));
    const size_t p = s.nonce_prefix.size();
    std::memcpy(nonce, s.nonce_prefix.data(), p);
    put_be32(nonce + p, static_cast<uint32_t>(index));
    nonce[p + 4] = last ? 1 : 0;
}

SecureBytes master_for_encrypt(const ContainerOptions& opt, KdfParams& kdf) {
    if (opt.master_key != nullptr) {
        kdf = KdfParams{};
        kdf.id = KdfId::KeyFile;
        return SecureBytes(opt.master_key, kMasterKeySize);
    }
    if (!opt.key_file.empty() && !opt.passphrase_file.empty())
        fail(kExitUsage, "give either -k KEYFILE or --passphrase-file, not both");
    if (!opt.key_file.empty()) {
        kdf = KdfParams{};
        kdf.id = KdfId::KeyFile;
        return read_key_file(opt.key_file, kMasterKeySize);
    }
    if (opt.kdf == KdfId::KeyFile) fail(kExitUsage, "--kdf needs a passphrase KDF (scrypt or argon2id)");
    kdf = new_kdf_params(opt.kdf, opt.kdf_params);
    const std::string weak = kdf_weakness(kdf);
    if (!weak.empty() && !opt.weak_kdf)
        fail(kExitUsage, fmt::format("--kdf-params: {}, which a guessing attack finds cheap: add --weak-kdf "
                                     "to write it anyway", weak));
    SecureBytes pass = opt.passphrase_file.empty() ? prompt_passphrase(true)
                                                   : read_passphrase_file(opt.passphrase_file);
    return derive_from_passphrase(kdf, pass);
}

SecureBytes master_for_decrypt(const ContainerOptions& opt, const KdfParams& kdf) {
    if (!opt.key_file.empty() && !opt.passphrase_file.empty())
        fail(kExitUsage, "give either -k KEYFILE or --passphrase-file, not both");
    // The wrong kind of key is a wrong key (exit 3, as docs/cli.md says); no key at all
    // where the prompt cannot stand in is a usage error.
    if (kdf.id == KdfId::KeyFile) {
        if (!opt.passphrase_file.empty())
            fail(kExitAuth, "this file was encrypted with a key file, not a passphrase: give it with -k KEYFILE");
        if (opt.key_file.empty())
            fail(kExitUsage, "this file was encrypted with a key file: give it with -k KEYFILE");
        return read_key_file(opt.key_file, kMasterKeySize);
    }
    if (!opt.key_file.empty())
        fail(kExitAuth, fmt::format("this file was encrypted with a passphrase ({}), not a key file: use "
                                    "--passphrase-file or the prompt", kdf_name(kdf.id)));
    check_kdf_limits(kdf, opt.kdf_limits);  // before asking for the passphrase
    SecureBytes pass = opt.passphrase_file.empty() ? prompt_passphrase(false)
                                                   : read_passphrase_file(opt.passphrase_file);
    return derive_from_passphrase(kdf, pass);
}

void open_key(Session& s, const ContainerOptions& opt, const SecureBytes& master) {
    open_context(s.ctx, opt.device, opt.options);
    SecureBytes fk = hkdf_sha256(master.data(), master.size(), s.file_salt, kFileSaltSize,
                                 file_key_info(s.alg), s.info.key_size);
    check(bc_key_create(s.ctx.ctx, s.alg->name, fk.data(), fk.size(), &s.key.key),
          fmt::format("cannot create the {} key on {}", s.alg->name, opt.device));
}

PipelineSpec make_spec(const ContainerOptions& opt, size_t in_stride, size_t out_stride) {
    if (opt.jobs > 256) fail(kExitUsage, "--jobs: at most 256 threads");
    PipelineSpec spec;
    spec.in_stride = in_stride;
    spec.out_stride = out_stride;
    spec.workers = opt.jobs != 0 ? opt.jobs : default_workers();
    const uint64_t per_slot = uint64_t(in_stride) + out_stride;
    const uint64_t by_memory = per_slot > 0 ? opt.max_memory / per_slot : 2;
    spec.slots = static_cast<unsigned>(std::clamp<uint64_t>(by_memory, 2, 2ull * spec.workers));
    // Never more workers than segments in flight: they would only wait.
    spec.workers = std::min(spec.workers, spec.slots);
    return spec;
}

ContainerSummary report(const ContainerOptions& opt, const char* op, const Session& s, const Output& out,
                        const PipelineResult& r, uint64_t header_len, double seconds,
                        const PipelineSpec& spec) {
    const bool enc = std::strcmp(op, "encrypt") == 0;
    ContainerSummary sum;
    sum.segments = r.segments;
    sum.plaintext_bytes = enc ? r.in_bytes : r.out_bytes;
    sum.container_bytes = (enc ? r.out_bytes : r.in_bytes) + header_len;
    sum.seconds = seconds;
    sum.workers = spec.workers;
    sum.slots = spec.slots;
    if (!opt.json) return sum;
    nlohmann::json j;
    j["operation"] = op;
    j["algorithm"] = s.alg->name;
    j["device"] = bc_context_device_name(s.ctx.ctx);
    j["backend"] = bc_context_backend(s.ctx.ctx);
    j["kdf"] = kdf_name(s.kdf.id);
    j["segment_size"] = s.segment_size;
    j["segments"] = r.segments;
    j["input_bytes"] = enc ? r.in_bytes : r.in_bytes + header_len;
    j["output_bytes"] = enc ? r.out_bytes + header_len : r.out_bytes;
    j["plaintext_bytes"] = enc ? r.in_bytes : r.out_bytes;
    j["seconds"] = seconds;
    j["gb_per_s"] = seconds > 0 ? double(enc ? r.in_bytes : r.out_bytes) / seconds / 1e9 : 0.0;
    j["workers"] = spec.workers;
    j["segments_in_flight"] = spec.slots;
    std::string text = j.dump() + "\n";
    std::FILE* f = out.is_stdout() ? stderr : stdout;
    std::fputs(text.c_str(), f);
    std::fflush(f);
    return sum;
}

}  // namespace

uint8_t container_algorithm_id(const std::string& name) {
    const ContainerAlg* a = alg_by_name(name);
    return a ? a->id : 0;
}

ContainerSummary encrypt_container(const ContainerOptions& opt, const std::string& in_path,
                                   const std::string& out_path) {
    Session s;
    s.alg = alg_by_name(opt.algorithm);
    if (s.alg == nullptr) {
        std::string names;
        for (const ContainerAlg& a : kAlgs) names += std::string(names.empty() ? "" : ", ") + a.name;
        fail(kExitUsage, fmt::format("'{}' cannot seal bulkcrypt files (choose one of: {}; other "
                                     "algorithms only in --raw mode)", opt.algorithm, names));
    }
    if (opt.segment_size < kMinSegmentSize || opt.segment_size > kMaxSegmentSize)
        fail(kExitUsage, fmt::format("--segment-size must be {}..{} bytes", kMinSegmentSize, kMaxSegmentSize));
    s.segment_size = static_cast<uint32_t>(opt.segment_size);
    s.nonce_prefix.resize(s.alg->nonce_size - kCounterAndFlag);
    query_algorithm(s, opt.algorithm, kExitUsage);

    Input in;
    in.open(in_path);
    if (in.random_access()) {
        const uint64_t n = std::max<uint64_t>(1, (in.size() + s.segment_size - 1) / s.segment_size);
        if (n > 0x100000000ull)
            fail(kExitUsage, fmt::format("{} needs more than 2^32 segments: use a larger --segment-size",
                                         in.name()));
    }

    SecureBytes master = master_for_encrypt(opt, s.kdf);
    random_bytes(s.file_salt, kFileSaltSize);
    random_bytes(s.nonce_prefix.data(), s.nonce_prefix.size());
    derive_check(master, s.file_salt, s.key_check);
    build_header(s);
    open_key(s, opt, master);
    master.wipe();

    Output out;
    out.open(out_path, opt.force);
    out.write_all(s.header.data(), s.header.size());

    PipelineSpec spec = make_spec(opt, s.segment_size, s.segment_size + kTagSize);
    spec.out_base = s.header.size();
    spec.wipe_in = true;
    if (in.random_access()) {
        const uint64_t n = std::max<uint64_t>(1, (in.size() + s.segment_size - 1) / s.segment_size);
        spec.out_total = s.header.size() + in.size() + n * kTagSize;
    }

    const SegmentFn seal = [&s](Segment& seg) {
        uint8_t nonce[32];
        make_nonce(s, seg.index, seg.last, nonce, kExitUsage);
        size_t out_len = 0;
        check(bc_aead_seal(s.key.key, nonce, s.alg->nonce_size, s.header.data(), s.header.size(), seg.in,
                           seg.in_len, seg.out, seg.out_cap, &out_len, kTagSize, nullptr),
              fmt::format("sealing segment {}", seg.index));
        seg.out_len = out_len;
    };

    Progress progress("encrypt", in.random_access() ? in.size() : 0,
                      opt.progress && Progress::stderr_is_tty());
    const double t0 = now_seconds();
    PipelineResult r = run_pipeline(in, out, spec, seal, &progress);
    // A file written to while it was read was sealed as a mix of old and new contents: no
    // file is made of that (the temporary output goes), and the run fails.
    const std::string changed = in.changed_since_open();
    if (!changed.empty())
        fail(kExitIo, fmt::format("{} changed while it was read ({}): nothing written; encrypt it again once "
                                  "it is no longer being written", in.name(), changed));
    if (out.random_access()) out.truncate(s.header.size() + r.out_bytes);
    out.commit(opt.sync);
    const double seconds = now_seconds() - t0;
    progress.finish();
    return report(opt, "encrypt", s, out, r, s.header.size(), seconds, spec);
}

namespace {

// Reads and checks the header (docs/format.md) into s; everything in it is untrusted
// until the first segment authenticates under it.
void read_header(Input& in, Session& s) {
    uint8_t fixed[kFixedHeader];
    size_t got = in.read_full(fixed, kFixedHeader);
    if (got < sizeof kMagic || std::memcmp(fixed, kMagic, sizeof kMagic) != 0)
        fail(kExitAuth, fmt::format("{} is not a bulkcrypt file (bad magic)", in.name()));
    if (got < kFixedHeader) fail(kExitAuth, fmt::format("{}: truncated header", in.name()));
    if (fixed[8] != kVersion)
        fail(kExitAuth, fmt::format("{}: unsupported format version {} (this bulkcrypt reads {})",
                                    in.name(), fixed[8], kVersion));
    s.alg = alg_by_id(fixed[9]);
    if (s.alg == nullptr) fail(kExitAuth, fmt::format("{}: unknown algorithm id {}", in.name(), fixed[9]));
    const auto kdf_id = static_cast<KdfId>(fixed[10]);
    const size_t kdf_len = fixed[11];
    const uint32_t seg = get_be32(fixed + 12);
    if (seg < kMinSegmentSize || seg > kMaxSegmentSize)
        fail(kExitAuth, fmt::format("{}: segment size {} out of bounds", in.name(), seg));
    s.segment_size = seg;
    std::memcpy(s.file_salt, fixed + 16, kFileSaltSize);
    std::memcpy(s.key_check, fixed + 48, kKeyCheckSize);
    s.nonce_prefix.resize(s.alg->nonce_size - kCounterAndFlag);
    std::vector<uint8_t> rest(s.nonce_prefix.size() + kdf_len);
    if (in.read_full(rest.data(), rest.size()) != rest.size())
        fail(kExitAuth, fmt::format("{}: truncated header", in.name()));
    std::memcpy(s.nonce_prefix.data(), rest.data(), s.nonce_prefix.size());
    s.kdf = decode_kdf_params(kdf_id, rest.data() + s.nonce_prefix.size(), kdf_len);
    s.header.assign(fixed, fixed + kFixedHeader);
    s.header.insert(s.header.end(), rest.begin(), rest.end());
}

// The plaintext length a file of `size` bytes holds, from its segment layout; false when
// the layout cannot be a whole file (its last segment shorter than a tag).
bool plaintext_size(const Session& s, uint64_t size, uint64_t* out) {
    if (size <= s.header.size()) return false;
    const uint64_t body = size - s.header.size(), stride = uint64_t(s.segment_size) + kTagSize;
    const uint64_t n = (body + stride - 1) / stride;
    if (body - (n - 1) * stride < kTagSize) return false;
    *out = body - n * kTagSize;
    return true;
}

ContainerSummary decrypt_to(const ContainerOptions& opt, const std::string& in_path, const std::string& out_path,
                            bool verify_only) {
    Input in;
    in.open(in_path);
    Session s;
    read_header(in, s);
    query_algorithm(s, s.alg->name, kExitDevice);

    SecureBytes master = master_for_decrypt(opt, s.kdf);
    uint8_t expect[kKeyCheckSize];
    derive_check(master, s.file_salt, expect);
    if (CRYPTO_memcmp(expect, s.key_check, kKeyCheckSize) != 0)
        fail(kExitAuth, fmt::format("{}: wrong key or passphrase (or a modified header)", in.name()));
    open_key(s, opt, master);
    master.wipe();

    Output out;
    out.open(out_path, opt.force || verify_only);

    PipelineSpec spec = make_spec(opt, s.segment_size + kTagSize, s.segment_size);
    spec.in_base = s.header.size();
    spec.wipe_out = true;
    uint64_t plain = 0;
    if (in.random_access() && plaintext_size(s, in.size(), &plain)) spec.out_total = plain;  // else: fails as truncated

    const SegmentFn open = [&s](Segment& seg) {
        if (seg.in_len < kTagSize)
            fail(kExitAuth, fmt::format("segment {} is truncated ({} bytes, under one tag)", seg.index,
                                        seg.in_len));
        uint8_t nonce[32];
        make_nonce(s, seg.index, seg.last, nonce, kExitAuth);
        size_t out_len = 0;
        const bc_status st = bc_aead_open(s.key.key, nonce, s.alg->nonce_size, s.header.data(),
                                          s.header.size(), seg.in, seg.in_len, seg.out, seg.out_cap,
                                          &out_len, kTagSize, nullptr);
        if (st == BC_ERR_AUTH_FAILED)
            fail(kExitAuth, fmt::format("segment {}{} failed authentication: the file was modified, "
                                        "truncated, reordered or extended", seg.index,
                                        seg.last ? " (the last)" : ""));
        check(st, fmt::format("opening segment {}", seg.index));
        seg.out_len = out_len;
    };

    const uint64_t total = in.random_access() && in.size() > s.header.size() ? in.size() - s.header.size() : 0;
    const char* op = verify_only ? "verify" : "decrypt";
    Progress progress(op, total, opt.progress && Progress::stderr_is_tty());
    const double t0 = now_seconds();
    PipelineResult r = run_pipeline(in, out, spec, open, &progress);
    if (out.random_access()) out.truncate(r.out_bytes);
    out.commit(opt.sync);
    const double seconds = now_seconds() - t0;
    progress.finish();
    return report(opt, op, s, out, r, s.header.size(), seconds, spec);
}

}  // namespace

ContainerSummary decrypt_container(const ContainerOptions& opt, const std::string& in_path,
                                   const std::string& out_path) {
    return decrypt_to(opt, in_path, out_path, false);
}

ContainerSummary verify_container(const ContainerOptions& opt, const std::string& in_path) {
    // The plaintext goes nowhere: /dev/null is written in order, like a pipe.
    return decrypt_to(opt, in_path, "/dev/null", true);
}

void inspect_container(const std::string& in_path, bool json) {
    Input in;
    in.open(in_path);
    Session s;
    read_header(in, s);
    uint64_t plain = 0;
    const bool sized = in.random_access() && plaintext_size(s, in.size(), &plain);
    const uint64_t segments = sized ? std::max<uint64_t>(1, (plain + s.segment_size - 1) / s.segment_size) : 0;
    if (json) {
        nlohmann::json j;
        j["file"] = in.name();
        j["format_version"] = kVersion;
        j["algorithm"] = s.alg->name;
        j["segment_size"] = s.segment_size;
        j["header_bytes"] = s.header.size();
        j["kdf"] = kdf_name(s.kdf.id);
        if (s.kdf.id == KdfId::Scrypt) j["kdf_params"] = {{"logN", s.kdf.log_n}, {"r", s.kdf.r}, {"p", s.kdf.p}};
        if (s.kdf.id == KdfId::Argon2id)
            j["kdf_params"] = {{"t", s.kdf.t_cost}, {"m_kib", s.kdf.m_kib}, {"p", s.kdf.lanes}};
        if (s.kdf.id != KdfId::KeyFile) {
            j["kdf_memory_bytes"] = kdf_memory(s.kdf);
            j["kdf_passes"] = kdf_passes(s.kdf);
        }
        j["recipients"] = 0;
        if (sized) {
            j["plaintext_bytes"] = plain;
            j["segments"] = segments;
        } else {
            j["plaintext_bytes"] = nullptr;
        }
        j["file_bytes"] = in.random_access() ? nlohmann::json(in.size()) : nlohmann::json(nullptr);
        std::printf("%s\n", j.dump().c_str());
        return;
    }
    std::printf("file            %s\n", in.name().c_str());
    std::printf("format version  %u\n", unsigned(kVersion));
    std::printf("algorithm       %s\n", s.alg->name);
    std::printf("segment size    %u bytes\n", s.segment_size);
    if (s.kdf.id == KdfId::KeyFile)
        std::printf("key             a key file (-k)\n");
    else
        std::printf("key             a passphrase: %s (%s of memory, %u passes)\n", kdf_description(s.kdf).c_str(),
                    human_bytes(double(kdf_memory(s.kdf))).c_str(), kdf_passes(s.kdf));
    std::printf("recipients      0\n");
    if (sized)
        std::printf("plaintext       %llu bytes in %llu segment(s) (from the file's size; verify checks it)\n",
                    static_cast<unsigned long long>(plain), static_cast<unsigned long long>(segments));
    else
        std::printf("plaintext       unknown (%s)\n",
                    in.random_access() ? "the file is shorter than its layout allows: truncated" : "not a regular file");
}

}  // namespace bcli
