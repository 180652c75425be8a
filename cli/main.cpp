// bulkcrypt: the command line. See docs/cli.md (usage, exit codes) and
// docs/format.md (the file format).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.h"
#include "container.h"
#include "info.h"
#include "io.h"
#include "keys.h"
#include "raw.h"
#include "tune.h"

using namespace bcli;

namespace {

struct CryptArgs {
    ContainerOptions c;
    RawOptions r;
    bool raw = false;
    std::string kdf = "scrypt";
    std::string segment_size = "4M";
    std::string max_memory = "1G";
    std::string sector_size;
    std::string chunk;
    bool quiet = false;
    bool force_tty = false;
    std::string max_kdf_memory = "1G";
    std::string in = "-", out = "-";
};

// Options of every command that reads a container with a key: decrypt and verify.
void add_reader_options(CLI::App* cmd, CryptArgs& a) {
    cmd->add_option("--max-kdf-memory", a.max_kdf_memory,
                    "refuse files whose passphrase KDF needs more memory than this (default 1G)");
    cmd->add_option("--max-kdf-passes", a.c.kdf_limits.max_passes,
                    "refuse files whose passphrase KDF makes more passes over its memory (default 16: scrypt 2p, "
                    "argon2id t)");
}

void add_crypt_options(CLI::App* cmd, CryptArgs& a, bool encrypting) {
    cmd->add_option("IN", a.in, "input file, - for stdin")->required(false);
    cmd->add_option("OUT", a.out, "output file, - for stdout")->required(false);
    cmd->add_option("-k,--key-file", a.c.key_file,
                    "key file: 32 raw bytes or 64 hex digits (raw mode: the algorithm's key size)");
    cmd->add_option("--passphrase-file", a.c.passphrase_file,
                    "read the passphrase from the first line of this file (default: ask on the terminal)");
    cmd->add_option("-a,--algorithm", a.c.algorithm,
                    "aes-256-gcm (default), chacha20-poly1305, aes-128-gcm, xchacha20-poly1305, "
                    "sm4-gcm, aria-{128,192,256}-gcm, seed-128-gcm; any algorithm of `bulkcrypt list` with --raw");
    cmd->add_option("--device", a.c.device, "auto (default), cpu, cuda:N, opencl:N");
    cmd->add_option("--options", a.c.options, "library options, e.g. threads=8,aes=bitsliced");
    cmd->add_option("-j,--jobs", a.c.jobs, "worker threads calling the library (default: hardware threads)");
    cmd->add_option("--max-memory", a.max_memory,
                    "bound on the segment buffers in flight (default 1G; at least 2 segments)");
    cmd->add_flag("-f,--force", a.c.force, "replace OUT if it exists");
    cmd->add_flag("--sync", a.c.sync, "fsync OUT (and its directory) before reporting success");
    cmd->add_flag("--json", a.c.json, "print a JSON summary (stdout, or stderr when OUT is -)");
    cmd->add_flag("-q,--quiet", a.quiet, "no progress bar");
    if (encrypting) {
        cmd->add_option("--kdf", a.kdf, "passphrase KDF: scrypt (default) or argon2id");
        cmd->add_option("--kdf-params", a.c.kdf_params,
                        "scrypt: logN=17,r=8,p=1 (default); argon2id: t=3,m=65536,p=4 (default, m in KiB)");
        cmd->add_option("--segment-size", a.segment_size, "plaintext bytes per segment (default 4M)");
        cmd->add_flag("--weak-kdf", a.c.weak_kdf,
                      "accept --kdf-params under the floor (scrypt logN 15, argon2id 19 MiB)");
        cmd->add_flag("--force-tty", a.force_tty,
                      "read plaintext from a terminal or write ciphertext to one (else refused unless - is given)");
    } else {
        add_reader_options(cmd, a);
    }
    cmd->add_flag("--raw", a.raw, "raw mode: no container, the algorithm applied to the input as is");
    cmd->add_option("--key-hex", a.r.key_hex, "raw mode: the key in hex");
    cmd->add_option("--iv-hex", a.r.iv_hex, "raw mode: the IV / nonce / counter block / tweak in hex");
    cmd->add_option("--aad-hex", a.r.aad_hex, "raw mode, AEAD: additional authenticated data in hex");
    cmd->add_option("--tag-size", a.r.tag_size, "raw mode, AEAD: tag bytes (default the algorithm's)");
    cmd->add_option("--sector-size", a.sector_size, "raw mode, XTS: bytes per data unit (default: the whole input)");
    cmd->add_option("--pad", a.r.pad, "raw mode, ECB/CBC: pkcs7 or none (default none)");
    cmd->add_option("--chunk", a.chunk, "raw mode: bytes per library call for streamable modes (default 16M)");
}

// Options the chosen mode would ignore are refused, as the library refuses options it
// does not know: a setting that silently does nothing is a setting the user got wrong.
void refuse_ignored(const CLI::App* cmd, const CryptArgs& a, bool decrypt) {
    auto given = [cmd](const char* name) { return cmd->count(name) > 0; };
    const char* why = nullptr;
    std::string which;
    if (a.raw) {
        // (encrypt's container options: decrypt has only --max-memory of them)
        const std::vector<const char*> container =
            decrypt ? std::vector<const char*>{"--max-memory", "--max-kdf-memory", "--max-kdf-passes"}
                    : std::vector<const char*>{"--segment-size", "--kdf", "--kdf-params", "--max-memory", "--weak-kdf"};
        for (const char* o : container)
            if (given(o)) which = o, why = "has no meaning in --raw mode (no container)";
    } else if (decrypt) {
        if (given("--algorithm")) which = "-a", why = "is not taken by decrypt: the file names its algorithm";
    } else if (!a.c.key_file.empty()) {
        for (const char* o : {"--kdf", "--kdf-params", "--weak-kdf"})
            if (given(o)) which = o, why = "is for passphrases, not key files";
    }
    if (why) fail(kExitUsage, fmt::format("{} {}", which, why));
}

// Ciphertext on a terminal is garbage on the screen, and plaintext typed at one is rarely
// meant: encrypt refuses both unless - was given explicitly or --force-tty.
void refuse_terminals(const CLI::App* cmd, const CryptArgs& a, bool decrypt) {
    if (decrypt || a.force_tty) return;
    if (a.in == "-" && cmd->count("IN") == 0 && isatty(0))
        fail(kExitUsage, "refusing to read plaintext from the terminal: give IN (a file, or - for stdin), or "
                         "--force-tty");
    if (a.out == "-" && cmd->count("OUT") == 0 && isatty(1))
        fail(kExitUsage, "refusing to write ciphertext to the terminal: give OUT (a file, or - for stdout), or "
                         "--force-tty");
}

void run_crypt(CryptArgs& a, bool decrypt, const CLI::App* cmd) {
    refuse_ignored(cmd, a, decrypt);
    refuse_terminals(cmd, a, decrypt);
    if (a.raw) {
        if (!a.c.passphrase_file.empty()) fail(kExitUsage, "--raw takes --key-hex or --key-file, not a passphrase");
        RawOptions& r = a.r;
        r.algorithm = a.c.algorithm;
        r.device = a.c.device;
        r.options = a.c.options;
        r.key_file = a.c.key_file;
        r.force = a.c.force;
        r.json = a.c.json;
        if (!a.sector_size.empty()) r.sector_size = parse_size(a.sector_size, "--sector-size");
        if (!a.chunk.empty()) r.chunk = parse_size(a.chunk, "--chunk");
        run_raw(r, decrypt, a.in, a.out);
        return;
    }
    if (!a.r.key_hex.empty() || !a.r.iv_hex.empty() || !a.r.aad_hex.empty() || !a.sector_size.empty() ||
        !a.r.pad.empty() || a.r.tag_size != 0 || !a.chunk.empty())
        fail(kExitUsage, "--key-hex, --iv-hex, --aad-hex, --tag-size, --sector-size, --pad and --chunk "
                         "need --raw");
    ContainerOptions& c = a.c;
    c.progress = !a.quiet;
    c.max_memory = parse_size(a.max_memory, "--max-memory");
    if (decrypt) c.kdf_limits.max_memory = parse_size(a.max_kdf_memory, "--max-kdf-memory");
    if (!decrypt) {
        c.segment_size = parse_size(a.segment_size, "--segment-size");
        if (a.kdf == "scrypt") c.kdf = KdfId::Scrypt;
        else if (a.kdf == "argon2id") c.kdf = KdfId::Argon2id;
        else fail(kExitUsage, fmt::format("--kdf: '{}' (use scrypt or argon2id)", a.kdf));
        if (!c.kdf_params.empty() && !c.key_file.empty())
            fail(kExitUsage, "--kdf-params is for passphrases, not key files");
    }
    if (decrypt) decrypt_container(c, a.in, a.out);
    else encrypt_container(c, a.in, a.out);
}

}  // namespace

int main(int argc, char** argv) {
    install_signal_cleanup();
    CLI::App app{"bulkcrypt: bulk symmetric encryption on GPUs, OpenCL devices and CPUs.\n"
                 "Exit codes: 0 success, 1 usage, 2 I/O, 3 authentication failure, 4 device, 5 other."};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("bulkcrypt ") + bc_version());

    CryptArgs enc_args, dec_args;
    CLI::App* enc = app.add_subcommand("encrypt", "encrypt IN to OUT (a bulkcrypt file, or --raw)");
    add_crypt_options(enc, enc_args, true);
    enc->footer("\nExamples:\n"
                "  bulkcrypt keygen backup.key && bulkcrypt encrypt -k backup.key data.tar data.tar.bc\n"
                "  bulkcrypt encrypt --passphrase-file pw.txt --kdf argon2id notes.txt notes.bc\n"
                "  tar c dir | bulkcrypt encrypt -k backup.key - dir.tar.bc      (from a pipe)\n"
                "  bulkcrypt encrypt --raw -a aes-256-xts -k disk.key --iv-hex 000102030405060708090a0b0c0d0e0f \\\n"
                "      --sector-size 4096 disk.img disk.img.enc                   (a 64-byte key: keygen --size 64)");
    CLI::App* dec = app.add_subcommand("decrypt", "decrypt IN to OUT (a bulkcrypt file, or --raw)");
    add_crypt_options(dec, dec_args, false);
    dec->footer("\nExamples:\n"
                "  bulkcrypt decrypt -k backup.key data.tar.bc data.tar\n"
                "  bulkcrypt decrypt -k backup.key data.tar.bc - | tar x        (check the exit status)\n"
                "  bulkcrypt decrypt --passphrase-file pw.txt notes.bc notes.txt");

    CryptArgs ver_args;
    CLI::App* verify = app.add_subcommand("verify", "check every segment and the end of a bulkcrypt file, writing "
                                                    "nothing (exit 0, or 3 at the first failure)");
    verify->add_option("IN", ver_args.in, "the file to check, - for stdin")->required();
    verify->add_option("-k,--key-file", ver_args.c.key_file, "key file (32 raw bytes or 64 hex digits)");
    verify->add_option("--passphrase-file", ver_args.c.passphrase_file,
                       "read the passphrase from the first line of this file (default: ask on the terminal)");
    verify->add_option("--device", ver_args.c.device, "auto (default), cpu, cuda:N, cuda:all, hybrid, opencl:N");
    verify->add_option("--options", ver_args.c.options, "library options, e.g. threads=8");
    verify->add_option("-j,--jobs", ver_args.c.jobs, "worker threads calling the library (default: hardware threads)");
    verify->add_option("--max-memory", ver_args.max_memory, "bound on the segment buffers in flight (default 1G)");
    verify->add_flag("--json", ver_args.c.json, "print a JSON summary");
    verify->add_flag("-q,--quiet", ver_args.quiet, "no progress bar");
    add_reader_options(verify, ver_args);
    verify->footer("\nExamples:\n"
                   "  bulkcrypt verify -k backup.key data.tar.bc\n"
                   "  for f in /backups/*.bc; do bulkcrypt verify -q -k backup.key \"$f\" || echo \"BAD: $f\"; done");

    std::string inspect_in;
    bool inspect_json = false;
    CLI::App* inspect = app.add_subcommand("inspect", "print a bulkcrypt file's header, no key needed");
    inspect->add_option("IN", inspect_in, "the file, - for stdin")->required();
    inspect->add_flag("--json", inspect_json, "JSON output");
    inspect->footer("\nExamples:\n  bulkcrypt inspect data.tar.bc\n  bulkcrypt inspect --json data.tar.bc");

    std::string keygen_out;
    std::string keygen_size = "32";
    bool keygen_hex = false;
    CLI::App* keygen = app.add_subcommand("keygen", "write a new random key file (mode 0600; never overwrites)");
    keygen->add_option("OUT", keygen_out, "the key file to create")->required();
    keygen->add_option("--size", keygen_size, "key bytes (default 32: what encrypt -k reads)");
    keygen->add_flag("--hex", keygen_hex, "write hex digits and a newline instead of raw bytes");
    keygen->footer("\nExamples:\n  bulkcrypt keygen backup.key\n  bulkcrypt keygen --hex --size 64 disk.key   (two AES-256 keys for XTS)");

    bool devices_json = false;
    CLI::App* devices = app.add_subcommand("devices", "the devices --device accepts, with CPU features");
    devices->add_flag("--json", devices_json, "JSON output");
    devices->footer("\nExamples:\n  bulkcrypt devices\n  bulkcrypt devices --json");

    bool list_json = false;
    CLI::App* list = app.add_subcommand("list", "the algorithms, their sizes and the backends that run them");
    list->add_flag("--json", list_json, "JSON output");
    list->footer("\nExamples:\n  bulkcrypt list\n  bulkcrypt list --json");

    TuneArgs tune_args;
    CLI::App* tune = app.add_subcommand("tune", "measure a device's launch shapes and keep the fastest correct ones");
    tune->add_option("--device", tune_args.device, "the device to tune (default cuda:0 where there is one, else opencl:0)");
    tune->add_option("-a,--algorithm", tune_args.algorithms, "algorithms to measure (default: CUDA aes-128-ctr, aes-256-gcm, chacha20, chacha20-poly1305, each its own entry; OpenCL aes-128-ctr and chacha20)");
    tune->add_option("--budget", tune_args.budget, "seconds for the whole search, compiles included (default 60)")
        ->check(CLI::PositiveNumber);
    tune->add_option("--size", tune_args.size, "bytes per timed call, in device memory (default 64M)");
    tune->add_flag("--show", tune_args.show, "what a context on the device uses, and where it comes from");
    tune->add_flag("--reset", tune_args.reset, "forget the device's tuned entries");
    tune->add_flag("--emit", tune_args.emit, "print the winner as a shipped-table entry (src/tuning/defaults.cpp)");
    tune->add_flag("--no-store", tune_args.no_store, "measure and report, but keep the cache as it is");
    tune->footer("\nExamples:\n  bulkcrypt tune                      (the first GPU, about a minute)\n"
                 "  bulkcrypt tune --device opencl:0 -a aes-128-ctr --budget 120\n  bulkcrypt tune --show");

    BenchOptions bench_opt;
    std::string bench_size = "64M", bench_segment;
    CLI::App* bench = app.add_subcommand("bench", "quick throughput measurement through the C API");
    bench->add_option("-a,--algorithm", bench_opt.algorithm, "algorithm (default aes-256-gcm)");
    bench->add_option("--device", bench_opt.device, "auto (default), cpu, cuda:N, opencl:N");
    bench->add_option("--options", bench_opt.options, "library options");
    bench->add_option("--size", bench_size, "bytes per call (default 64M)");
    bench->add_option("--seconds", bench_opt.seconds, "measure at least this long (default 1)");
    bench->add_option("--runs", bench_opt.min_runs, "at least this many timed calls (default 3)");
    bench->add_flag("--decrypt", bench_opt.decrypt, "measure decryption");
    bench->add_option("--memory", bench_opt.memory,
                      "host (default), or device: input and output in GPU memory (cuda:N or auto), "
                      "beside the device copy roof")
        ->check(CLI::IsMember({"host", "device"}));
    bench->add_option("--segment-size", bench_segment,
                      "AEAD encrypt: also measure the container's path, --size cut into segments of this "
                      "size (with --file: the file's segment size)");
    bench->add_option("-j,--jobs", bench_opt.jobs, "worker threads for the segmented path");
    bench->add_flag("--json", bench_opt.json, "one JSON object on stdout");
    bench->add_option("--file", bench_opt.file,
                      "also encrypt this file through the container (page cache warmed first) and compare");
    bench->footer("\nExamples:\n  bulkcrypt bench                               (AES-256-GCM, 64 MiB calls, every device)\n"
                  "  bulkcrypt bench -a chacha20-poly1305 --device cuda:0 --memory device --size 1G\n"
                  "  bulkcrypt bench --file data.tar               (the container's path on a real file)");
    bench->add_option("--file-out", bench_opt.file_out, "where --file's container goes (default /dev/null; "
                      "a path is replaced)");

    // A first word that is no command (a typo, or a file given first): say so and list
    // the commands, instead of CLI11's "a subcommand is required".
    if (argc > 1 && argv[1][0] != '-') {
        bool known = false;
        std::string names;
        for (const CLI::App* sub : app.get_subcommands({})) {
            known = known || sub->get_name() == argv[1];
            names += (names.empty() ? "" : ", ") + sub->get_name();
        }
        if (!known) {
            std::fprintf(stderr, "bulkcrypt: unknown command '%s' (commands: %s; bulkcrypt --help)\n", argv[1],
                         names.c_str());
            return kExitUsage;
        }
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? kExitOk : kExitUsage;
    }

    // --json: a failure is a JSON object too, where the summary would have gone.
    const bool json = (enc->parsed() && enc_args.c.json) || (dec->parsed() && dec_args.c.json) ||
                      (verify->parsed() && ver_args.c.json) || (inspect->parsed() && inspect_json);
    const bool data_on_stdout = (enc->parsed() && enc_args.out == "-") || (dec->parsed() && dec_args.out == "-");
    auto failed = [&](int code, const std::string& message) {
        std::fflush(stdout);
        if (json) {
            nlohmann::json j;
            j["error"] = message;
            j["exit_code"] = code;
            std::fprintf(data_on_stdout ? stderr : stdout, "%s\n", j.dump().c_str());
            std::fflush(stdout);
            if (data_on_stdout) return code;
        }
        std::fprintf(stderr, "bulkcrypt: %s\n", message.c_str());
        return code;
    };
    try {
        if (enc->parsed()) run_crypt(enc_args, false, enc);
        else if (dec->parsed()) run_crypt(dec_args, true, dec);
        else if (verify->parsed()) {
            ContainerOptions& c = ver_args.c;
            c.progress = !ver_args.quiet;
            c.max_memory = parse_size(ver_args.max_memory, "--max-memory");
            c.kdf_limits.max_memory = parse_size(ver_args.max_kdf_memory, "--max-kdf-memory");
            verify_container(c, ver_args.in);
        } else if (inspect->parsed()) inspect_container(inspect_in, inspect_json);
        else if (keygen->parsed())
            write_key_file(keygen_out, static_cast<size_t>(parse_size(keygen_size, "--size")), keygen_hex);
        else if (devices->parsed()) return cmd_devices(devices_json);
        else if (list->parsed()) return cmd_list(list_json);
        else if (tune->parsed()) return cmd_tune(tune_args);
        else if (bench->parsed()) {
            bench_opt.size = parse_size(bench_size, "--size");
            if (!bench_segment.empty()) bench_opt.segment_size = parse_size(bench_segment, "--segment-size");
            return cmd_bench(bench_opt);
        }
        return kExitOk;
    } catch (const Failure& f) {
        return failed(f.code(), f.what());
    } catch (const std::bad_alloc&) {
        return failed(kExitOther, "out of host memory");
    } catch (const std::exception& e) {
        return failed(kExitOther, std::string("internal error: ") + e.what());
    }
}
