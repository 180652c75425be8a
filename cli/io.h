// Input and output files of the command.
//
// Input: a path or "-" (stdin). A regular file also allows positioned reads
// (pread) from several threads at once.
// Output: a path or "-" (stdout). A path is written as a temporary file beside
// it (same directory, O_EXCL, mode 0600) and renamed over the path only by
// commit(); anything else (an error, an exception, a signal) deletes it, so a
// failed run never leaves a partial or unauthenticated file at the path. An
// existing device or FIFO (/dev/null, a named pipe) is written in order, like
// stdout.
#pragma once

#include <termios.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bcli {

class Input {
public:
    Input() = default;
    Input(const Input&) = delete;
    Input& operator=(const Input&) = delete;
    ~Input();

    void open(const std::string& path);
    const std::string& name() const { return name_; }
    // A regular file opened by path: size() is known and pread_full works.
    bool random_access() const { return random_access_; }
    uint64_t size() const { return size_; }
    // Reads until n bytes or end of input; returns the count (short only at the end).
    size_t read_full(uint8_t* buf, size_t n);
    // Positioned read of exactly n bytes, or an I/O failure (the file shrank).
    void pread_exact(uint8_t* buf, size_t n, uint64_t offset) const;
    int fd() const { return fd_; }
    // A regular file is also mapped read-only (nullptr when it is empty or the
    // mapping failed): the workers then read it in place, without a copy.
    const uint8_t* mapped() const { return map_; }
    // Releases the mapped pages of [offset, offset + n) from this process (the
    // page cache keeps them), so resident memory stays bounded.
    void release_mapped(uint64_t offset, uint64_t n) const;
    // A regular file written to since open() (its size or modification time moved): why,
    // or empty. What was read may mix old and new contents.
    std::string changed_since_open() const;

private:
    int64_t mtime_sec_ = 0, mtime_nsec_ = 0;
    const uint8_t* map_ = nullptr;
    int fd_ = -1;
    bool owned_ = false;
    bool random_access_ = false;
    uint64_t size_ = 0;
    std::string name_;
};

class Output {
public:
    Output() = default;
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;
    ~Output();  // removes the temporary file unless committed

    // force: replace an existing file at path. Fails (I/O) when path exists
    // without force, or names a directory.
    void open(const std::string& path, bool force);
    const std::string& name() const { return name_; }
    bool is_stdout() const { return fd_ == 1 && !owned_; }
    // A temporary regular file: positioned writes from several threads work.
    bool random_access() const { return random_access_; }
    void write_all(const uint8_t* buf, size_t n);
    void pwrite_all(const uint8_t* buf, size_t n, uint64_t offset) const;
    // Sets the final length (positioned writers may leave it short of that
    // only if they failed; this makes a mismatch impossible to miss).
    void truncate(uint64_t size) const;
    // fsync (when asked) and rename the temporary file to the path.
    void commit(bool sync);
    // Removes the temporary file now (idempotent).
    void abort();
    // A temporary file of known final size can be written in place: reserves
    // the space (posix_fallocate, so a full disk is an error now, not a SIGBUS
    // later) and maps it writable. nullptr when that is not possible; then
    // pwrite_all is the way.
    uint8_t* map_for_write(uint64_t total);
    void release_mapped(uint64_t offset, uint64_t n) const;

private:
    void unmap();
    uint8_t* map_ = nullptr;
    uint64_t map_size_ = 0;
    int fd_ = -1;
    bool owned_ = false;
    bool random_access_ = false;
    bool force_ = false;
    bool committed_ = false;
    bool stream_ = false;  // an existing device or FIFO opened by path
    std::string name_;
    std::string temp_;
};

// Installs SIGINT/SIGTERM/SIGHUP/SIGQUIT handlers that delete the current
// temporary output file and exit with status 128+signal, and a SIGBUS handler
// (a mapped input file that shrank) that does the same and exits with the I/O
// code. SIGPIPE is ignored: a closed pipe is an EPIPE write error (I/O code).
void install_signal_cleanup();

// A terminal whose settings a fatal signal must put back (the passphrase prompt turns
// echo off): registered while they are changed, restored by the handler before it exits.
void register_terminal_restore(int fd, const struct termios& saved);
void unregister_terminal_restore();

// Creates a new file with mode 0600; refuses to replace an existing one.
// Writes all bytes and closes it; on failure removes what it created.
void write_new_private_file(const std::string& path, const uint8_t* data, size_t n);

// Reads a whole (small) file; I/O failure when it is larger than max_bytes.
std::string read_small_file(const std::string& path, size_t max_bytes, const char* what);

}  // namespace bcli
