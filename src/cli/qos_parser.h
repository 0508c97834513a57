#pragma once
/// QoS markings as users type them for -q/--qos: a number or a DSCP name.

#include <string_view>

namespace braid {

/// Parses a QoS marking into the IPv4 TOS / IPv6 traffic-class byte (DSCP << 2).
///
/// Accepts a number 0-255, decimal or 0x hex (the whole byte, as `ip` and tc show it), or a
/// name, in any case:
///   qbss        0x20  DSCP CS1, the QBone Scavenger Service class
///   le          0x04  DSCP 1, Lower Effort (RFC 8622)
///   ef          0xb8  DSCP 46, Expedited Forwarding
///   af11..af43  DSCP 8x+2y, Assured Forwarding (RFC 2597), x in 1..4, y in 1..3
///   cs0..cs7    DSCP 8n, class selectors
/// Names are DSCP code points, so they never touch the two ECN bits.
///
/// Throws BraidError(kUsage) quoting `text` and listing the accepted names otherwise.
int ParseQos(std::string_view text);

}  // namespace braid
