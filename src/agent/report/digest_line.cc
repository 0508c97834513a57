#include "agent/report/digest_line.h"

#include "agent/report/visible_text.h"

namespace braid {

std::string DigestLine(std::string_view hex, std::string_view name) {
  std::string shown;
  shown.reserve(name.size());
  std::size_t from = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    const char c = i < name.size() ? name[i] : '\0';
    if (i < name.size() && c != '\\' && c != '\n' && c != '\r') continue;
    shown += VisibleText(name.substr(from, i - from));
    if (i < name.size()) shown += c == '\\' ? "\\\\" : c == '\n' ? "\\n" : "\\r";
    from = i + 1;
  }
  // VisibleText only ever adds a backslash escape, so any change needs the marker.
  std::string line = shown != name ? "\\" : "";
  line.append(hex);
  line += "  ";
  return line + shown;
}

}  // namespace braid
