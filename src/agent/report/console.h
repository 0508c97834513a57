#pragma once
/// Every line the agent prints goes through here, so that no text from a
/// peer reaches the terminal raw (agent/report/visible_text.h says why). The
/// agent's own line breaks and the progress bar's carriage return are
/// written here, after the text has been made visible.

#include <cstdio>
#include <string_view>

namespace braid {

/// -l FILE: from now on every line written to stderr through here is also
/// appended to `log` after its UTC time, flushed at once so that a braid that
/// is killed leaves its last lines. Call before any thread prints.
void AlsoLogStderrTo(std::FILE* log);

/// `text` made visible, then a newline.
void WriteLine(std::FILE* out, std::string_view text);

/// printf into a line, then WriteLine: the format's own text is escaped too,
/// so a format must not carry line breaks of its own.
void PrintLine(std::FILE* out, const char* format, ...) __attribute__((format(printf, 2, 3)));

/// The progress bar: a carriage return, then `text` made visible (no newline).
void WriteBar(std::FILE* out, std::string_view text);

/// What a peer wrote to its stderr, as it arrived: each of its lines as
/// `LABEL: line`, made visible, so a line always says which host it is from.
void WritePeerText(std::FILE* out, std::string_view label, std::string_view text);

}  // namespace braid
