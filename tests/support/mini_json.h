#pragma once
/// A strict, small JSON reader for tests that check braid's --json output:
/// RFC 8259 syntax (no trailing commas, no NaN, no control characters in
/// strings, nothing after the document), values as a tree. Not for production:
/// no depth limit, \u escapes outside ASCII are kept as '?'.

#include <cstddef>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace braid::testing {

struct JsonValue {
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject } type = Type::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<JsonValue> array;
  std::map<std::string, JsonValue> object;

  bool Has(const std::string& key) const { return object.count(key) > 0; }
  /// Throws std::runtime_error if this is not an object with `key`.
  const JsonValue& operator[](const std::string& key) const {
    auto it = object.find(key);
    if (type != Type::kObject || it == object.end()) {
      throw std::runtime_error("no key \"" + key + "\"");
    }
    return it->second;
  }
};

class JsonReader {
 public:
  /// Parses a whole document; throws std::runtime_error saying where it broke.
  static JsonValue Parse(std::string_view text) {
    JsonReader r(text);
    JsonValue v = r.Value();
    r.Space();
    if (r.pos_ != text.size()) r.Fail("text after the document");
    return v;
  }

 private:
  explicit JsonReader(std::string_view text) : s_(text) {}

  [[noreturn]] void Fail(const std::string& why) const {
    throw std::runtime_error("JSON: " + why + " at offset " + std::to_string(pos_));
  }
  void Space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Eat(char c) {
    Space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Eat(c)) Fail(std::string("expected '") + c + "'");
  }
  bool Word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  static bool Digit(char c) { return c >= '0' && c <= '9'; }

  JsonValue Value() {
    Space();
    if (pos_ >= s_.size()) Fail("unexpected end");
    JsonValue v;
    char c = s_[pos_];
    if (c == '{') {
      ++pos_;
      v.type = JsonValue::Type::kObject;
      if (Eat('}')) return v;
      do {
        Space();
        std::string key = String();
        Expect(':');
        if (v.object.count(key) > 0) Fail("duplicate key \"" + key + "\"");
        v.object[key] = Value();
      } while (Eat(','));
      Expect('}');
    } else if (c == '[') {
      ++pos_;
      v.type = JsonValue::Type::kArray;
      if (Eat(']')) return v;
      do {
        v.array.push_back(Value());
      } while (Eat(','));
      Expect(']');
    } else if (c == '"') {
      v.type = JsonValue::Type::kString;
      v.string = String();
    } else if (Word("true")) {
      v.type = JsonValue::Type::kBool;
      v.boolean = true;
    } else if (Word("false")) {
      v.type = JsonValue::Type::kBool;
    } else if (Word("null")) {
      v.type = JsonValue::Type::kNull;
    } else {
      v.type = JsonValue::Type::kNumber;
      v.number = Number();
    }
    return v;
  }

  double Number() {
    std::size_t start = pos_;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !Digit(s_[pos_])) Fail("bad number");
    if (s_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < s_.size() && Digit(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (pos_ >= s_.size() || !Digit(s_[pos_])) Fail("bad fraction");
      while (pos_ < s_.size() && Digit(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !Digit(s_[pos_])) Fail("bad exponent");
      while (pos_ < s_.size() && Digit(s_[pos_])) ++pos_;
    }
    return std::strtod(std::string(s_.substr(start, pos_ - start)).c_str(), nullptr);
  }

  std::string String() {
    if (pos_ >= s_.size() || s_[pos_] != '"') Fail("expected a string");
    ++pos_;
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) Fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) Fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) Fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (pos_ + 4 > s_.size()) Fail("short \\u escape");
          unsigned code = 0;
          for (int i = 0; i < 4; ++i) {
            char h = s_[pos_++];
            unsigned d = Digit(h)                 ? static_cast<unsigned>(h - '0')
                         : (h >= 'a' && h <= 'f') ? static_cast<unsigned>(h - 'a' + 10)
                         : (h >= 'A' && h <= 'F') ? static_cast<unsigned>(h - 'A' + 10)
                                                  : 16u;
            if (d == 16) Fail("bad hex digit in \\u escape");
            code = code * 16 + d;
          }
          out += code < 0x80 ? static_cast<char>(code) : '?';
          break;
        }
        default:
          Fail("unknown escape");
      }
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace braid::testing
