// Options of `ulto sdk check`.
include "llvm/Option/OptParser.td"

def help : Flag<["--", "-"], "help">, HelpText<"Display this help">;
def : Flag<["-"], "h">, Alias<help>, HelpText<"Alias for --help">;
def version : Flag<["--"], "version">, HelpText<"Display the version of ulto">;
def json : Flag<["--"], "json">,
           HelpText<"Print one JSON object instead of the report">;
def allow_native : Flag<["--"], "allow-native">,
                   HelpText<"Accept native (non-bitcode) objects">;
