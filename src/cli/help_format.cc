#include "cli/help_format.h"

#include <CLI/CLI.hpp>

namespace braid {
namespace {

/// Where descriptions start: room for "  -B,--blocksize SIZE" and the like.
constexpr std::size_t kOptionColumn = 26;

/// "-s,--streams N": the names as typed, then what follows them.
std::string OptionName(const CLI::Option& opt) {
  std::string name;
  for (const std::string& s : opt.get_snames()) name += (name.empty() ? "-" : ",-") + s;
  for (const std::string& l : opt.get_lnames()) name += (name.empty() ? "--" : ",--") + l;
  const std::string& text = opt.get_option_text();
  if (!text.empty()) {
    name += text.front() == '[' ? text : " " + text;  // "--compress[=N]"
  } else if (opt.get_type_size() != 0 && !opt.get_type_name().empty()) {
    name += " " + opt.get_type_name();
  }
  return name;
}

class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override;
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
};

}  // namespace

std::string WrapText(std::string_view text, std::size_t first_used, std::size_t indent,
                     std::size_t width) {
  std::string out;
  std::size_t used = first_used;
  bool line_empty = true;
  std::size_t at = 0;
  while (at < text.size()) {
    if (text[at] == ' ') {
      ++at;
      continue;
    }
    std::size_t end = text.find(' ', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(at, end - at);
    if (!line_empty && used + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      used = indent;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++used;
    }
    out.append(word);
    used += word.size();
    line_empty = false;
    at = end;
  }
  return out + "\n";
}

std::string FormatOptionHelp(std::string_view name, std::string_view description,
                             std::size_t column, std::size_t width) {
  std::string out = "  ";
  out.append(name);
  if (description.empty()) return out + "\n";
  if (out.size() + 1 > column) {
    out += "\n";
    out += std::string(column, ' ');
  } else {
    out += std::string(column - out.size(), ' ');
  }
  return out + WrapText(description, column, column, width);
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool /*is_positional*/) const {
  return FormatOptionHelp(OptionName(*opt), opt->get_description(), kOptionColumn, kHelpWidth);
}

std::string HelpFormatter::make_help(const CLI::App* app, std::string /*name*/,
                                     CLI::AppFormatMode /*mode*/) const {
  std::string out = WrapText(app->get_description(), 0, 0, kHelpWidth);
  out += "Usage: braid [OPTIONS] SRC... DST\n";
  for (const std::string& group : HelpGroups()) {
    std::vector<const CLI::Option*> opts = app->get_options([&group](const CLI::Option* opt) {
      return opt->get_group() == group && opt->nonpositional();
    });
    if (opts.empty()) continue;
    out += "\n" + group + ":\n";
    for (const CLI::Option* opt : opts) out += make_option(opt, false);
  }
  return out + "\n" + app->get_footer() + "\n";
}

std::shared_ptr<CLI::FormatterBase> MakeHelpFormatter() {
  return std::make_shared<HelpFormatter>();
}

}  // namespace braid
