// Assembling one OpenCL translation unit from the embedded files.
#include <cstring>
#include <vector>

#include "backends/opencl/cl_embedded.h"

namespace bc {
namespace ocl {
namespace {

// "a/b/../c/./d.h" -> "a/c/d.h"; a leading ".." that cannot be collapsed stays.
std::string normalize_path(const std::string& path) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= path.size()) {
        size_t slash = path.find('/', start);
        if (slash == std::string::npos) slash = path.size();
        std::string part = path.substr(start, slash - start);
        if (part == "..") {
            if (!parts.empty() && parts.back() != "..") parts.pop_back();
            else parts.push_back(part);
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        start = slash + 1;
    }
    std::string r;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i) r += '/';
        r += parts[i];
    }
    return r;
}

std::string dir_of(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// The quoted name of an `#include "name"` line, or false for any other line.
bool parse_quoted_include(const std::string& line, std::string* name) {
    size_t i = 0;
    auto skip_space = [&] { while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i; };
    skip_space();
    if (i >= line.size() || line[i] != '#') return false;
    ++i;
    skip_space();
    if (line.compare(i, 7, "include") != 0) return false;
    i += 7;
    skip_space();
    if (i >= line.size() || line[i] != '"') return false;
    size_t end = line.find('"', i + 1);
    if (end == std::string::npos) return false;
    *name = line.substr(i + 1, end - i - 1);
    return true;
}

bool is_pragma_once(const std::string& line) {
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#') return false;
    size_t p = line.find("pragma", i + 1);
    return p != std::string::npos && line.find("once", p + 6) != std::string::npos &&
           line.find_first_not_of(" \t", i + 1) == p;
}

class Assembler {
public:
    // An embedded file: guarded by its index in the table.
    Status expand(const EmbeddedFile* f, std::string* out) {
        return expand(*f, "BC_EMBED_ONCE_" + std::to_string(static_cast<size_t>(f - kEmbeddedFiles)), out);
    }

    Status expand(const EmbeddedFile& file, const std::string& guard, std::string* out) {
        const EmbeddedFile* f = &file;
        for (const std::string& s : stack_)
            if (s == f->name) return Status::ok();  // a cycle: its guard makes it empty anyway
        stack_.push_back(f->name);
        *out += "#ifndef " + guard + "\n";
        *out += "#define " + guard + "\n";
        *out += "#line 1 \"" + std::string(f->name) + "\"\n";
        const char* p = f->text;
        const char* end = f->text + f->size;
        unsigned line_no = 0;
        while (p < end) {
            const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
            const char* line_end = nl ? nl : end;
            std::string line(p, line_end);
            ++line_no;
            p = nl ? nl + 1 : end;
            std::string inc;
            if (parse_quoted_include(line, &inc)) {
                const EmbeddedFile* child = resolve(f->name, inc);
                if (child == nullptr)
                    return Status(BC_ERR_INTERNAL, std::string("OpenCL source assembly: ") + f->name +
                                                       " includes \"" + inc + "\", which was not embedded");
                BC_TRY(expand(child, out));
                *out += "#line " + std::to_string(line_no + 1) + " \"" + f->name + "\"\n";
            } else if (is_pragma_once(line)) {
                *out += "\n";  // the generated guard does its work
            } else {
                *out += line;
                *out += '\n';
            }
        }
        *out += "#endif\n";
        stack_.pop_back();
        return Status::ok();
    }

private:
    static const EmbeddedFile* resolve(const std::string& from, const std::string& inc) {
        std::string dir = dir_of(from);
        if (!dir.empty())
            if (const EmbeddedFile* f = find_embedded(normalize_path(dir + "/" + inc))) return f;
        return find_embedded(normalize_path(inc));
    }

    std::vector<std::string> stack_;
};

}  // namespace

const EmbeddedFile* find_embedded(const std::string& name) {
    for (size_t i = 0; i < kEmbeddedFileCount; ++i)
        if (name == kEmbeddedFiles[i].name) return &kEmbeddedFiles[i];
    return nullptr;
}

Status assemble_source(const std::string& root, std::string* out) {
    const EmbeddedFile* f = find_embedded(root);
    if (f == nullptr) return Status(BC_ERR_INTERNAL, "OpenCL source " + root + " was not embedded");
    out->clear();
    Assembler a;
    return a.expand(f, out);
}

Status assemble_text(const std::string& name, const std::string& text, std::string* out) {
    out->clear();
    const EmbeddedFile f{name.c_str(), text.data(), text.size()};
    Assembler a;
    return a.expand(f, "BC_EMBED_ONCE_ROOT", out);
}

std::vector<EmbeddedBlockCipher> embedded_block_ciphers() {
    std::vector<EmbeddedBlockCipher> r;
    const EmbeddedFile* list = find_embedded("bc_cipher_devices.inc");
    if (list == nullptr) return r;
    auto lines = [](const EmbeddedFile* f) {
        std::vector<std::string> v;
        const std::string text(f->text, f->size);
        size_t start = 0;
        while (start < text.size()) {
            size_t nl = text.find('\n', start);
            if (nl == std::string::npos) nl = text.size();
            v.push_back(text.substr(start, nl - start));
            start = nl + 1;
        }
        return v;
    };
    for (const std::string& line : lines(list)) {
        std::string inc;
        if (!parse_quoted_include(line, &inc)) continue;
        const EmbeddedFile* dev = find_embedded(normalize_path(inc));
        if (dev == nullptr) continue;
        // The registration line: BC_DEVICE_BLOCK_CIPHER(id, ID), at the start of a line.
        static const char kMacro[] = "BC_DEVICE_BLOCK_CIPHER(";
        for (const std::string& l : lines(dev)) {
            const size_t i = l.find_first_not_of(" \t");
            if (i == std::string::npos || l.compare(i, sizeof kMacro - 1, kMacro) != 0) continue;
            const size_t open = i + sizeof kMacro - 1, close = l.find(')', open);
            const size_t comma = l.find(',', open);
            if (close == std::string::npos || comma == std::string::npos || comma > close) continue;
            auto trim = [](std::string s) {
                const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
                return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
            };
            EmbeddedBlockCipher c;
            c.id = trim(l.substr(open, comma - open));
            c.uid = trim(l.substr(comma + 1, close - comma - 1));
            c.device_inc = dev->name;
            // A table cipher's core header (included by device.inc) says so:
            // "#define BC_<ID>_KS_SHARED 1"
            const std::string shared = "#define BC_" + c.uid + "_KS_SHARED 1";
            for (const std::string& dl : lines(dev)) {
                std::string hdr;
                if (!parse_quoted_include(dl, &hdr)) continue;
                const EmbeddedFile* h = find_embedded(normalize_path(hdr));
                if (h == nullptr) continue;
                for (const std::string& hl : lines(h))
                    if (hl.compare(0, shared.size(), shared) == 0) c.tables = true;
            }
            if (!c.id.empty() && !c.uid.empty()) r.push_back(c);
        }
    }
    return r;
}

}  // namespace ocl
}  // namespace bc
