#include "proto/control_message.h"

#include <cctype>
#include <string>
#include <string_view>

#include "braid/wire.h"

#ifndef BRAID_VERSION
#error "BRAID_VERSION must be defined by the build (see src/proto/CMakeLists.txt)"
#endif

namespace braid {
namespace {

void PutBool(WireWriter& w, bool b) { w.U8(b ? 1 : 0); }
bool GetBool(WireReader& r) {
  std::uint8_t v = r.U8();
  if (v > 1) WireReader::Fail("boolean field is neither 0 nor 1");
  return v == 1;
}

template <std::size_t N>
void GetArray(WireReader& r, std::array<std::uint8_t, N>& out) {
  auto b = r.Bytes(N);
  std::copy(b.begin(), b.end(), out.begin());
}

/// A hash algorithm byte; a value no version defines is a protocol error.
HashAlgorithm GetHashAlgorithm(WireReader& r) {
  std::uint8_t v = r.U8();
  std::optional<HashAlgorithm> a = HashAlgorithmFromWire(v);
  if (!a) WireReader::Fail("unknown hash algorithm " + std::to_string(v));
  return *a;
}

/// A digest: u8 length and the bytes. The length must be the algorithm's
/// (0 without one), so a peer cannot make either end read more or less.
void PutDigest(WireWriter& w, const DigestValue& d) {
  w.U8(d.size);
  w.Bytes(d.view());
}
DigestValue GetDigest(WireReader& r, HashAlgorithm a) {
  std::uint8_t n = r.U8();
  if (n != DigestSize(a)) {
    WireReader::Fail("a " + std::string(HashName(a)) + " digest of " + std::to_string(n) +
                     " bytes");
  }
  return MakeDigestValue(r.Bytes(n));
}

/// `text` as it goes on the wire: longer than `limit` (the decoder's), it is
/// cut to `limit` bytes ending in "...", so the reader still gets the message
/// and sees it was cut. The cut never splits a UTF-8 character: it moves back
/// over continuation bytes (10xxxxxx), at most 3, the most a character has,
/// so text that is not UTF-8 (a path's raw bytes) loses no more than that.
void PutText(WireWriter& w, std::string_view text, std::size_t limit) {
  constexpr std::string_view kMark = "...";
  static_assert(kMaxLabelLength > kMark.size() && kMaxTextLength > kMark.size());
  if (text.size() <= limit) {
    w.String(text);
    return;
  }
  std::size_t keep = limit - kMark.size();
  for (int i = 0; i < 3 && keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80;
       ++i) {
    --keep;
  }
  std::string cut(text.substr(0, keep));
  cut += kMark;
  w.String(cut);
}

void PutStrings(WireWriter& w, const std::vector<std::string>& v) {
  w.U32(static_cast<std::uint32_t>(v.size()));
  for (const auto& s : v) w.String(s);
}
std::vector<std::string> GetStrings(WireReader& r, std::size_t max_count, std::size_t max_len) {
  std::uint32_t n = r.U32();
  if (n > max_count) WireReader::Fail("too many strings in a list");
  std::vector<std::string> v;
  v.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) v.push_back(r.String(max_len));
  return v;
}

void PutParams(WireWriter& w, const TransferParams& p) {
  w.U16(p.streams);
  w.U32(p.block_size);
  w.U64(p.window);
  w.U8(static_cast<std::uint8_t>(p.hash));
  w.Bytes(p.secret);
  w.Bytes(p.session);
  w.U64(p.rate);
  w.U16(static_cast<std::uint16_t>(p.tos));
  w.String(p.congestion_control);
  w.U8(static_cast<std::uint8_t>(p.compress_level));
  PutBool(w, p.ordered);
  PutBool(w, p.auto_streams);
  w.U16(p.min_streams);
  PutBool(w, p.polite);
  PutBool(w, p.reverse);
  w.U16(p.port_min);
  w.U16(p.port_max);
  w.U8(p.family);
  w.U8(static_cast<std::uint8_t>(p.cipher));
  w.U8(p.direct);
  PutBool(w, p.sparse_zeros);
}
TransferParams GetParams(WireReader& r) {
  TransferParams p;
  p.streams = r.U16();
  p.block_size = r.U32();
  p.window = r.U64();
  p.hash = GetHashAlgorithm(r);
  GetArray(r, p.secret);
  GetArray(r, p.session);
  if (p.streams < 1 || p.streams > kMaxStreams) WireReader::Fail("stream count out of range");
  if (p.block_size < 4096 || p.block_size > (64u << 20)) {
    WireReader::Fail("block size out of range");
  }
  p.rate = r.U64();
  p.tos = static_cast<std::int16_t>(r.U16());
  if (p.tos < -1 || p.tos > 255) WireReader::Fail("TOS value out of range");
  p.congestion_control = r.String(16);  // TCP_CA_NAME_MAX
  for (char c : p.congestion_control) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
      WireReader::Fail("congestion control name has odd characters");
    }
  }
  p.compress_level = static_cast<std::int8_t>(r.U8());
  if (p.compress_level < -1 || p.compress_level == 0 || p.compress_level > 9) {
    WireReader::Fail("compression level out of range");
  }
  p.ordered = GetBool(r);
  p.auto_streams = GetBool(r);
  p.min_streams = r.U16();
  if (p.min_streams < 1 || p.min_streams > p.streams)
    WireReader::Fail("minimum stream count out of range");
  p.polite = GetBool(r);
  p.reverse = GetBool(r);
  p.port_min = r.U16();
  p.port_max = r.U16();
  if ((p.port_min == 0) != (p.port_max == 0) || p.port_min > p.port_max) {
    WireReader::Fail("port range out of order");
  }
  p.family = r.U8();
  if (p.family != 0 && p.family != 4 && p.family != 6) WireReader::Fail("unknown address family");
  std::optional<Cipher> cipher = CipherFromWire(r.U8());
  if (!cipher) WireReader::Fail("unknown cipher");
  p.cipher = *cipher;
  p.direct = r.U8();
  if ((p.direct & ~(kDirectReads | kDirectWrites)) != 0) WireReader::Fail("unknown -u bits");
  p.sparse_zeros = GetBool(r);
  return p;
}

/// A file entry's flags byte: bit 0, the file has holes (FileEntry::sparse).
constexpr std::uint8_t kEntrySparse = 0x01;

void PutEntry(WireWriter& w, const FileEntry& e) {
  w.U32(e.id);
  w.U16(e.top);
  w.U8(static_cast<std::uint8_t>(e.kind));
  w.U8(e.sparse ? kEntrySparse : 0);
  w.String(e.path);
  w.U64(e.size);
  w.U32(e.mode);
  w.U64(static_cast<std::uint64_t>(e.mtime_sec));
  w.U32(e.mtime_nsec);
  w.U32(e.uid);
  w.U32(e.gid);
  w.String(e.link_target);
  w.U64(e.fingerprint);
}
FileEntry GetEntry(WireReader& r) {
  FileEntry e;
  e.id = r.U32();
  e.top = r.U16();
  std::uint8_t kind = r.U8();
  if (kind < 1 || kind > 5) WireReader::Fail("unknown file kind");
  e.kind = static_cast<FileKind>(kind);
  std::uint8_t flags = r.U8();
  if ((flags & ~kEntrySparse) != 0) WireReader::Fail("unknown file entry flags");
  e.sparse = (flags & kEntrySparse) != 0;
  if (e.sparse && e.kind != FileKind::kRegular)
    WireReader::Fail("a sparse entry that is not a file");
  e.path = r.String(kMaxPathLength);
  if (!IsSafeRelativePath(e.path)) WireReader::Fail("unsafe file name in file list");
  e.size = r.U64();
  e.mode = r.U32();
  if (e.mode > 07777) WireReader::Fail("file mode out of range");
  e.mtime_sec = static_cast<std::int64_t>(r.U64());
  e.mtime_nsec = r.U32();
  if (e.mtime_nsec >= 1000000000u) WireReader::Fail("file time out of range");
  e.uid = r.U32();
  e.gid = r.U32();
  e.link_target = r.String(kMaxPathLength);
  if (e.link_target.find('\0') != std::string::npos) WireReader::Fail("NUL in link target");
  if (e.kind != FileKind::kSymlink && e.kind != FileKind::kHardLink && !e.link_target.empty()) {
    WireReader::Fail("link target on a non-link");
  }
  // A hard link names a file of the same list: a path as safe as the entry's own.
  if (e.kind == FileKind::kHardLink && (!IsSafeRelativePath(e.link_target) || e.size != 0)) {
    WireReader::Fail("hard link to an unsafe name, or with a size");
  }
  e.fingerprint = r.U64();
  if (e.kind != FileKind::kStream && e.size == kUnknownSize) {
    WireReader::Fail("unknown size on a seekable file");
  }
  return e;
}

/// A resume list is a sequence of items: 0 = one partial file (`u32 id`,
/// `u32 k` + k kept ranges), 1 = a run of complete files (`u32 first`, `u32 count`),
/// 2 = a file compared piece by piece (`u32 id`, `u32 piece`, `u32 k` + k hashes).
/// Adjacent complete entries are merged into one run.
void PutResume(WireWriter& w, const std::vector<ResumeEntry>& resume) {
  // A re-run's list is megabytes. So the items are written in place, their
  // count (known only at the end) over a placeholder, into room reserved for
  // the most they and the rest of the message (64 bytes) can take: building
  // them apart and copying them, or growing the buffer by doubling, held the
  // list twice. Room left unused is never touched, so never resident.
  std::size_t most = 4 + 64;
  for (const ResumeEntry& e : resume) {
    most += 13 + 16 * (e.kept().size() + e.block_hashes().size());
  }
  w.Reserve(w.size() + most);
  const std::size_t count_at = w.size();
  w.U32(0);
  std::uint32_t n = 0;
  for (std::size_t i = 0; i < resume.size(); ++n) {
    const ResumeEntry& e = resume[i];
    if (e.compared) {
      w.U8(2);
      w.U32(e.id);
      w.U32(e.piece);
      w.U32(static_cast<std::uint32_t>(e.block_hashes().size()));
      for (const BlockHash& h : e.block_hashes()) w.Bytes(h);
      ++i;
      continue;
    }
    if (!e.complete) {
      w.U8(0);
      w.U32(e.id);
      w.U32(static_cast<std::uint32_t>(e.kept().size()));
      for (const auto& [begin, end] : e.kept()) {
        w.U64(begin);
        w.U64(end);
      }
      ++i;
      continue;
    }
    std::uint64_t count = e.count;
    std::size_t j = i + 1;
    for (; j < resume.size() && resume[j].complete && resume[j].id == e.id + count; ++j) {
      count += resume[j].count;
    }
    w.U8(1);
    w.U32(e.id);
    w.U32(static_cast<std::uint32_t>(count));
    i = j;
  }
  w.U32At(count_at, n);
}

/// One partial-file item (tag 0) after its tag; `ranges_total` counts kept
/// ranges over the whole list.
ResumeEntry GetPartial(WireReader& r, std::size_t& ranges_total) {
  const std::uint32_t id = r.U32();
  std::uint32_t ranges = r.U32();
  ranges_total += ranges;
  if (ranges_total > kMaxKeptRanges) WireReader::Fail("too many kept ranges");
  std::vector<ByteRange> kept;
  kept.reserve(std::min<std::size_t>(ranges, r.remaining() / 16));
  for (std::uint32_t k = 0; k < ranges; ++k) {
    std::uint64_t begin = r.U64();
    std::uint64_t end = r.U64();
    if (begin >= end) WireReader::Fail("empty kept range");
    if (!kept.empty() && begin <= kept.back().second) {
      WireReader::Fail("kept ranges out of order");
    }
    kept.emplace_back(begin, end);
  }
  return ResumeEntry::Partial(id, std::move(kept));
}

/// One compared-file item (tag 2) after its tag; `hashes_total` counts block
/// hashes over the whole list.
ResumeEntry GetCompared(WireReader& r, std::size_t& hashes_total) {
  const std::uint32_t id = r.U32();
  const std::uint32_t piece = r.U32();
  if (piece < kMinComparePiece || piece > kMaxComparePiece) {
    WireReader::Fail("compared piece size out of range");
  }
  std::uint32_t k = r.U32();
  hashes_total += k;
  if (hashes_total > kMaxBlockHashes) WireReader::Fail("too many block hashes");
  std::vector<BlockHash> hashes;
  hashes.reserve(std::min<std::size_t>(k, r.remaining() / 16));
  for (std::uint32_t i = 0; i < k; ++i) GetArray(r, hashes.emplace_back());
  return ResumeEntry::Compared(id, piece, std::move(hashes));
}

/// Ids strictly increasing, ranges non-empty, sorted and disjoint, within the
/// limits: a receiver can use the list as it is. A run stays one entry.
std::vector<ResumeEntry> GetResume(WireReader& r) {
  std::uint32_t n = r.U32();
  if (n > kMaxResumeFiles) WireReader::Fail("too many resumed files");
  std::vector<ResumeEntry> out;
  // Sized once (an item takes at least 9 bytes): grown by doubling, a list
  // of a million compared files held one and a half times itself.
  out.reserve(std::min<std::size_t>(n, r.remaining() / 9));
  std::size_t ranges_total = 0;
  std::size_t hashes_total = 0;
  std::uint64_t files = 0;  // ids named so far, at most kMaxResumeFiles
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint8_t kind = r.U8();
    ResumeEntry e;
    if (kind == 1) {
      e.id = r.U32();
      e.complete = true;
      e.count = r.U32();
      if (e.count == 0 || e.count > kMaxResumeFiles - files || e.end() - 1 > UINT32_MAX) {
        WireReader::Fail("run of complete files out of range");
      }
    } else if (kind == 0 || kind == 2) {
      e = kind == 0 ? GetPartial(r, ranges_total) : GetCompared(r, hashes_total);
      if (files >= kMaxResumeFiles) WireReader::Fail("too many resumed files");
    } else {
      WireReader::Fail("unknown resume item");
    }
    if (!out.empty() && e.id < out.back().end()) WireReader::Fail("resumed files out of order");
    files += e.complete ? e.count : 1;
    out.push_back(std::move(e));
  }
  return out;
}

void PutStreamSample(WireWriter& w, const StreamSample& s) {
  w.U16(s.index);
  w.U64(s.bytes);
  w.U32(s.rtt_us);
  w.U32(s.min_rtt_us);
  w.U32(s.cwnd);
  w.U32(s.retrans);
  w.U64(s.delivery_rate);
  w.U64(s.acked);
}
StreamSample GetStreamSample(WireReader& r) {
  StreamSample s;
  s.index = r.U16();
  if (s.index >= kMaxStreamSamples) WireReader::Fail("stream index out of range");
  s.bytes = r.U64();
  s.rtt_us = r.U32();
  s.min_rtt_us = r.U32();
  s.cwnd = r.U32();
  s.retrans = r.U32();
  s.delivery_rate = r.U64();
  s.acked = r.U64();
  return s;
}

/// Hello's and HelloReply's braid_version, after their protocol `version`.
/// Of another protocol version only that much is ours to read: the rest is
/// skipped (false), and an older layout without it leaves it empty.
bool ReadBraidVersion(WireReader& r, std::uint16_t version, std::string& braid_version) {
  braid_version.clear();
  if (version == kProtocolVersion) {
    braid_version = r.String(kMaxBraidVersionLength);
    return true;
  }
  if (version >= kFirstNamingVersion) braid_version = r.String(kMaxBraidVersionLength);
  r.Bytes(r.remaining());
  return false;
}

struct Encoder {
  WireWriter& w;
  void operator()(const Hello& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kHello));
    w.U32(m.magic);
    w.U16(m.version);
    PutText(w, m.braid_version, kMaxBraidVersionLength);
    PutText(w, m.label, kMaxLabelLength);
  }
  void operator()(const HelloReply& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kHelloReply));
    w.U16(m.version);
    PutText(w, m.braid_version, kMaxBraidVersionLength);
    PutText(w, m.host_label, kMaxLabelLength);
    w.String(m.ssh_address);
  }
  void operator()(const SourceOpen& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kSourceOpen));
    PutStrings(w, m.paths);
    PutBool(w, m.recursive);
    PutBool(w, m.device_size.has_value());
    w.U64(m.device_size.value_or(0));
    PutBool(w, m.follow_symlinks);
    PutBool(w, m.remote_paths);
    PutBool(w, m.hard_links);
    w.U32(m.growing_ms);
    PutBool(w, m.command);
    w.U16(static_cast<std::uint16_t>(m.filters.size()));
    for (const PathFilterRule& rule : m.filters) {
      PutBool(w, rule.include);
      w.String(rule.pattern);
    }
    w.String(m.follow);
  }
  void operator()(const FileList& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kFileList));
    PutBool(w, m.last);
    w.U32(static_cast<std::uint32_t>(m.entries.size()));
    for (const auto& e : m.entries) PutEntry(w, e);
    w.U32(m.not_listed);
  }
  void operator()(const SinkOpen& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kSinkOpen));
    w.String(m.target);
    w.U16(m.top_count);
    PutBool(w, m.force);
    PutBool(w, m.preserve);
    PutBool(w, m.recursive);
    w.String(m.listen_address);
    PutParams(w, m.params);
    w.U8(static_cast<std::uint8_t>(m.resume));
    PutBool(w, m.verify_kept);
    PutBool(w, m.keep_partial);
    w.U8(static_cast<std::uint8_t>(m.fsync));
    w.U8(static_cast<std::uint8_t>(m.existing));
    PutBool(w, m.remote_paths);
    PutBool(w, m.command);
    w.String(m.forward);
  }
  void operator()(const SinkReady& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kSinkReady));
    PutStrings(w, m.addresses);
    w.U16(m.port);
    PutResume(w, m.resume);
    w.U64(m.kept_bytes);
    w.U32(m.failed_blocks);
  }
  void operator()(const SourceStart& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kSourceStart));
    PutStrings(w, m.addresses);
    w.U16(m.port);
    PutParams(w, m.params);
    PutResume(w, m.resume);
    w.String(m.listen_address);
  }
  void operator()(const SourceReady& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kSourceReady));
    PutStrings(w, m.addresses);
    w.U16(m.port);
  }
  void operator()(const SinkConnect& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kSinkConnect));
    PutStrings(w, m.addresses);
    w.U16(m.port);
  }
  void operator()(const Kept& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kKept));
    w.U64(m.bytes);
    w.U32(m.partial_files);
  }
  void operator()(const Progress& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kProgress));
    w.U64(m.bytes);
    w.U64(m.files_done);
    w.U16(m.streams);
    w.U16(static_cast<std::uint16_t>(m.stream_samples.size()));
    for (const auto& s : m.stream_samples) PutStreamSample(w, s);
    w.U16(m.active_streams);
    w.String(m.controller_note);
    PutText(w, m.current_path, kMaxPathLength);
  }
  void operator()(const FileDone& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kFileDone));
    w.U32(m.id);
    w.U64(m.size);
    w.U8(static_cast<std::uint8_t>(m.hash));
    PutDigest(w, m.source_digest);
    PutDigest(w, m.sink_digest);
    w.String(m.final_path);
    PutBool(w, m.unchanged);
  }
  void operator()(const Done& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kDone));
    w.U64(m.bytes);
    w.U64(m.files);
    w.U16(m.streams);
    w.U64(m.wire_bytes);
    w.U64(m.same_bytes);
  }
  void operator()(const ErrorMessage& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kError));
    w.U16(static_cast<std::uint16_t>(m.code));
    PutText(w, m.message, kMaxTextLength);
  }
  void operator()(const Abort& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kAbort));
    PutText(w, m.reason, kMaxTextLength);
  }
  void operator()(const Bye&) { w.U16(static_cast<std::uint16_t>(MessageType::kBye)); }
  void operator()(const Warning& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kWarning));
    PutText(w, m.message, kMaxTextLength);
  }
  void operator()(const Note& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kNote));
    PutText(w, m.message, kMaxTextLength);
  }
  void operator()(const FeedHello& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kFeedHello));
    w.String(m.token);
  }
  void operator()(const FeedPlan& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kFeedPlan));
    w.U8(m.mode);
    w.String(m.base);
  }
  void operator()(const FeedWait& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kFeedWait));
    w.U32(m.file_id);
    w.U64(m.have);
  }
  void operator()(const ProbeOpen& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kProbeOpen));
    w.String(m.listen_address);
    w.U8(m.family);
    w.U16(m.port_min);
    w.U16(m.port_max);
  }
  void operator()(const ProbeReady& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kProbeReady));
    PutStrings(w, m.addresses);
    w.U16(m.port);
  }
  void operator()(const ProbeMeasure& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kProbeMeasure));
    w.U32(static_cast<std::uint32_t>(m.targets.size()));
    for (const ProbeTarget& t : m.targets) {
      PutStrings(w, t.addresses);
      w.U16(t.port);
    }
  }
  void operator()(const ProbeResult& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kProbeResult));
    w.U32(static_cast<std::uint32_t>(m.rtt_us.size()));
    for (std::uint32_t us : m.rtt_us) w.U32(us);
  }
  void operator()(const FeedHave& m) {
    w.U16(static_cast<std::uint16_t>(MessageType::kFeedHave));
    w.U32(m.file_id);
    w.U64(m.prefix);
    PutBool(w, m.committed);
    PutBool(w, m.ended);
    PutDigest(w, m.digest);
  }
};

/// A token field: empty, or a feed token.
std::string GetFeedToken(WireReader& r) {
  std::string token = r.String(kFeedTokenLength);
  if (!token.empty() && !IsFeedToken(token)) WireReader::Fail("malformed feed token");
  return token;
}

/// FeedHave's digest: none, or as long as one of the algorithms makes.
DigestValue GetAnyDigest(WireReader& r) {
  std::uint8_t n = r.U8();
  if (n != 0 && n != DigestSize(HashAlgorithm::kMd5) && n != DigestSize(HashAlgorithm::kSha256)) {
    WireReader::Fail("a digest of " + std::to_string(n) + " bytes");
  }
  return MakeDigestValue(r.Bytes(n));
}

/// A count of up to kMaxProbeTargets.
std::uint32_t GetProbeCount(WireReader& r) {
  const std::uint32_t n = r.U32();
  if (n > kMaxProbeTargets) WireReader::Fail("too many probe targets");
  return n;
}

ControlMessage DecodeProbe(MessageType type, WireReader& r) {
  switch (type) {
    case MessageType::kProbeOpen: {
      ProbeOpen m;
      m.listen_address = r.String(256);
      m.family = r.U8();
      if (m.family != 0 && m.family != 4 && m.family != 6) WireReader::Fail("unknown family");
      m.port_min = r.U16();
      m.port_max = r.U16();
      if ((m.port_min == 0) != (m.port_max == 0) || m.port_min > m.port_max) {
        WireReader::Fail("bad probe port range");
      }
      return m;
    }
    case MessageType::kProbeReady: {
      ProbeReady m;
      m.addresses = GetStrings(r, kMaxAddresses, 256);
      m.port = r.U16();
      if (m.addresses.empty() || m.port == 0) WireReader::Fail("no probe address");
      return m;
    }
    case MessageType::kProbeMeasure: {
      ProbeMeasure m;
      const std::uint32_t n = GetProbeCount(r);
      for (std::uint32_t i = 0; i < n; ++i) {
        ProbeTarget t;
        t.addresses = GetStrings(r, kMaxAddresses, 256);
        t.port = r.U16();
        m.targets.push_back(std::move(t));
      }
      return m;
    }
    default: {
      ProbeResult m;
      const std::uint32_t n = GetProbeCount(r);
      for (std::uint32_t i = 0; i < n; ++i) m.rtt_us.push_back(r.U32());
      return m;
    }
  }
}

ControlMessage DecodeFeed(MessageType type, WireReader& r) {
  switch (type) {
    case MessageType::kFeedHello: {
      FeedHello m{GetFeedToken(r)};
      if (m.token.empty()) WireReader::Fail("no feed token");
      return m;
    }
    case MessageType::kFeedPlan: {
      FeedPlan m;
      m.mode = r.U8();
      if (m.mode > 1) WireReader::Fail("unknown target plan " + std::to_string(m.mode));
      m.base = r.String(kMaxPathLength);
      if (m.base.empty()) WireReader::Fail("empty target path");
      return m;
    }
    case MessageType::kFeedWait: {
      FeedWait m;
      m.file_id = r.U32();
      m.have = r.U64();
      return m;
    }
    default: {
      FeedHave m;
      m.file_id = r.U32();
      m.prefix = r.U64();
      m.committed = GetBool(r);
      m.ended = GetBool(r);
      m.digest = GetAnyDigest(r);
      return m;
    }
  }
}

ControlMessage DecodeBody(MessageType type, WireReader& r) {
  switch (type) {
    case MessageType::kHello: {
      Hello m;
      m.magic = r.U32();
      if (m.magic != kControlMagic) WireReader::Fail("not a braid control stream");
      m.version = r.U16();
      if (!ReadBraidVersion(r, m.version, m.braid_version)) return m;
      m.label = r.String(kMaxLabelLength);
      return m;
    }
    case MessageType::kHelloReply: {
      HelloReply m;
      m.version = r.U16();
      if (!ReadBraidVersion(r, m.version, m.braid_version)) return m;
      m.host_label = r.String(kMaxLabelLength);
      m.ssh_address = r.String(256);
      return m;
    }
    case MessageType::kSourceOpen: {
      SourceOpen m;
      m.paths = GetStrings(r, kMaxSources, kMaxPathLength);
      m.recursive = GetBool(r);
      bool has_size = GetBool(r);
      std::uint64_t size = r.U64();
      if (has_size) m.device_size = size;
      m.follow_symlinks = GetBool(r);
      m.remote_paths = GetBool(r);
      m.hard_links = GetBool(r);
      m.growing_ms = r.U32();
      if (m.growing_ms > kMaxGrowingMs) WireReader::Fail("-R quiet time out of range");
      m.command = GetBool(r);
      if (m.command && m.paths.size() != 1) WireReader::Fail("-N i runs exactly one command");
      const std::uint16_t rules = r.U16();
      if (rules > kMaxFilterRules) WireReader::Fail("too many --exclude/--include rules");
      m.filters.reserve(rules);
      for (std::uint16_t i = 0; i < rules; ++i) {
        PathFilterRule rule;
        rule.include = GetBool(r);
        rule.pattern = r.String(kMaxFilterPatternLength);
        m.filters.push_back(std::move(rule));
      }
      m.follow = GetFeedToken(r);
      // A source is either paths to read or a feed to follow.
      if (m.paths.empty() == m.follow.empty()) {
        WireReader::Fail(m.paths.empty() ? "no source paths" : "source paths and a feed to follow");
      }
      return m;
    }
    case MessageType::kFileList: {
      FileList m;
      m.last = GetBool(r);
      std::uint32_t n = r.U32();
      if (n > kMaxEntriesPerList) WireReader::Fail("file list chunk too long");
      m.entries.reserve(std::min<std::size_t>(n, r.remaining() / 32));
      for (std::uint32_t i = 0; i < n; ++i) m.entries.push_back(GetEntry(r));
      m.not_listed = r.U32();
      return m;
    }
    case MessageType::kSinkOpen: {
      SinkOpen m;
      m.target = r.String(kMaxPathLength);
      m.top_count = r.U16();
      m.force = GetBool(r);
      m.preserve = GetBool(r);
      m.recursive = GetBool(r);
      m.listen_address = r.String(256);
      m.params = GetParams(r);
      std::uint8_t resume = r.U8();
      if (resume > 2) WireReader::Fail("unknown resume mode");
      m.resume = static_cast<ResumeMode>(resume);
      m.verify_kept = GetBool(r);
      m.keep_partial = GetBool(r);
      std::uint8_t fsync = r.U8();
      if (fsync > kMaxFsyncPolicy) WireReader::Fail("unknown fsync policy");
      m.fsync = static_cast<FsyncPolicy>(fsync);
      std::uint8_t existing = r.U8();
      if (existing > 3) WireReader::Fail("unknown rule for existing files");
      m.existing = static_cast<ExistingRule>(existing);
      m.remote_paths = GetBool(r);
      m.command = GetBool(r);
      m.forward = GetFeedToken(r);
      return m;
    }
    case MessageType::kSinkReady: {
      SinkReady m;
      m.addresses = GetStrings(r, kMaxAddresses, 256);
      m.port = r.U16();
      // Both empty: a reverse transfer, where the sink connects instead.
      if (m.addresses.empty() != (m.port == 0)) WireReader::Fail("sink gave no address");
      m.resume = GetResume(r);
      m.kept_bytes = r.U64();
      m.failed_blocks = r.U32();
      return m;
    }
    case MessageType::kSourceStart: {
      SourceStart m;
      m.addresses = GetStrings(r, kMaxAddresses, 256);
      m.port = r.U16();
      m.params = GetParams(r);
      if (m.params.reverse ? (!m.addresses.empty() || m.port != 0)
                           : (m.addresses.empty() || m.port == 0)) {
        WireReader::Fail("no address to connect to");
      }
      m.resume = GetResume(r);
      m.listen_address = r.String(256);
      return m;
    }
    case MessageType::kSourceReady:
    case MessageType::kSinkConnect: {
      std::vector<std::string> addresses = GetStrings(r, kMaxAddresses, 256);
      std::uint16_t port = r.U16();
      if (addresses.empty() || port == 0) WireReader::Fail("no address to connect to");
      if (type == MessageType::kSourceReady) return SourceReady{std::move(addresses), port};
      return SinkConnect{std::move(addresses), port};
    }
    case MessageType::kProgress: {
      Progress m;
      m.bytes = r.U64();
      m.files_done = r.U64();
      m.streams = r.U16();
      std::uint16_t n = r.U16();
      if (n > kMaxStreamSamples) WireReader::Fail("too many stream samples in Progress");
      m.stream_samples.reserve(n);
      for (std::uint16_t i = 0; i < n; ++i) m.stream_samples.push_back(GetStreamSample(r));
      m.active_streams = r.U16();
      if (m.active_streams > kMaxStreamSamples)
        WireReader::Fail("active stream count out of range");
      m.controller_note = r.String(256);
      m.current_path = r.String(kMaxPathLength);
      return m;
    }
    case MessageType::kFileDone: {
      FileDone m;
      m.id = r.U32();
      m.size = r.U64();
      m.hash = GetHashAlgorithm(r);
      m.source_digest = GetDigest(r, m.hash);
      m.sink_digest = GetDigest(r, m.hash);
      m.final_path = r.String(kMaxPathLength);
      m.unchanged = GetBool(r);
      return m;
    }
    case MessageType::kDone: {
      Done m;
      m.bytes = r.U64();
      m.files = r.U64();
      m.streams = r.U16();
      m.wire_bytes = r.U64();
      m.same_bytes = r.U64();
      return m;
    }
    case MessageType::kError: {
      ErrorMessage m;
      std::uint16_t code = r.U16();
      if (code == 0 || code > kMaxErrorCode) WireReader::Fail("unknown error code");
      m.code = static_cast<ErrorCode>(code);
      m.message = r.String(kMaxTextLength);
      return m;
    }
    case MessageType::kAbort:
      return Abort{r.String(kMaxTextLength)};
    case MessageType::kBye:
      return Bye{};
    case MessageType::kWarning:
      return Warning{r.String(kMaxTextLength)};
    case MessageType::kNote:
      return Note{r.String(kMaxTextLength)};
    case MessageType::kKept: {
      Kept m;
      m.bytes = r.U64();
      m.partial_files = r.U32();
      return m;
    }
    case MessageType::kFeedHello:
    case MessageType::kFeedPlan:
    case MessageType::kFeedWait:
    case MessageType::kFeedHave:
      return DecodeFeed(type, r);
    case MessageType::kProbeOpen:
    case MessageType::kProbeReady:
    case MessageType::kProbeMeasure:
    case MessageType::kProbeResult:
      return DecodeProbe(type, r);
  }
  WireReader::Fail("unknown control message type " +
                   std::to_string(static_cast<std::uint16_t>(type)));
}

}  // namespace

void AppendMessage(const ControlMessage& message, WireWriter& out) {
  std::visit(Encoder{out}, message);
}

std::vector<std::uint8_t> EncodeMessage(const ControlMessage& message) {
  WireWriter w;
  AppendMessage(message, w);
  return w.Take();
}

ControlMessage DecodeMessage(std::span<const std::uint8_t> bytes) {
  if (bytes.size() > kMaxControlMessage) WireReader::Fail("control message too large");
  WireReader r(bytes);
  auto type = static_cast<MessageType>(r.U16());
  ControlMessage m = DecodeBody(type, r);
  r.ExpectEnd();
  return m;
}

const char* MessageName(const ControlMessage& message) {
  static constexpr const char* kNames[] = {
      "Hello",        "HelloReply", "SourceOpen", "FileList",    "SinkOpen",    "SinkReady",
      "SourceStart",  "Progress",   "FileDone",   "Done",        "Error",       "Abort",
      "Bye",          "Warning",    "Kept",       "SourceReady", "SinkConnect", "Note",
      "FeedHello",    "FeedPlan",   "FeedWait",   "FeedHave",    "ProbeOpen",   "ProbeReady",
      "ProbeMeasure", "ProbeResult"};
  static_assert(std::size(kNames) == std::variant_size_v<ControlMessage>);
  return kNames[message.index()];
}

bool IsSafeRelativePath(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string_view::npos) {
    return false;
  }
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

std::string BraidVersion() { return BRAID_VERSION; }

bool IsFeedToken(std::string_view token) {
  if (token.size() != kFeedTokenLength) return false;
  for (char c : token) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace braid
