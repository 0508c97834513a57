#include "agent/report/visible_text.h"

namespace braid {
namespace {

void AppendEscaped(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 0xF];
}

}  // namespace

std::size_t Utf8Length(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  std::size_t len = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // UTF-16 surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // beyond U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return len;
}

bool IsC1Control(std::string_view seq) {
  return seq.size() == 2 && static_cast<unsigned char>(seq[0]) == 0xC2 &&
         static_cast<unsigned char>(seq[1]) <= 0x9F;
}

std::string VisibleText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t len = Utf8Length(text, i);
      const std::string_view seq = text.substr(i, len);
      if (len == 0 || IsC1Control(seq)) {
        for (std::size_t k = 0; k < (len == 0 ? 1 : len); ++k) {
          AppendEscaped(out, static_cast<unsigned char>(text[i + k]));
        }
        i += len == 0 ? 1 : len;
      } else {
        out.append(seq);
        i += len;
      }
      continue;
    }
    if (c < 0x20 || c == 0x7F) {
      AppendEscaped(out, c);
    } else {
      out += static_cast<char>(c);
    }
    ++i;
  }
  return out;
}

}  // namespace braid
