#include "cli/list_file.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "braid/error.h"
#include "cli/quote.h"

namespace braid {

std::string ReadListFile(const std::string& path, std::string_view option, std::size_t max_bytes) {
  const std::string name = path == "-" ? "standard input" : QuoteForMessage(path, 256);
  std::ifstream file;
  if (path != "-") file.open(path, std::ios::binary);
  std::istream& in = path == "-" ? std::cin : file;
  if (!in) {
    throw BraidError(ErrorCode::kUsage,
                     std::string(option) + ": cannot read " + name + ": " + std::strerror(errno));
  }
  // Read a chunk at a time: a list of a few lines costs a few bytes, not the
  // bound (256 MiB for -I), and a list past the bound is refused as it grows.
  std::string text;
  std::array<char, 64 * 1024> chunk{};
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      throw BraidError(ErrorCode::kUsage, std::string(option) + ": " + name + " is larger than " +
                                              std::to_string(max_bytes >> 20) + " MiB");
    }
  }
  if (in.bad()) throw BraidError(ErrorCode::kUsage, std::string(option) + ": cannot read " + name);
  return text;
}

std::vector<ListedLine> ParseListLines(std::string_view text, bool nul_separated) {
  std::vector<ListedLine> out;
  const char end_of_name = nul_separated ? '\0' : '\n';
  for (std::size_t number = 1; !text.empty(); ++number) {
    const std::size_t end = text.find(end_of_name);
    std::string_view name = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!nul_separated) {
      if (!name.empty() && name.back() == '\r') name.remove_suffix(1);
      if (!name.empty() && (name.front() == '#' || name.front() == ';')) continue;
    }
    if (!name.empty()) out.push_back({number, std::string(name)});
  }
  return out;
}

std::vector<std::string> ParseSourceList(std::string_view text, bool nul_separated,
                                         const std::string& file_name) {
  std::vector<std::string> out;
  for (ListedLine& line : ParseListLines(text, nul_separated)) {
    if (line.text == "-") {
      throw BraidError(ErrorCode::kUsage, file_name + ":" + std::to_string(line.number) +
                                              ": '-' (stdin) cannot be a listed source");
    }
    out.push_back(std::move(line.text));
  }
  return out;
}

}  // namespace braid
