#include "launch/server_launcher.h"

#include "launch/local_server.h"
#include "launch/ssh_command_server.h"
#include "security/ssh/ssh_connection.h"

namespace braid {

LaunchedServer ProcessServerLauncher::Launch(Side /*side*/, const Endpoint& endpoint,
                                             const Options& options, StderrSink on_stderr) {
  if (!endpoint.is_remote()) return {SpawnLocalServer(), "braid --serve"};
  // -T is a command line the user wrote for the remote shell, used as is.
  std::string command = options.remote_command + " --serve";
  if (!options.ssh_command.empty()) {
    // -S: the user's own ssh client, with everything in their ssh setup.
    auto channel =
        SpawnSshCommand({options.ssh_command, endpoint.host, endpoint.user, options.ssh_port,
                         options.identity_files, options.accept_new_host_key, command},
                        std::move(on_stderr));
    return {std::move(channel), command};
  }
  SshTarget target;
  target.host = endpoint.host;
  target.user = endpoint.user;
  target.port = options.ssh_port;
  target.identity_files = options.identity_files;
  target.accept_new_host_key = options.accept_new_host_key;
  target.connect_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(options.connect_timeout));
  std::unique_ptr<SshConnection> ssh = SshConnection::Open(target);
  return {ssh->Exec(command, std::move(on_stderr)), command};
}

}  // namespace braid
