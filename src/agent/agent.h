#pragma once
/// The braid you typed: starts a server for each end, relays the file list
/// and the one-time credentials, shows progress, and reports the outcome.
/// It carries no data itself.

#include "braid/options.h"

namespace braid {

class ServerLauncher;

/// Runs the copy, starting its ends through `launcher` (main passes a
/// ProcessServerLauncher; tests, servers of their own); prints errors and
/// returns the exit status.
int RunAgent(const Options& options, ServerLauncher& launcher);

}  // namespace braid
