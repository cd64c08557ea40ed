// ld.ulto's own options, which lld does not know: ld.ulto takes them out of
// the command line before lld reads it, and --help prints them after lld's
// options. Beside them, what --help says instead of lld's own text for the
// lld options whose meaning ld.ulto extends.
include "llvm/Option/OptParser.td"

// What CommandOptTable.def expects of every table; lld answers them.
def help : Flag<["--", "-"], "help">, Flags<[HelpHidden]>;
def version : Flag<["--", "-"], "version">, Flags<[HelpHidden]>;

// Each group is a section of --help, titled by its text.
def grp_ulto : OptionGroup<"ulto">, HelpText<"ULTO OPTIONS">;
def grp_dist : OptionGroup<"dist">,
  HelpText<"ULTO OPTIONS (with --lto=distributed)">;

def lto_if_unified : Joined<["--"], "lto-if-unified=">, Group<grp_ulto>,
  MetaVarName<"[full,thin]">,
  HelpText<"Without --lto=, the LTO mode when every bitcode input is unified">;

// --dist-X is ulto dist's --X, --no-dist-X its --no-X (DistOpts.td).
def dist : Joined<["--"], "dist-">, Group<grp_dist>, MetaVarName<"<option>">,
  HelpText<"Pass --<option> to ulto dist, e.g. --dist-jobs=8 (see ulto dist --help)">;
def no_dist : Joined<["--"], "no-dist-">, Group<grp_dist>, Flags<[HelpHidden]>,
  MetaVarName<"<option>">, HelpText<"Pass --no-<option> to ulto dist">;
// The two a user reaches for, said in --help; otherwise --no-dist-<option>.
def no_dist_cache : Flag<["--"], "no-dist-cache">, Group<grp_dist>,
  HelpText<"Run every backend job; neither read nor fill the cache">;
def no_dist_service : Flag<["--"], "no-dist-service">, Group<grp_dist>,
  HelpText<"Run the jobs in this link's own workers, not in the user's worker service">;

// lld's options as ld.ulto reads them: their lines of lld's --help, replaced.
def lld_lto : Joined<["--"], "lto=">, Flags<[HelpHidden]>,
  MetaVarName<"[full,thin,distributed]">,
  HelpText<"Set LTO backend; distributed: ThinLTO backends as separate, cached jobs (ulto dist)">;
def lld_fat_lto_objects : Flag<["--"], "fat-lto-objects">, Flags<[HelpHidden]>,
  HelpText<"Link the bitcode of fat objects (default with --lto= or --lto-if-unified=)">;
def lld_no_fat_lto_objects : Flag<["--"], "no-fat-lto-objects">,
  Flags<[HelpHidden]>,
  HelpText<"Link the native code of fat objects (default without --lto= or --lto-if-unified=)">;
