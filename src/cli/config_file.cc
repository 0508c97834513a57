#include "cli/config_file.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "braid/error.h"
#include "braid/unique_fd.h"
#include "cli/quote.h"

namespace braid {
namespace {

/// Far beyond any real config, small enough that `-C /dev/zero` fails fast.
constexpr std::size_t kMaxConfigBytes = 1u << 20;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

/// `s` up to a comment: a '#' at the start or after a blank. A '#' inside a
/// word (a URL fragment, "a#b") is data.
std::string_view CutComment(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '#' && (i == 0 || IsBlank(s[i - 1]))) return s.substr(0, i);
  }
  return s;
}

bool IsKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

[[noreturn]] void LineError(const std::string& file, int line, const std::string& why) {
  throw BraidError(ErrorCode::kUsage, file + ":" + std::to_string(line) + ": " + why);
}

}  // namespace

std::vector<ConfigEntry> ParseConfigText(std::string_view text, const std::string& file_name) {
  std::vector<ConfigEntry> entries;
  int line_number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view raw = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_number;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);  // a file from Windows
    std::string_view line = Trim(raw);
    if (line.empty() || line.front() == '#') continue;

    ConfigEntry entry;
    entry.line = line_number;
    std::size_t eq = line.find('=');
    std::string_view key = Trim(CutComment(line.substr(0, eq)));
    if (eq != std::string_view::npos) {
      if (key.size() != Trim(line.substr(0, eq)).size()) {
        LineError(file_name, line_number, "a comment before '=' in " + QuoteForMessage(line, 80));
      }
      std::string_view rest = Trim(line.substr(eq + 1));
      if (!rest.empty() && (rest.front() == '"' || rest.front() == '\'')) {
        std::size_t close = rest.find(rest.front(), 1);
        if (close == std::string_view::npos) {
          LineError(file_name, line_number, "unterminated quote in " + QuoteForMessage(line, 80));
        }
        std::string_view after = Trim(rest.substr(close + 1));
        if (!after.empty() && after.front() != '#') {
          LineError(file_name, line_number,
                    "text after the closing quote in " + QuoteForMessage(line, 80));
        }
        entry.value = std::string(rest.substr(1, close - 1));
      } else {
        entry.value = std::string(Trim(CutComment(rest)));
      }
    }
    // "--streams = 8" is what a user copying from the command line writes.
    if (key.size() > 2 && key.substr(0, 2) == "--") key.remove_prefix(2);
    bool ok = !key.empty() && key.front() != '-' && key.front() != '_';
    for (char c : key) ok = ok && IsKeyChar(c);
    if (!ok) {
      LineError(file_name, line_number,
                "expected \"option = value\" or \"option\" with a long option name, got " +
                    QuoteForMessage(line, 80));
    }
    entry.key = std::string(key);
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::string ConfigArgument(const ConfigEntry& entry) {
  return "--" + entry.key + (entry.value ? "=" + *entry.value : "");
}

std::string DefaultConfigPath(const std::string& home) {
  if (home.empty()) return {};
  return home + (home.back() == '/' ? "" : "/") + ".config/braid/config";
}

std::string HomeDirectory() {
  const char* env = std::getenv("HOME");
  if (env != nullptr && *env != '\0') return env;
  passwd pw{};
  passwd* found = nullptr;
  std::string buf(16384, '\0');
  if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr ||
      pw.pw_dir == nullptr) {
    return {};
  }
  return pw.pw_dir;
}

std::optional<std::string> ReadConfigFile(const std::string& path, bool must_exist) {
  auto fail = [&path](int err) -> BraidError {
    return BraidError(ErrorCode::kUsage, "cannot read config file " + DescribeErrno("", path, err));
  };
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    int err = errno;
    // ENOTDIR: ~/.config is a file, so the default file cannot exist either.
    if (!must_exist && (err == ENOENT || err == ENOTDIR)) return std::nullopt;
    throw fail(err);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw fail(errno);
  if (S_ISDIR(st.st_mode)) throw fail(EISDIR);
  std::string text;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail(errno);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxConfigBytes) {
      throw BraidError(ErrorCode::kUsage, "config file " + path + " is larger than 1 MiB");
    }
  }
  return text;
}

}  // namespace braid
