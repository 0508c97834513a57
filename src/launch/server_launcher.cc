#include "launch/server_launcher.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "launch/deploy.h"
#include "launch/local_server.h"
#include "launch/shell_word.h"
#include "launch/ssh_command_server.h"
#include "security/ssh/ssh_connection.h"
#include "security/ssh/ssh_version.h"

namespace braid {

namespace {

/// The caps a server puts on the list it receives, when not its defaults: the
/// agent's own, so a larger --max-entries is not refused at the sink.
std::vector<std::string> ServeArgs(const ListLimits& limits) {
  std::vector<std::string> args;
  if (limits.max_entries != kDefaultMaxEntries) {
    args.insert(args.end(), {"--max-entries", std::to_string(limits.max_entries)});
  }
  if (limits.max_list_bytes != kDefaultMaxListBytes) {
    args.insert(args.end(), {"--max-list-bytes", std::to_string(limits.max_list_bytes)});
  }
  return args;
}

/// The system ssh in place of libssh2 when the ssh config needs it (ProxyJump,
/// ProxyCommand), given the config braid read; "" when libssh2 will do.
std::string SystemSshFor(const SshTarget& target) {
  const SystemSshNeed need = NeedsSystemSsh(target);
  if (need.keyword.empty()) return "";
  std::string command = "ssh";
  if (!need.config_file.empty()) command += " -F " + ShellWord(need.config_file);
  if (target.verbose > 0) {
    std::fprintf(stderr,
                 "braid: %s: the ssh config sets %s, which libssh2 cannot follow; using the "
                 "system ssh client (%s), as -S ssh would\n",
                 target.host.c_str(), need.keyword.c_str(), command.c_str());
  }
  return command;
}

}  // namespace

std::string SshLibraryVersion() { return Libssh2Version(); }

namespace {

/// What --deploy did, for -v.
std::string DeployNote(const std::string& host, const DeployOutcome& outcome,
                       const PortableBinary& binary) {
  if (outcome.how == "system")
    return host + ": its own braid speaks this protocol; nothing deployed";
  const std::string size = std::to_string((binary.bytes->size() + 512 * 1024) / (1024 * 1024));
  if (outcome.how == "reused") return host + ": reused the braid deployed at " + outcome.path;
  return host + ": uploaded " + binary.path + " (" + size + " MiB) to " + outcome.path +
         (outcome.how == "replaced" ? ", replacing a copy whose SHA-256 did not match" : "");
}

}  // namespace

LaunchedServer ProcessServerLauncher::Launch(Side /*side*/, const Endpoint& endpoint,
                                             const Options& options, StderrSink on_stderr) {
  const std::vector<std::string> serve_args = ServeArgs(options.list_limits);
  if (!endpoint.is_remote()) return {SpawnLocalServer(serve_args), "braid --serve"};
  std::string args;
  for (const std::string& arg : serve_args) args += " " + arg;  // digits and option names
  // -T is a command line the user wrote for the remote shell, used as is.
  std::string command = options.remote_command + " --serve" + args;
  // --deploy: one remote command that runs the host's braid or the uploaded one.
  std::optional<PortableBinary> portable;
  if (options.deploy) portable = LoadPortableBinary();
  const std::string run =
      portable ? DeployCommand(options.remote_command, args, *portable) : command;
  SshTarget target;
  target.host = endpoint.host;
  target.user = endpoint.user;
  target.port = options.ssh_port;
  target.identity_files = options.identity_files;
  target.accept_new_host_key = options.accept_new_host_key;
  if (options.connect_timeout > 0) target.connect_timeout = options.connect_timeout_ms();
  target.verbose = options.verbose;
  // Through the agent's console, as the server's own stderr is: a banner or a
  // key comment must not reach the terminal raw.
  target.note = [on_stderr, verbose = options.verbose](int level, const std::string& text) {
    if (verbose >= level && on_stderr) on_stderr("braid", text);
  };
  // -S: the user's own ssh client, with everything in their ssh setup.
  const std::string ssh_command =
      !options.ssh_command.empty() ? options.ssh_command : SystemSshFor(target);
  std::unique_ptr<ServerChannel> channel;
  if (!ssh_command.empty()) {
    channel = SpawnSshCommand({ssh_command, endpoint.host, endpoint.user, options.ssh_port,
                               options.identity_files, options.accept_new_host_key, run},
                              std::move(on_stderr));
  } else {
    std::unique_ptr<SshConnection> ssh = SshConnection::Open(target);
    Say(target.note, 2, endpoint.host + ": running " + command);
    channel = ssh->Exec(run, std::move(on_stderr));
  }
  if (portable) {
    const DeployOutcome outcome =
        RunDeployDialogue(*channel, *portable, command, options.connect_timeout_ms());
    Say(target.note, 1, DeployNote(endpoint.host, outcome, *portable));
    command = outcome.command;
  }
  return {std::move(channel), command};
}

}  // namespace braid
