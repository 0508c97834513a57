#pragma once
/// braid --help: options grouped by what they are about, every line within
/// 80 columns, and each option shown as it is typed (`-s,--streams N`),
/// never as CLI11 stores it.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class FormatterBase;
}  // namespace CLI

namespace braid {

/// The help's width: a terminal's default, and what man and GNU tools assume.
constexpr std::size_t kHelpWidth = 80;

/// The sections of --help, in order; every visible option is in one.
inline const std::vector<std::string>& HelpGroups() {
  static const std::vector<std::string> groups = {"Copying", "Streams and network", "Resume",
                                                  "Output", "ssh"};
  return groups;
}

/// `text` as lines of at most `width` columns, broken at spaces: the first
/// line starts `first_used` columns in (what is already on it), later lines
/// are indented by `indent`. A word longer than a line is put on one of its own.
/// Each line ends with a newline.
std::string WrapText(std::string_view text, std::size_t first_used, std::size_t indent,
                     std::size_t width);

/// One option's entry: `name` in the left column, `description` wrapped
/// beside it at `column`, or from the next line if the name reaches it.
std::string FormatOptionHelp(std::string_view name, std::string_view description,
                             std::size_t column, std::size_t width);

/// The formatter braid's CLI::App uses: description, usage, HelpGroups() in
/// order (options of any other group are not shown), then the footer.
std::shared_ptr<CLI::FormatterBase> MakeHelpFormatter();

}  // namespace braid
