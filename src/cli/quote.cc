#include "cli/quote.h"

namespace braid {
namespace {

std::string Escape(std::string_view text, std::size_t max, bool escape_quotes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (escape_quotes && (c == '"' || c == '\\')) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  return text.size() > max ? out + "..." : out;
}

}  // namespace

std::string EscapeControl(std::string_view text, std::size_t max) {
  return Escape(text, max, false);
}

std::string QuoteForMessage(std::string_view text, std::size_t max) {
  return "\"" + Escape(text, max, true) + "\"";
}

}  // namespace braid
