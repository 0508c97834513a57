// Control messages come from the peer at the other end of an ssh channel (or a
// socketpair). DecodeMessage must reject bad input with kProtocol only, and
// whatever it accepts must survive a round trip: the encoder's output for a
// decoded message decodes again (a sender never writes what its receiver
// refuses) to a message that encodes to the same bytes.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_support.h"
#include "proto/control_message.h"

using namespace braid;

namespace {

bool OfAnotherVersion(const ControlMessage& message) {
  if (const auto* hello = std::get_if<Hello>(&message)) return hello->version != kProtocolVersion;
  if (const auto* reply = std::get_if<HelloReply>(&message)) {
    return reply->version != kProtocolVersion;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ControlMessage message;
  if (!fuzz::Accepts(ErrorCode::kProtocol,
                     [&] { message = DecodeMessage(fuzz::Bytes(data, size)); })) {
    return 0;
  }
  const std::vector<std::uint8_t> encoded = EncodeMessage(message);
  // Encodings are canonical except for how a resume list groups complete
  // files into runs, which only ever makes the encoding shorter or equal, and
  // a Hello or HelloReply of another protocol version: it is read only as far
  // as its braid version and written back in this version's layout.
  if (!OfAnotherVersion(message)) BRAID_FUZZ_CHECK(encoded.size() <= size);

  ControlMessage again;
  try {
    again = DecodeMessage(encoded);
  } catch (const BraidError& e) {
    std::fprintf(stderr, "re-encoded %s does not decode: %s\n", MessageName(message), e.what());
    std::abort();
  }
  BRAID_FUZZ_CHECK(again.index() == message.index());
  BRAID_FUZZ_CHECK(std::strcmp(MessageName(again), MessageName(message)) == 0);
  BRAID_FUZZ_CHECK(EncodeMessage(again) == encoded);

  if (const auto* list = std::get_if<FileList>(&message)) {
    // The sink creates names from these: the decoder must have refused any other.
    for (const FileEntry& e : list->entries) BRAID_FUZZ_CHECK(IsSafeRelativePath(e.path));
  }
  return 0;
}
