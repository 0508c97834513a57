#pragma once
/// The defaults file (-C FILE, else ~/.config/braid/config): `long-option = value`
/// or a bare `long-option` for a flag per line, `#` comments. Each setting becomes
/// a "--key=value" argument placed before the command line's, so every option
/// braid has (or will have) works there, and the command line wins.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace braid {

struct ConfigEntry {
  std::string key;                   ///< a long option name, without dashes
  std::optional<std::string> value;  ///< nullopt for a bare flag
  int line = 0;                      ///< 1-based, for messages
};

/// Parses a config file's text. Blank lines and lines whose first non-blank is
/// '#' are skipped; " #" after a value starts a comment; a value may be quoted
/// ("..." or '...') to keep spaces or '#'. Throws BraidError(kUsage)
/// "FILE:LINE: why" for a line that is not a setting.
std::vector<ConfigEntry> ParseConfigText(std::string_view text, const std::string& file_name);

/// The argument CLI11 parses for `entry`: "--key=value" or "--key". One token
/// per setting, so a value can never swallow the argument after it.
std::string ConfigArgument(const ConfigEntry& entry);

/// `home`/.config/braid/config, or "" when there is no home.
std::string DefaultConfigPath(const std::string& home);
/// $HOME, else the passwd entry's home directory, else "".
std::string HomeDirectory();

/// The file's text; nullopt when it does not exist and `must_exist` is false.
/// Throws BraidError(kUsage) when it cannot be read, is missing but required,
/// or is larger than a config file has any reason to be (1 MiB).
std::optional<std::string> ReadConfigFile(const std::string& path, bool must_exist);

}  // namespace braid
