// The exit statuses of `agtmux`, one table for every command (docs/cli.md
// "Exit codes"). They are part of the interface: scripts branch on them.
#pragma once

namespace agt::cli {

/// The command did what was asked.
inline constexpr int kExitOk = 0;
/// The command ran and failed: the daemon refused or an action failed
/// (the message names the error code, e.g. E_SNAPSHOT_STALE).
inline constexpr int kExitFailed = 1;
/// The command line is wrong: an unknown command, option or value. Nothing
/// was done.
inline constexpr int kExitUsage = 2;
/// The daemon cannot be reached (or, for `daemon status`, is not running).
inline constexpr int kExitDaemonUnreachable = 3;
/// An internal error (a bug): the message says what happened.
inline constexpr int kExitInternal = 70;
/// `send --wait`: the pane showed no new output in time.
inline constexpr int kExitTimeout = 124;
/// `wrap`: the agent's program was not found.
inline constexpr int kExitNotFound = 127;

/// The footer of `agtmux --help`: the codes above, and where help lives.
inline constexpr const char* kExitCodesHelp =
    "Help for a command: agtmux help COMMAND (or agtmux COMMAND --help); man agtmux.\n"
    "Exit codes: 0 done; 1 failed (the daemon or the action refused: the message\n"
    "names the error code); 2 usage error (nothing was done); 3 the daemon cannot\n"
    "be reached; 70 internal error; 124 send --wait timed out; 127 wrap: the\n"
    "agent's program was not found.";

}  // namespace agt::cli
