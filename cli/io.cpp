#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "common.h"

namespace bcli {

namespace {

// The temporary output file the signal handler removes. One at a time: the
// command writes one output per run.
char g_temp_path[4096];
volatile sig_atomic_t g_temp_set = 0;

// The terminal the prompt changed, and its settings before (tcsetattr is
// async-signal-safe).
struct termios g_tty_saved;
volatile sig_atomic_t g_tty_fd = -1;

void on_fatal_signal(int sig) {
    if (g_tty_fd >= 0) tcsetattr(g_tty_fd, TCSANOW, &g_tty_saved);
    if (g_temp_set) unlink(g_temp_path);
    _exit(128 + sig);
}

void on_sigbus(int) {
    static const char msg[] = "bulkcrypt: the input file shrank while being read (SIGBUS)\n";
    if (g_temp_set) unlink(g_temp_path);
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(kExitIo);
}

void register_temp(const std::string& path) {
    if (path.size() >= sizeof(g_temp_path)) return;
    g_temp_set = 0;
    std::memcpy(g_temp_path, path.c_str(), path.size() + 1);
    g_temp_set = 1;
}

void unregister_temp() { g_temp_set = 0; }

std::string errno_text(int err) { return std::strerror(err); }

std::string dir_of(const std::string& path) {
    size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
    size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A temporary output of ours: ".BASE.<12 hex digits>.bctmp".
bool is_temp_name_for(const std::string& name, const std::string& base) {
    const std::string head = "." + base + ".", tail = ".bctmp";
    if (name.size() != head.size() + 12 + tail.size()) return false;
    if (name.compare(0, head.size(), head) != 0 || name.compare(name.size() - tail.size(), tail.size(), tail) != 0)
        return false;
    for (size_t i = head.size(); i < head.size() + 12; ++i)
        if (!std::isxdigit(static_cast<unsigned char>(name[i])) || std::isupper(static_cast<unsigned char>(name[i])))
            return false;
    return true;
}

// Removes temporary outputs for `path` that a crashed or killed run left (a full-size
// file, possibly holding verified plaintext). Ours alone: our name pattern, our user, a
// regular file, not locked (a running writer holds an exclusive lock on its temporary
// for its whole life) and not brand new (the instant between a writer's create and its
// lock).
void remove_stale_temps(const std::string& dir, const std::string& base) {
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return;
    const time_t now = time(nullptr);
    while (struct dirent* e = readdir(d)) {
        const std::string name = e->d_name;
        if (!is_temp_name_for(name, base)) continue;
        const std::string full = dir + "/" + name;
        struct stat st;
        if (lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) continue;
        if (now - st.st_mtime < 10) continue;
        const int fd = ::open(full.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0 && unlink(full.c_str()) == 0)
            std::fprintf(stderr, "bulkcrypt: removed '%s', left by an interrupted run\n", full.c_str());
        ::close(fd);
    }
    closedir(d);
}

}  // namespace

void register_terminal_restore(int fd, const struct termios& saved) {
    g_tty_fd = -1;
    g_tty_saved = saved;
    g_tty_fd = fd;
}

void unregister_terminal_restore() { g_tty_fd = -1; }

void install_signal_cleanup() {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
    sa.sa_handler = on_sigbus;
    sigaction(SIGBUS, &sa, nullptr);
    // A closed pipe becomes EPIPE on write: an I/O error with a message, not
    // a silent death.
    signal(SIGPIPE, SIG_IGN);
}

// ---- Input ----------------------------------------------------------------------

Input::~Input() {
    if (map_ != nullptr) munmap(const_cast<uint8_t*>(map_), static_cast<size_t>(size_));
    if (owned_ && fd_ >= 0) close(fd_);
}

void Input::release_mapped(uint64_t offset, uint64_t n) const {
    if (map_ == nullptr || n == 0) return;
    static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    // Whole pages covering the range: a neighbour still reading a shared edge
    // page simply faults it in again from the page cache.
    const uint64_t start = offset / page * page;
    const uint64_t end = std::min(size_, (offset + n + page - 1) / page * page);
    if (end > start)
        madvise(const_cast<uint8_t*>(map_) + start, static_cast<size_t>(end - start), MADV_DONTNEED);
}

void Input::open(const std::string& path) {
    name_ = path == "-" ? "<stdin>" : path;
    if (path == "-") {
        fd_ = 0;
        owned_ = false;
        return;
    }
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(kExitIo, fmt::format("cannot open '{}': {}", path, errno_text(errno)));
    owned_ = true;
    struct stat st;
    if (fstat(fd_, &st) != 0) fail(kExitIo, fmt::format("cannot stat '{}': {}", path, errno_text(errno)));
    if (S_ISDIR(st.st_mode)) fail(kExitIo, fmt::format("'{}' is a directory", path));
    if (S_ISREG(st.st_mode)) {
        random_access_ = true;
        size_ = static_cast<uint64_t>(st.st_size);
        mtime_sec_ = static_cast<int64_t>(st.st_mtim.tv_sec);
        mtime_nsec_ = static_cast<int64_t>(st.st_mtim.tv_nsec);
        posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
        if (size_ > 0 && size_ <= SIZE_MAX && std::getenv("BULKCRYPT_NO_MMAP") == nullptr) {
            void* p = mmap(nullptr, static_cast<size_t>(size_), PROT_READ, MAP_SHARED, fd_, 0);
            if (p != MAP_FAILED) {
                map_ = static_cast<const uint8_t*>(p);
                madvise(p, static_cast<size_t>(size_), MADV_SEQUENTIAL);
            }
        }
    }
}

std::string Input::changed_since_open() const {
    if (!random_access_) return {};
    struct stat st;
    if (fstat(fd_, &st) != 0) return fmt::format("cannot stat it again: {}", errno_text(errno));
    if (static_cast<uint64_t>(st.st_size) != size_)
        return fmt::format("its size went from {} to {} bytes", size_, static_cast<uint64_t>(st.st_size));
    if (st.st_mtim.tv_sec != mtime_sec_ || st.st_mtim.tv_nsec != mtime_nsec_) return "it was modified";
    return {};
}

size_t Input::read_full(uint8_t* buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = ::read(fd_, buf + got, n - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            fail(kExitIo, fmt::format("read error on {}: {}", name_, errno_text(errno)));
        }
        if (r == 0) break;
        got += static_cast<size_t>(r);
    }
    return got;
}

void Input::pread_exact(uint8_t* buf, size_t n, uint64_t offset) const {
    size_t got = 0;
    while (got < n) {
        ssize_t r = ::pread(fd_, buf + got, n - got, static_cast<off_t>(offset + got));
        if (r < 0) {
            if (errno == EINTR) continue;
            fail(kExitIo, fmt::format("read error on {}: {}", name_, errno_text(errno)));
        }
        if (r == 0)
            fail(kExitIo, fmt::format("{} shrank while being read (expected {} bytes at offset {})",
                                      name_, n, offset));
        got += static_cast<size_t>(r);
    }
}

// ---- Output ---------------------------------------------------------------------

Output::~Output() { abort(); }

void Output::open(const std::string& path, bool force) {
    force_ = force;
    if (path == "-") {
        name_ = "<stdout>";
        fd_ = 1;
        owned_ = false;
        return;
    }
    name_ = path;
    struct stat st;
    if (stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) fail(kExitIo, fmt::format("'{}' is a directory", path));
        if (!S_ISREG(st.st_mode)) {
            // A device or a FIFO (/dev/null, a named pipe): written in order,
            // like stdout, nothing to replace or rename.
            fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
            if (fd_ < 0) fail(kExitIo, fmt::format("cannot open '{}': {}", path, errno_text(errno)));
            owned_ = true;
            stream_ = true;
            return;
        }
        if (!force)
            fail(kExitIo, fmt::format("'{}' exists (use --force to replace it)", path));
    }
    const std::string dir = dir_of(path), base = base_of(path);
    remove_stale_temps(dir, base);
    for (int attempt = 0; attempt < 16; ++attempt) {
        uint8_t rnd[6];
        if (RAND_bytes(rnd, sizeof rnd) != 1) fail(kExitOther, "the random generator failed");
        std::string temp = fmt::format("{}/.{}.{}.bctmp", dir, base, to_hex(rnd, sizeof rnd));
        // Registered before it exists, so a signal between open and register
        // cannot leave it behind; unlinking a name we do not own is impossible
        // because the name is random and O_EXCL.
        int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            if (errno == EEXIST) continue;
            fail(kExitIo, fmt::format("cannot create a temporary file in '{}': {}", dir,
                                      errno_text(errno)));
        }
        register_temp(temp);
        // Held until the process ends: a later run on the same path knows it is in use.
        (void)flock(fd, LOCK_EX | LOCK_NB);
        fd_ = fd;
        owned_ = true;
        temp_ = temp;
        random_access_ = true;
        return;
    }
    fail(kExitIo, fmt::format("cannot create a temporary file in '{}'", dir));
}

void Output::write_all(const uint8_t* buf, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t w = ::write(fd_, buf + done, n - done);
        if (w < 0) {
            if (errno == EINTR) continue;
            fail(kExitIo, fmt::format("write error on {}: {}", name_, errno_text(errno)));
        }
        done += static_cast<size_t>(w);
    }
}

void Output::pwrite_all(const uint8_t* buf, size_t n, uint64_t offset) const {
    size_t done = 0;
    while (done < n) {
        ssize_t w = ::pwrite(fd_, buf + done, n - done, static_cast<off_t>(offset + done));
        if (w < 0) {
            if (errno == EINTR) continue;
            fail(kExitIo, fmt::format("write error on {}: {}", name_, errno_text(errno)));
        }
        done += static_cast<size_t>(w);
    }
}

void Output::truncate(uint64_t size) const {
    if (ftruncate(fd_, static_cast<off_t>(size)) != 0)
        fail(kExitIo, fmt::format("cannot set the length of {}: {}", name_, errno_text(errno)));
}

void Output::commit(bool sync) {
    if (!owned_ || stream_) {
        // stdout, a device or a FIFO: nothing to rename; write(2) is unbuffered.
        if (sync) fsync(fd_);
        if (owned_ && close(fd_) != 0) {
            fd_ = -1;
            fail(kExitIo, fmt::format("closing {} failed: {}", name_, errno_text(errno)));
        }
        if (owned_) fd_ = -1;
        committed_ = true;
        return;
    }
    unmap();
    if (sync && fsync(fd_) != 0)
        fail(kExitIo, fmt::format("fsync of {} failed: {}", name_, errno_text(errno)));
    if (close(fd_) != 0) {
        fd_ = -1;
        fail(kExitIo, fmt::format("closing {} failed: {}", name_, errno_text(errno)));
    }
    fd_ = -1;
    int rc;
    if (force_) {
        rc = rename(temp_.c_str(), name_.c_str());
    } else {
        rc = renameat2(AT_FDCWD, temp_.c_str(), AT_FDCWD, name_.c_str(), RENAME_NOREPLACE);
        if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
            // The file system has no RENAME_NOREPLACE: link(2) refuses to replace too.
            rc = link(temp_.c_str(), name_.c_str());
            if (rc == 0) unlink(temp_.c_str());
        }
    }
    if (rc != 0) {
        int err = errno;
        if (err == EEXIST)
            fail(kExitIo, fmt::format("'{}' appeared while writing (use --force to replace it)", name_));
        fail(kExitIo, fmt::format("cannot rename the temporary file to '{}': {}", name_, errno_text(err)));
    }
    unregister_temp();
    committed_ = true;
    if (sync) {
        int dfd = ::open(dir_of(name_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
}

uint8_t* Output::map_for_write(uint64_t total) {
    if (!random_access_ || stream_ || total == 0 || total > SIZE_MAX ||
        std::getenv("BULKCRYPT_NO_MMAP") != nullptr)
        return nullptr;
    if (posix_fallocate(fd_, 0, static_cast<off_t>(total)) != 0) return nullptr;
    void* p = mmap(nullptr, static_cast<size_t>(total), PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) return nullptr;
    map_ = static_cast<uint8_t*>(p);
    map_size_ = total;
    return map_;
}

void Output::release_mapped(uint64_t offset, uint64_t n) const {
    if (map_ == nullptr || n == 0) return;
    static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    // Dirty pages go back to the page cache (they stay dirty there); a
    // neighbour still writing a shared edge page faults it in again.
    const uint64_t start = offset / page * page;
    const uint64_t end = std::min(map_size_, (offset + n + page - 1) / page * page);
    if (end > start) madvise(map_ + start, static_cast<size_t>(end - start), MADV_DONTNEED);
}

void Output::unmap() {
    if (map_ != nullptr) munmap(map_, static_cast<size_t>(map_size_));
    map_ = nullptr;
    map_size_ = 0;
}

void Output::abort() {
    unmap();
    if (stream_) {
        if (fd_ >= 0) close(fd_);
        fd_ = -1;
        return;
    }
    if (owned_ && !committed_) {
        if (fd_ >= 0) close(fd_);
        fd_ = -1;
        if (!temp_.empty()) unlink(temp_.c_str());
        unregister_temp();
        temp_.clear();
        owned_ = false;
    }
}

// ---- small files ------------------------------------------------------------------

void write_new_private_file(const std::string& path, const uint8_t* data, size_t n) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        if (errno == EEXIST) fail(kExitIo, fmt::format("'{}' exists; refusing to overwrite it", path));
        fail(kExitIo, fmt::format("cannot create '{}': {}", path, errno_text(errno)));
    }
    // The umask may only remove bits; make sure of 0600 exactly.
    fchmod(fd, 0600);
    size_t done = 0;
    while (done < n) {
        ssize_t w = ::write(fd, data + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            int err = errno;
            close(fd);
            unlink(path.c_str());
            fail(kExitIo, fmt::format("write error on '{}': {}", path, errno_text(err)));
        }
        done += static_cast<size_t>(w);
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int err = errno;
        unlink(path.c_str());
        fail(kExitIo, fmt::format("cannot write '{}': {}", path, errno_text(err)));
    }
}

std::string read_small_file(const std::string& path, size_t max_bytes, const char* what) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(kExitIo, fmt::format("cannot open {} '{}': {}", what, path, errno_text(errno)));
    std::string out;
    char buf[4096];
    for (;;) {
        ssize_t r = ::read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int err = errno;
            close(fd);
            fail(kExitIo, fmt::format("read error on {} '{}': {}", what, path, errno_text(err)));
        }
        if (r == 0) break;
        out.append(buf, static_cast<size_t>(r));
        if (out.size() > max_bytes) {
            close(fd);
            OPENSSL_cleanse(out.data(), out.size());
            fail(kExitUsage, fmt::format("{} '{}' is larger than {} bytes", what, path, max_bytes));
        }
    }
    close(fd);
    return out;
}

}  // namespace bcli
