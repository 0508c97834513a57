#pragma once
/// The sink's side of the pass/resend protocol (docs/protocol.md), as a pure
/// state machine: no IO, no threads, no lock of its own (the sink session
/// calls it with its mutex held).
///
/// The source ends each pass with a pass end on every stream it still has,
/// saying how many streams it connected and how many it still has. Once every
/// live stream's pass end is in (and every stream the source announced is
/// either in or lost), or as many pass ends as the source still has streams,
/// the sink decides: done (it closes the streams), or send again what is
/// missing, which the streams lost in flight. A lost stream counts as in, so
/// the others never wait for it. A stream the sink still counts when the
/// source no longer has it (its connection timed out at the source, which
/// tells this end nothing) is an orphan: the decision counts it lost, and the
/// sink closes it.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/error.h"
#include "transport/data_frame.h"

namespace braid {

/// What the files say when a pass ends: the decision's input.
struct PassReport {
  std::vector<ResendRange> missing;  ///< what to ask for again
  /// A file of unknown size (a stream source) with data missing, as shown to
  /// the user: it cannot be read again.
  std::optional<std::string> unrepairable;
  std::uint64_t bytes_received = 0;  ///< unique bytes in the files so far
};

class PassCoordinator {
 public:
  /// Repair passes that deliver nothing new before the sink gives up on the source.
  static constexpr int kMaxIdlePasses = 3;

  /// `ordered`: the target writes blocks in order as they arrive, so it
  /// cannot take data again out of order (a lost stream fails the copy) and,
  /// with no stream lost, nothing is missing.
  explicit PassCoordinator(bool ordered = false) : ordered_(ordered) {}

  /// A stream connected; returns its number for PassEnd and Lose.
  std::size_t Connect();
  /// Stream `stream` sent its pass end, announcing `announced` streams in all,
  /// of which the source still has `still` (0: all of them). Returns the pass
  /// it now waits on (Decided). Throws BraidError(kProtocol) for a stream
  /// that is not sending (unknown, lost, already at its pass end, or the
  /// transfer done), for a count that is out of range or disagrees with an
  /// earlier one, and for `still` over `announced`.
  std::uint64_t PassEnd(std::size_t stream, std::uint32_t announced, std::uint32_t still = 0);
  /// Stream `stream` died. False (and nothing changes) if it is unknown or
  /// was lost already. A stream at its pass end no longer counts as in.
  bool Lose(std::size_t stream);

  /// Every live stream is at its pass end and every announced one is in or
  /// lost: call Decide. False while no stream is live.
  bool ReadyToDecide() const;
  /// Whether Decide needs `missing` (a target written in order has no gaps).
  bool NeedsMissing() const { return !ordered_; }
  /// Ends the pass: the streams at their pass end are released (Decided) to
  /// close (done()) or to ask for resend(). Returns the error to fail the
  /// transfer with instead, when what is missing cannot or will not come.
  /// Call only when ReadyToDecide().
  std::optional<BraidError> Decide(const PassReport& report);

  /// The decision on pass `pass` (from PassEnd) has been taken.
  bool Decided(std::uint64_t pass) const { return pass_ != pass; }
  /// The last decision was "done": nothing more will come, and a stream that
  /// dies now loses nothing.
  bool done() const { return done_; }
  /// The last decision's request; empty when done.
  const std::vector<ResendRange>& resend() const { return resend_; }
  /// Decisions taken; the number a resend request carries.
  std::uint64_t pass() const { return pass_; }
  std::size_t connected() const { return streams_.size(); }
  std::size_t lost() const { return lost_; }
  std::size_t live() const { return streams_.size() - lost_; }
  /// The streams the last decision found orphaned (sending at the sink, gone
  /// at the source), now lost; the caller closes them. Empties the list.
  std::vector<std::size_t> TakeOrphans() { return std::move(orphans_); }

 private:
  enum class Stream { kSending, kAtPassEnd, kLost };

  bool ordered_;
  std::vector<Stream> streams_;
  std::size_t lost_ = 0;
  std::size_t at_pass_end_ = 0;
  std::uint32_t announced_ = 0;  ///< 0 until the first pass end
  /// The least number of streams the source still has, of this pass's pass
  /// ends; 0 before the pass's first.
  std::uint32_t still_ = 0;
  std::vector<std::size_t> orphans_;
  std::uint64_t pass_ = 0;
  bool done_ = false;
  std::vector<ResendRange> resend_;
  std::uint64_t bytes_at_last_pass_ = 0;
  int idle_passes_ = 0;
};

}  // namespace braid
