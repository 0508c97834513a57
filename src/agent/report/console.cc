#include "agent/report/console.h"

#include <cstdarg>
#include <ctime>
#include <string>

#include "agent/report/visible_text.h"

namespace braid {

namespace {
/// Set once by AlsoLogStderrTo before any other thread prints; read only after.
std::FILE* stderr_log = nullptr;

/// Writes a finished line (already visible, with its newline) to `out`, and
/// to the log after its time when `out` is stderr.
void Emit(std::FILE* out, const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), out);
  if (out != stderr || stderr_log == nullptr) return;
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  char stamp[32] = "";
  if (::gmtime_r(&now, &utc) != nullptr) std::strftime(stamp, sizeof stamp, "%FT%TZ ", &utc);
  std::string logged = stamp + line;
  std::fwrite(logged.data(), 1, logged.size(), stderr_log);
  std::fflush(stderr_log);
}
}  // namespace

void AlsoLogStderrTo(std::FILE* log) { stderr_log = log; }

void WriteLine(std::FILE* out, std::string_view text) {
  std::string line = VisibleText(text);
  line += '\n';
  Emit(out, line);
}

void PrintLine(std::FILE* out, const char* format, ...) {
  std::va_list args;
  va_start(args, format);
  std::va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string text(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(text.data(), text.size() + 1, format, again);
  va_end(again);
  WriteLine(out, text);
}

void WriteBar(std::FILE* out, std::string_view text) {
  std::string bar = "\r" + VisibleText(text);
  std::fwrite(bar.data(), 1, bar.size(), out);
}

void WritePeerText(std::FILE* out, std::string_view label, std::string_view text) {
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // a CRLF line end
    std::string shown = VisibleText(label);
    shown += ": ";
    shown += VisibleText(line);
    shown += '\n';
    Emit(out, shown);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  }
}

}  // namespace braid
