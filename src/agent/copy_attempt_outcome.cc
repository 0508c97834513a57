#include "agent/copy_attempt.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "agent/interrupt.h"
#include "agent/report/console.h"
#include "agent/report/digest_line.h"
#include "agent/report/progress_format.h"

namespace braid {
namespace {

/// After the first error, wait this long for the other side's, to report the cause
/// (a full disk) rather than its echo (a reset stream).
constexpr auto kErrorGrace = std::chrono::milliseconds(400);
/// How long a server that stopped reporting gets to answer Abort before it is
/// abandoned: a stopped process never will, and a live one answers at once.
constexpr auto kSilentCloseGrace = std::chrono::seconds(2);
/// After Ctrl-C: time for the ends to answer Abort with what they kept,
/// inside kInterruptBound.
constexpr auto kInterruptCloseGrace = std::chrono::milliseconds(1000);

/// Errors that are usually the consequence of a failure elsewhere.
bool IsEcho(ErrorCode code) {
  return code == ErrorCode::kPeerLost || code == ErrorCode::kInterrupted;
}

}  // namespace

void CopyAttempt::SayPlan(const SinkReady& ready, const TransferParams& params) const {
  std::string where = "the source will listen (-z)";
  if (!ready.addresses.empty()) {
    where = "sink listening on " + ready.addresses.front() + " port " + std::to_string(ready.port);
    if (ready.addresses.size() > 1) {
      where +=
          " (and " + CountOf(ready.addresses.size() - 1, "other address", "other addresses") + ")";
    }
  }
  // A hop of a chain says where its data comes from.
  const std::string from =
      options_.follow_from ? " from " + options_.follow_from->AsTyped() + " as it arrives" : "";
  PrintLine(stderr, "braid: %s%s, %s%s; %s; %s", Who().c_str(), CountOf(files_, "file").c_str(),
            total_ ? FormatBytes(*total_).c_str() : "size unknown", from.c_str(), where.c_str(),
            CountOf(params.streams, "stream").c_str());
  if (options_.tos >= 0) {
    PrintLine(stderr, "braid: qos: tos 0x%02x", static_cast<unsigned>(options_.tos));
  }
  if (!options_.congestion_control.empty()) {
    PrintLine(stderr, "braid: congestion control: %s", options_.congestion_control.c_str());
  }
}

void CopyAttempt::ReportResume(const SinkReady& ready) {
  std::size_t complete = 0;
  std::size_t partial = 0;
  for (const ResumeEntry& r : ready.resume) {
    // The codec keeps ids increasing, so checking each entry's end bounds them all.
    if (r.end() > sizes_.size()) {
      throw BraidError(ErrorCode::kProtocol,
                       "protocol error: " + EndName(*sink_, "sink") + " named file " +
                           std::to_string(r.end() - 1) + " in its resume list, past the " +
                           std::to_string(sizes_.size()) + " entries of the file list");
    }
    if (r.compared) {
      ++compared_count_;
      continue;
    }
    if (!r.complete) {
      ++partial;
      continue;
    }
    complete += r.count;
    for (std::uint64_t id = r.id; id < r.end(); ++id) complete_bytes_ += sizes_[id];
  }
  skipped_bytes_ += complete_bytes_ + ready.kept_bytes;
  failed_blocks_ = ready.failed_blocks;
  unchanged_count_ += complete;
  files_skipped_ = complete;
  if (watch_) watch_->OnPlan(total_, skipped_bytes_);
  if (partial > 0 || ready.failed_blocks > 0) {
    std::string what =
        FormatBytes(ready.kept_bytes) + " kept in " + CountOf(partial, "partial file");
    if (ready.failed_blocks > 0) {
      what += "; " + CountOf(ready.failed_blocks, "kept block") +
              " failed verification and will be sent again";
    }
    PrintLine(stderr, "braid: resuming %s: %s", DestinationName().c_str(), what.c_str());
  }
  // Not a resume: what the target already held, judged file by file.
  if (complete > 0 || compared_count_ > 0) {
    std::string what;
    if (complete > 0) what = "skipped " + CountOf(complete, "unchanged file");
    if (compared_count_ > 0) {
      if (!what.empty()) what += "; ";
      what += "comparing " + CountOf(compared_count_, "file") + " already there block by block";
    }
    PrintLine(stderr, "braid: %s: %s", DestinationName().c_str(), what.c_str());
  }
}

std::string CopyAttempt::Who() const {
  // Not DestinationName(): a retry may follow a failure before the sink started.
  return watch_ ? options_.destination.Display() + ": " : std::string();
}

std::string CopyAttempt::DestinationName() const {
  return sink_->is_remote() ? sink_->label() + ":" + options_.destination.path
                            : options_.destination.path;
}

int CopyAttempt::Fail(BraidError error) {
  if (progress_) progress_->Finish();
  // Whatever broke after Ctrl-C (an ssh client it also stopped), the user's
  // interrupt is the cause, and the user is waiting.
  const bool interrupted = PendingInterrupt() != 0;
  if (interrupted) error = InterruptError();
  auto deadline = std::chrono::steady_clock::now() + kErrorGrace;
  while (!interrupted && IsEcho(error.code()) && (source_ || sink_) &&
         std::chrono::steady_clock::now() < deadline) {
    std::optional<AgentEvent> ev = events_.PopFor(kTick);
    if (!ev || !ev->message) continue;
    if (auto* kept = std::get_if<Kept>(&*ev->message)) kept_ = *kept;
    if (auto* err = std::get_if<ErrorMessage>(&*ev->message); err && !IsEcho(err->code)) {
      error = BraidError(err->code, err->message);
    }
  }
  StopEnds(error, interrupted);
  error_ = error;
  if (watch_) watch_->OnAttemptEnd(DataSeconds());
  if (!interrupted && retry_.Decide(error, Resumable())) return SayRetry(error);
  // A sink stopped by the Abort above reports what it kept as it goes.
  while (std::optional<AgentEvent> ev = events_.PopFor(std::chrono::milliseconds(0))) {
    if (!ev->message) continue;
    if (auto* kept = std::get_if<Kept>(&*ev->message)) kept_ = *kept;
  }
  // One of many destinations: the star names the destination with its cause.
  if (!watch_) PrintLine(stderr, "braid: %s", error.what());
  ReportKept();
  const int exit_code = interrupted ? InterruptExitCode() : ExitCodeFor(error.code());
  if (report_) {
    report_->Finish(Elapsed(), bytes_);
    ReportEnd end;
    end.bytes = bytes_;
    end.files = done_count_;
    end.streams_used = options_.streams_auto ? max_active_ : streams_;
    end.bytes_skipped = skipped_bytes_;
    end.bytes_unchanged = same_bytes_;
    end.files_unchanged = unchanged_count_;
    end.blocks_resent = failed_blocks_;
    end.bytes_kept = kept_ ? kept_->bytes : 0;
    end.error = error.what();
    end.exit_code = exit_code;
    end.error_code = error.code();
    end.retries = retry_.notes();
    report_->PrintJson(end);
  }
  return exit_code;
}

bool CopyAttempt::Resumable() const { return !stream_source_ && !options_.destination.is_stdio(); }

int CopyAttempt::SayRetry(const BraidError& error) {
  retrying_ = true;
  if (report_) {
    report_->Finish(Elapsed(), bytes_);
    report_->OnRetry(retry_.notes().back());
  }
  PrintLine(stderr, "braid: %s", error.what());
  PrintLine(stderr, "braid: %sretry %d of %d in %.0f s (--retry), resuming what arrived",
            Who().c_str(), retry_.retries(), retry_.max_retries(), retry_.notes().back().delay_s);
  return ExitCodeFor(error.code());
}

void CopyAttempt::StopEnds(const BraidError& error, bool interrupted) {
  const std::string reason = error.what();
  const auto now = std::chrono::steady_clock::now();
  auto deadline = [&](Side side) {
    bool silent = error.code() == ErrorCode::kStalled && stall_ &&
                  stall_->Silent(static_cast<int>(side), now);
    if (interrupted) return now + kInterruptCloseGrace;
    return now + (silent ? kSilentCloseGrace : ServerEnd::kCloseGrace);
  };
  if (source_) source_->BeginClose(reason);
  if (sink_) sink_->BeginClose(reason);
  if (source_) source_->FinishClose(deadline(Side::kSource));
  if (sink_) sink_->FinishClose(deadline(Side::kSink));
}

void CopyAttempt::ReportKept() {
  // Stdout and a command (-N o) keep nothing to resume from.
  if (!sink_ || options_.destination.is_stdio() || (options_.pipes & kPipeOut) != 0) return;
  if (kept_ && kept_->partial_files > 0) {
    PrintLine(stderr, "braid: kept %s in %s at %s; run the same command again to resume",
              FormatBytes(kept_->bytes).c_str(),
              CountOf(kept_->partial_files, "partial file").c_str(), DestinationName().c_str());
  } else if (!kept_ && retry_.started() && !options_.remove_partial) {
    // The sink went away without a word once data was flowing: what it
    // journaled (each block as soon as it was written) is still there.
    PrintLine(stderr,
              "braid: partial files at %s keep what was journaled before the failure; run "
              "the same command again to resume",
              DestinationName().c_str());
  }
}

void CopyAttempt::OnFileDone(FileDone d) {
  ++done_count_;
  if (report_) {
    report_->OnFileDone({DonePath(d.final_path), d.size, d.unchanged, d.hash,
                         d.hash == HashAlgorithm::kNone ? "" : ToHex(d.sink_digest)});
  }
  if (d.unchanged) ++unchanged_count_;
  all_hashed_ = all_hashed_ && d.hash == options_.hash;
  if (d.hash == HashAlgorithm::kNone) return;
  digests_.Add(d.hash, d.sink_digest.view(), d.final_path);
}

std::string CopyAttempt::DonePath(const std::string& final_path) const {
  return sink_->is_remote() ? sink_->label() + ":" + final_path : final_path;
}

void CopyAttempt::Report() {
  // --json owns stdout: one document and nothing else.
  std::FILE* out =
      options_.destination.is_stdio() || options_.json || options_.json_stream ? stderr : stdout;
  // The lines md5sum, sha256sum and xxh128sum print, so `sha256sum -c` checks
  // them where the copies are: the name as the sink has it, no host before it.
  // Of many destinations, the first to finish prints them: they are the same digests.
  if (!digests_.empty() && (!watch_ || watch_->ClaimDigestLines())) {
    digests_.ForEach(
        [&](HashAlgorithm, std::span<const std::uint8_t> digest, std::string_view path) {
          WriteLine(out, DigestLine(ToHex(digest.data(), digest.size()), path));
        });
  }
  std::fflush(out);
  if (options_.verbose > 0 || (progress_ && progress_->active())) {
    // The data phase, as -P's last average and --json's seconds count it.
    const double secs = data_seconds_;
    std::string wire;
    if (options_.compress_level > 0 || compared_count_ > 0) {
      wire = ", " + FormatBytes(wire_bytes_) + " on the wire";
    }
    if (complete_bytes_ + same_bytes_ > 0) {
      wire += ", " + FormatBytes(complete_bytes_ + same_bytes_) + " already there";
    }
    if (unchanged_count_ > 0) wire += ", " + CountOf(unchanged_count_, "file") + " unchanged";
    std::string resumed;
    if (skipped_bytes_ > complete_bytes_) {
      resumed = ", " + FormatBytes(skipped_bytes_ - complete_bytes_) + " skipped by resume";
    }
    if (failed_blocks_ > 0) {
      resumed +=
          ", " + CountOf(failed_blocks_, "kept block") + " re-sent after failed verification";
    }
    std::string verified;
    if (options_.hash != HashAlgorithm::kNone) {
      verified = ", " + std::string(HashDisplayName(options_.hash)) + " verified";
    }
    if (retry_.retries() > 0) {
      verified +=
          ", after " + CountOf(static_cast<std::uint64_t>(retry_.retries()), "retry", "retries");
    }
    std::string over = CountOf(streams_, "stream");
    if (options_.streams_auto) {
      over = "up to " + std::to_string(max_active_) + " of " + over + " (-s auto)";
    }
    if (options_.cipher == Cipher::kNone) over += ", unencrypted";  // else sealed: the default
    PrintLine(stderr, "braid: %scopied %s in %s in %.2f s (%s) over %s%s%s%s", Who().c_str(),
              FormatBytes(bytes_).c_str(), CountOf(files_, "file").c_str(), secs,
              FormatRate(secs > 0 ? static_cast<double>(bytes_) / secs : 0).c_str(), over.c_str(),
              wire.c_str(), resumed.c_str(), verified.c_str());
  }
  if (not_listed_ > 0) {
    // Partial success, as rsync's exit 23: what could be read is in place.
    PrintLine(stderr, "braid: %s not copied (named above); everything else is in place",
              CountOf(not_listed_, "source entry", "source entries").c_str());
  }
  if (report_) {
    ReportEnd end;
    end.bytes = bytes_;
    end.files = files_;
    end.streams_used = options_.streams_auto ? max_active_ : streams_;
    end.hash_verified = options_.hash != HashAlgorithm::kNone && all_hashed_;
    digests_.ForEach(
        [&](HashAlgorithm hash, std::span<const std::uint8_t> digest, std::string_view path) {
          end.digests.push_back(
              {DonePath(std::string(path)), hash, ToHex(digest.data(), digest.size())});
        });
    end.bytes_skipped = skipped_bytes_;
    end.bytes_unchanged = same_bytes_;
    end.files_unchanged = unchanged_count_;
    end.blocks_resent = failed_blocks_;
    if (not_listed_ > 0) {
      end.error_code = ErrorCode::kPartial;
      end.exit_code = ExitCodeFor(ErrorCode::kPartial);
    }
    end.retries = retry_.notes();
    report_->PrintJson(end);
  }
}

}  // namespace braid
