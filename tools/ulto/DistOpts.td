// Options of `ulto dist`.
include "llvm/Option/OptParser.td"

def help : Flag<["--", "-"], "help">, HelpText<"Display this help">;
def : Flag<["-"], "h">, Alias<help>, HelpText<"Alias for --help">;
def jobs : Joined<["--"], "jobs=">, MetaVarName<"<n>">,
           HelpText<"Run at most <n> backend jobs at once (default: one per "
                    "hardware thread; a make jobserver limits further)">;
def : JoinedOrSeparate<["-"], "j">, Alias<jobs>, HelpText<"Alias for --jobs=">;
def executor : Joined<["--"], "executor=">, MetaVarName<"<name>">,
               HelpText<"Where jobs run: local (default)">;
def cache_dir : Joined<["--"], "cache-dir=">, MetaVarName<"<dir>">,
                HelpText<"Cache directory (default: $ULTO_CACHE_DIR, else "
                         "~/.cache/ulto)">;
def no_cache : Flag<["--"], "no-cache">,
               HelpText<"Run every job; neither read nor fill the cache">;
def cache_policy : Joined<["--"], "cache-policy=">, MetaVarName<"<policy>">,
                   HelpText<"Pruning policy, as lld's --thinlto-cache-policy">;
def time_trace : Joined<["--"], "time-trace=">, MetaVarName<"<file>">,
                 HelpText<"Write a Chrome/Perfetto trace of the jobs">;
def emit_ninja : Joined<["--"], "emit-ninja=">, MetaVarName<"<file>">,
                 HelpText<"Also write the jobs as a ninja file">;
def progress : Joined<["--"], "progress=">, MetaVarName<"auto|always|never">,
               HelpText<"Live progress line on stderr (auto: on a terminal)">;
def quiet : Flag<["--"], "quiet">, HelpText<"No summary line">;
def spawn : Flag<["--"], "spawn">,
            HelpText<"Start every job as a new compiler process, even for "
                     "clang-22 (whose jobs otherwise run as forks of a "
                     "server with libclang-cpp loaded)">;
def remote : Joined<["--"], "remote=">, MetaVarName<"<url>">,
             HelpText<"REAPI server, grpc://host:port or grpcs://host:port "
                      "(with --check-remote)">;
def remote_instance : Joined<["--"], "remote-instance=">,
                      MetaVarName<"<name>">,
                      HelpText<"REAPI instance name">;
def check_remote : Flag<["--"], "check-remote">,
                   HelpText<"Report the server's capabilities and round-trip "
                            "time, then exit">;
