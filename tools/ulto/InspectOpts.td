// Options of `ulto inspect`.
include "llvm/Option/OptParser.td"

def help : Flag<["--", "-"], "help">, HelpText<"Display this help">;
def : Flag<["-"], "h">, Alias<help>, HelpText<"Alias for --help">;
def version : Flag<["--"], "version">, HelpText<"Display the version of ulto">;
def json : Flag<["--"], "json">,
           HelpText<"Print one JSON object instead of the table">;
