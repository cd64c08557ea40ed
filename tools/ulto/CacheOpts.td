// Options of `ulto cache`.
include "llvm/Option/OptParser.td"

def help : Flag<["--", "-"], "help">, HelpText<"Display this help">;
def : Flag<["-"], "h">, Alias<help>, HelpText<"Alias for --help">;
def version : Flag<["--"], "version">, HelpText<"Display the version of ulto">;
def cache_dir : Joined<["--"], "cache-dir=">, MetaVarName<"<dir>">,
                HelpText<"Cache directory (default: $ULTO_CACHE_DIR, else "
                         "~/.cache/ulto)">;
def policy : Joined<["--"], "policy=">, MetaVarName<"<policy>">,
             HelpText<"prune: the policy, as lld's --thinlto-cache-policy "
                      "(default: the one applied after every link)">;
def json : Flag<["--"], "json">, HelpText<"stats: print one JSON object">;
