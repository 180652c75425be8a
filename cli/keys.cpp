#include "keys.h"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cctype>
#include <cstring>

#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>

#if defined(BC_CLI_HAVE_ARGON2)
#include <argon2.h>
#endif

#include "io.h"

namespace bcli {

namespace {

// Bounds a header may ask for. They keep a hostile file from making the
// command allocate or compute without limit; they sit far above the defaults.
constexpr unsigned kScryptMaxLogN = 22;
constexpr uint32_t kScryptMaxR = 32;
constexpr uint32_t kScryptMaxP = 16;
constexpr uint64_t kKdfMaxMemory = uint64_t(4) << 30;  // 4 GiB
constexpr uint32_t kArgonMaxT = 64;
constexpr uint32_t kArgonMaxLanes = 64;

void put_be32(std::vector<uint8_t>& v, uint32_t x) {
    v.push_back(static_cast<uint8_t>(x >> 24));
    v.push_back(static_cast<uint8_t>(x >> 16));
    v.push_back(static_cast<uint8_t>(x >> 8));
    v.push_back(static_cast<uint8_t>(x));
}

uint32_t get_be32(const uint8_t* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

// What scrypt allocates (OpenSSL's EVP_PBE_scrypt needs it as maxmem): the 128·r·N
// table, plus 128·r·p for the blocks and 256·r of scratch.
uint64_t scrypt_memory(const KdfParams& k) {
    return uint64_t(128) * k.r * ((uint64_t(1) << k.log_n) + k.p + 2);
}

// The bound a reader enforces, as docs/format.md states it: 128·r·N <= 4 GiB, so that a
// writer following the document is never refused.
uint64_t scrypt_table(const KdfParams& k) { return uint64_t(128) * k.r * (uint64_t(1) << k.log_n); }

// Returns an empty string when the parameters are acceptable, else why not.
std::string kdf_bounds_problem(const KdfParams& k) {
    if (k.id == KdfId::Scrypt) {
        if (k.log_n < 1 || k.log_n > kScryptMaxLogN)
            return fmt::format("scrypt logN {} outside 1..{}", k.log_n, kScryptMaxLogN);
        if (k.r < 1 || k.r > kScryptMaxR) return fmt::format("scrypt r {} outside 1..{}", k.r, kScryptMaxR);
        if (k.p < 1 || k.p > kScryptMaxP) return fmt::format("scrypt p {} outside 1..{}", k.p, kScryptMaxP);
        if (scrypt_table(k) > kKdfMaxMemory)
            return fmt::format("scrypt needs {} of memory (128*r*N), over the {} bound",
                               human_bytes(double(scrypt_table(k))), human_bytes(double(kKdfMaxMemory)));
    } else if (k.id == KdfId::Argon2id) {
        if (k.t_cost < 1 || k.t_cost > kArgonMaxT)
            return fmt::format("argon2id t {} outside 1..{}", k.t_cost, kArgonMaxT);
        if (k.lanes < 1 || k.lanes > kArgonMaxLanes)
            return fmt::format("argon2id p {} outside 1..{}", k.lanes, kArgonMaxLanes);
        if (k.m_kib < 8 * k.lanes) return fmt::format("argon2id m {} KiB under 8*p", k.m_kib);
        if (uint64_t(k.m_kib) * 1024 > kKdfMaxMemory)
            return fmt::format("argon2id m {} KiB over the {} bound", k.m_kib,
                               human_bytes(double(kKdfMaxMemory)));
    }
    return {};
}

}  // namespace

const char* kdf_name(KdfId id) {
    switch (id) {
    case KdfId::KeyFile: return "key-file";
    case KdfId::Scrypt: return "scrypt";
    case KdfId::Argon2id: return "argon2id";
    }
    return "unknown";
}

bool argon2_available() {
#if defined(BC_CLI_HAVE_ARGON2)
    return true;
#else
    return false;
#endif
}

void random_bytes(uint8_t* p, size_t n) {
    if (n > 0 && RAND_bytes(p, static_cast<int>(n)) != 1)
        fail(kExitOther, "the random generator (OpenSSL RAND_bytes) failed");
}

KdfParams new_kdf_params(KdfId id, const std::string& overrides) {
    KdfParams k;
    k.id = id;
    if (id == KdfId::Argon2id && !argon2_available())
        fail(kExitUsage, "this bulkcrypt was built without libargon2: use --kdf scrypt");
    size_t pos = 0;
    while (pos < overrides.size()) {
        size_t comma = overrides.find(',', pos);
        if (comma == std::string::npos) comma = overrides.size();
        std::string item = overrides.substr(pos, comma - pos);
        pos = comma + 1;
        if (item.empty()) continue;
        size_t eq = item.find('=');
        if (eq == std::string::npos) fail(kExitUsage, fmt::format("--kdf-params: '{}' is not key=value", item));
        std::string name = item.substr(0, eq), value = item.substr(eq + 1);
        char* end = nullptr;
        unsigned long long v = std::strtoull(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || v > 0xffffffffull)
            fail(kExitUsage, fmt::format("--kdf-params: '{}' is not a number", value));
        if (id == KdfId::Scrypt && (name == "logN" || name == "logn")) k.log_n = static_cast<uint8_t>(std::min(v, 255ull));
        else if (id == KdfId::Scrypt && name == "r") k.r = static_cast<uint32_t>(v);
        else if (id == KdfId::Scrypt && name == "p") k.p = static_cast<uint32_t>(v);
        else if (id == KdfId::Argon2id && name == "t") k.t_cost = static_cast<uint32_t>(v);
        else if (id == KdfId::Argon2id && name == "m") k.m_kib = static_cast<uint32_t>(v);
        else if (id == KdfId::Argon2id && name == "p") k.lanes = static_cast<uint32_t>(v);
        else
            fail(kExitUsage, fmt::format("--kdf-params: unknown key '{}' for {} (scrypt: logN, r, p; "
                                         "argon2id: t, m, p)", name, kdf_name(id)));
    }
    std::string problem = kdf_bounds_problem(k);
    if (!problem.empty()) fail(kExitUsage, "--kdf-params: " + problem);
    random_bytes(k.salt, sizeof k.salt);
    return k;
}

std::vector<uint8_t> encode_kdf_params(const KdfParams& k) {
    std::vector<uint8_t> v;
    if (k.id == KdfId::Scrypt) {
        v.push_back(k.log_n);
        put_be32(v, k.r);
        put_be32(v, k.p);
        v.insert(v.end(), k.salt, k.salt + kKdfSaltSize);
    } else if (k.id == KdfId::Argon2id) {
        put_be32(v, k.t_cost);
        put_be32(v, k.m_kib);
        put_be32(v, k.lanes);
        v.insert(v.end(), k.salt, k.salt + kKdfSaltSize);
    }
    return v;
}

KdfParams decode_kdf_params(KdfId id, const uint8_t* p, size_t n) {
    KdfParams k;
    k.id = id;
    switch (id) {
    case KdfId::KeyFile:
        if (n != 0) fail(kExitAuth, "malformed header: key-file files carry no KDF parameters");
        return k;
    case KdfId::Scrypt:
        if (n != 9 + kKdfSaltSize) fail(kExitAuth, "malformed header: scrypt parameter block size");
        k.log_n = p[0];
        k.r = get_be32(p + 1);
        k.p = get_be32(p + 5);
        std::memcpy(k.salt, p + 9, kKdfSaltSize);
        break;
    case KdfId::Argon2id:
        if (n != 12 + kKdfSaltSize) fail(kExitAuth, "malformed header: argon2id parameter block size");
        k.t_cost = get_be32(p);
        k.m_kib = get_be32(p + 4);
        k.lanes = get_be32(p + 8);
        std::memcpy(k.salt, p + 12, kKdfSaltSize);
        break;
    default:
        fail(kExitAuth, fmt::format("malformed header: unknown key derivation {}", int(id)));
    }
    std::string problem = kdf_bounds_problem(k);
    if (!problem.empty()) fail(kExitAuth, "malformed header: " + problem);
    return k;
}

uint64_t kdf_memory(const KdfParams& k) {
    if (k.id == KdfId::Scrypt) return scrypt_table(k);
    if (k.id == KdfId::Argon2id) return uint64_t(k.m_kib) * 1024;
    return 0;
}

uint32_t kdf_passes(const KdfParams& k) {
    if (k.id == KdfId::Scrypt) return 2 * k.p;
    if (k.id == KdfId::Argon2id) return k.t_cost;
    return 0;
}

std::string kdf_description(const KdfParams& k) {
    if (k.id == KdfId::Scrypt) return fmt::format("scrypt logN={} r={} p={}", k.log_n, k.r, k.p);
    if (k.id == KdfId::Argon2id) return fmt::format("argon2id t={} m={} KiB p={}", k.t_cost, k.m_kib, k.lanes);
    return "key file";
}

void check_kdf_limits(const KdfParams& k, const KdfLimits& limits) {
    if (k.id == KdfId::KeyFile) return;
    if (kdf_memory(k) > limits.max_memory)
        fail(kExitUsage, fmt::format("the file's passphrase KDF ({}) needs {} of memory, over this reader's {} "
                                     "bound: raise it with --max-kdf-memory if you trust the file",
                                     kdf_description(k), human_bytes(double(kdf_memory(k))),
                                     human_bytes(double(limits.max_memory))));
    if (kdf_passes(k) > limits.max_passes)
        fail(kExitUsage, fmt::format("the file's passphrase KDF ({}) makes {} passes over its memory, over this "
                                     "reader's bound of {}: raise it with --max-kdf-passes if you trust the file",
                                     kdf_description(k), kdf_passes(k), limits.max_passes));
}

std::string kdf_weakness(const KdfParams& k) {
    if (k.id == KdfId::Scrypt && k.log_n < 15)
        return fmt::format("scrypt logN={} is under 15 (32 MiB with r=8)", k.log_n);
    if (k.id == KdfId::Argon2id && k.m_kib < 19 * 1024)
        return fmt::format("argon2id m={} KiB is under 19 MiB", k.m_kib);
    return {};
}

SecureBytes derive_from_passphrase(const KdfParams& k, const SecureBytes& passphrase) {
    SecureBytes out(kMasterKeySize);
    if (k.id == KdfId::Scrypt) {
        uint64_t maxmem = scrypt_memory(k) + (uint64_t(1) << 20);
        if (EVP_PBE_scrypt(reinterpret_cast<const char*>(passphrase.data()), passphrase.size(), k.salt,
                           kKdfSaltSize, uint64_t(1) << k.log_n, k.r, k.p, maxmem, out.data(),
                           out.size()) != 1)
            fail(kExitOther, fmt::format("scrypt failed (logN={}, r={}, p={}): out of memory?", k.log_n,
                                         k.r, k.p));
        return out;
    }
    if (k.id == KdfId::Argon2id) {
#if defined(BC_CLI_HAVE_ARGON2)
        int rc = argon2id_hash_raw(k.t_cost, k.m_kib, k.lanes, passphrase.data(), passphrase.size(),
                                   k.salt, kKdfSaltSize, out.data(), out.size());
        if (rc != ARGON2_OK) fail(kExitOther, fmt::format("argon2id failed: {}", argon2_error_message(rc)));
        return out;
#else
        fail(kExitUsage, "this file uses an Argon2id passphrase, but this bulkcrypt was built "
                         "without libargon2");
#endif
    }
    fail(kExitOther, "derive_from_passphrase: not a passphrase KDF");
}

SecureBytes read_key_file(const std::string& path, size_t size) {
    std::string text = read_small_file(path, 4096, "key file");
    SecureBytes key;
    if (text.size() == size) {
        key = SecureBytes(reinterpret_cast<const uint8_t*>(text.data()), size);
    } else {
        size_t end = text.size();
        while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
        bool hex = end == 2 * size;
        for (size_t i = 0; hex && i < end; ++i) hex = std::isxdigit(static_cast<unsigned char>(text[i])) != 0;
        if (!hex) {
            size_t got = text.size();
            OPENSSL_cleanse(text.data(), text.size());
            fail(kExitUsage, fmt::format("key file '{}' holds {} bytes; it must hold {} raw bytes or {} "
                                         "hex digits", path, got, size, 2 * size));
        }
        std::vector<uint8_t> bytes = parse_hex(text.substr(0, end), "key file");
        key = SecureBytes(bytes.data(), bytes.size());
        OPENSSL_cleanse(bytes.data(), bytes.size());
    }
    OPENSSL_cleanse(text.data(), text.size());
    return key;
}

SecureBytes read_passphrase_file(const std::string& path) {
    std::string text = read_small_file(path, 65536, "passphrase file");
    size_t end = text.find('\n');
    if (end == std::string::npos) end = text.size();
    if (end > 0 && text[end - 1] == '\r') --end;
    SecureBytes pass(reinterpret_cast<const uint8_t*>(text.data()), end);
    OPENSSL_cleanse(text.data(), text.size());
    if (pass.empty()) fail(kExitUsage, fmt::format("passphrase file '{}' starts with an empty line", path));
    return pass;
}

namespace {

SecureBytes ask_once(int fd, const char* prompt) {
    if (write(fd, prompt, std::strlen(prompt)) < 0) fail(kExitIo, "cannot write to the terminal");
    struct termios old_attr, quiet;
    bool restore = tcgetattr(fd, &old_attr) == 0;
    if (restore) {
        quiet = old_attr;
        quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
        quiet.c_lflag |= ECHONL;
        register_terminal_restore(fd, old_attr);  // Ctrl-C at the prompt gives echo back
        tcsetattr(fd, TCSAFLUSH, &quiet);
    }
    SecureBytes line(1024);
    size_t n = 0;
    bool ok = true;
    for (;;) {
        char c;
        ssize_t r = read(fd, &c, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            ok = n > 0;
            break;
        }
        if (c == '\n' || c == '\r') break;
        if (n == line.size()) {
            ok = false;
            break;
        }
        line.data()[n++] = static_cast<uint8_t>(c);
    }
    if (restore) {
        tcsetattr(fd, TCSAFLUSH, &old_attr);
        unregister_terminal_restore();
    }
    if (!ok) fail(kExitUsage, "no passphrase read from the terminal (or longer than 1024 bytes)");
    line.resize(n);
    return line;
}

}  // namespace

SecureBytes prompt_passphrase(bool confirm) {
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        fail(kExitUsage, "no key given and no terminal to ask for a passphrase: use -k KEYFILE or "
                         "--passphrase-file FILE");
    try {
        SecureBytes pass = ask_once(fd, "Passphrase: ");
        if (pass.empty()) fail(kExitUsage, "empty passphrase");
        if (confirm) {
            SecureBytes again = ask_once(fd, "Passphrase (again): ");
            if (again.size() != pass.size() || CRYPTO_memcmp(again.data(), pass.data(), pass.size()) != 0)
                fail(kExitUsage, "the passphrases differ");
        }
        close(fd);
        return pass;
    } catch (...) {
        close(fd);
        throw;
    }
}

SecureBytes hkdf_sha256(const uint8_t* ikm, size_t ikm_len, const uint8_t* salt, size_t salt_len,
                        const std::string& info, size_t out_len) {
    SecureBytes out(out_len);
    EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
    EVP_KDF_CTX* kctx = kdf ? EVP_KDF_CTX_new(kdf) : nullptr;
    EVP_KDF_free(kdf);
    if (kctx == nullptr) fail(kExitOther, "OpenSSL has no HKDF");
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<uint8_t*>(ikm), ikm_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<uint8_t*>(salt), salt_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<char*>(info.data()), info.size()),
        OSSL_PARAM_construct_end(),
    };
    int rc = EVP_KDF_derive(kctx, out.data(), out.size(), params);
    EVP_KDF_CTX_free(kctx);
    if (rc != 1) fail(kExitOther, "HKDF-SHA256 failed");
    return out;
}

void write_key_file(const std::string& path, size_t size, bool hex) {
    if (size < 16 || size > 1024) fail(kExitUsage, "keygen: --size must be 16..1024 bytes");
    SecureBytes key(size);
    random_bytes(key.data(), key.size());
    if (hex) {
        std::string text = to_hex(key.data(), key.size()) + "\n";
        try {
            write_new_private_file(path, reinterpret_cast<const uint8_t*>(text.data()), text.size());
        } catch (...) {
            OPENSSL_cleanse(text.data(), text.size());
            throw;
        }
        OPENSSL_cleanse(text.data(), text.size());
    } else {
        write_new_private_file(path, key.data(), key.size());
    }
}

}  // namespace bcli
