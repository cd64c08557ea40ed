// Options of `ulto dist`.
include "llvm/Option/OptParser.td"

// The options that choose a link's workers, and the remote ones: ulto dist
// needs them as it starts, before its command (AttachedCommand.h), to start
// the workers and load remote execution's library while lld works, so they
// are the only ones it takes after --await-command=.
def grp_workers : OptionGroup<"workers">;

def help : Flag<["--", "-"], "help">, HelpText<"Display this help">;
def : Flag<["-"], "h">, Alias<help>, HelpText<"Alias for --help">;
def version : Flag<["--"], "version">, HelpText<"Display the version of ulto">;
def jobs : Joined<["--"], "jobs=">, MetaVarName<"<n>">,
           HelpText<"Run at most <n> backend jobs at once on this machine, "
                    "counting the jobs of concurrent links (default: "
                    "$ULTO_JOBS, else one per hardware thread; a make "
                    "jobserver replaces this limit)">;
def : JoinedOrSeparate<["-"], "j">, Alias<jobs>, HelpText<"Alias for --jobs=">;
def : Separate<["--"], "jobs">, Alias<jobs>, HelpText<"Alias for --jobs=">;
def wait_limit : Joined<["--"], "wait-limit=">, MetaVarName<"<seconds>">,
                 HelpText<"Wait at most this long for a concurrent link "
                          "running the same job, then run it here (default "
                          "600)">;
def executor : Joined<["--"], "executor=">, MetaVarName<"<name>">,
               HelpText<"Where jobs run: local, or remote (the default "
                        "with --remote)">;
def cache_dir : Joined<["--"], "cache-dir=">, MetaVarName<"<dir>">,
                HelpText<"Cache directory (default: $ULTO_CACHE_DIR, else "
                         "$XDG_CACHE_HOME/ulto or ~/.cache/ulto)">;
def no_cache : Flag<["--"], "no-cache">,
               HelpText<"Run every job; neither read nor fill the cache">;
def cache_policy : Joined<["--"], "cache-policy=">, MetaVarName<"<policy>">,
                   HelpText<"Pruning policy, as lld's --thinlto-cache-policy">;
def cache_trusted_group : Joined<["--"], "cache-trusted-group=">,
    MetaVarName<"<group>">,
    HelpText<"Also take the cache entries of <group> (default: the user's "
             "own only)">;
def time_trace : Joined<["--"], "time-trace=">, MetaVarName<"<file>">,
                 HelpText<"Write a Chrome/Perfetto trace of the jobs">;
def emit_ninja : Joined<["--"], "emit-ninja=">, MetaVarName<"<file>">,
                 HelpText<"Also write the jobs as a ninja file">;
def progress : Joined<["--"], "progress=">, MetaVarName<"auto|always|never">,
               HelpText<"Live progress line on stderr (auto: on a terminal)">;
def quiet : Flag<["--"], "quiet">, HelpText<"No summary line">;
def explain : Flag<["--"], "explain">,
              HelpText<"Say why each job that runs was not in the cache: "
                       "what changed since the last link of the same output "
                       "ran it here">;
def spawn : Flag<["--"], "spawn">,
            HelpText<"Start every job as a new compiler process, even for "
                     "clang-22 (whose jobs otherwise run as forks of a "
                     "server with libclang-cpp loaded)">;
def jobs_per_process : Joined<["--"], "jobs-per-process=">, Group<grp_workers>,
                       MetaVarName<"<n>">,
                       HelpText<"Backend jobs one compiler process runs, one "
                                "after another, before a new one takes over "
                                "(default 256; 1: a new process per job)">;
def service : Flag<["--"], "service">, Group<grp_workers>,
              HelpText<"Run the local jobs in the user's worker service, "
                       "whose workers stay warm from one link to the next; "
                       "a link that finds none starts it for the next ones "
                       "(the default; this form also warns when it cannot)">;
def no_service : Flag<["--"], "no-service">, Group<grp_workers>,
                 HelpText<"Run the local jobs in workers of this link's "
                          "own, and start no worker service">;
def service_idle_limit : Joined<["--"], "service-idle-limit=">, Group<grp_workers>,
                         MetaVarName<"<seconds>">,
                         HelpText<"A worker service that this link starts "
                                  "ends after this long without a link "
                                  "(default 300)">;
def service_limit : Joined<["--"], "service-limit=">, Group<grp_workers>, MetaVarName<"<n>">,
                    HelpText<"Start no worker service when <n> of this "
                             "user's run already (default 8; 0: no limit)">;
def serve_workers : Joined<["--"], "serve-workers=">, MetaVarName<"<name>">,
                    Flags<[HelpHidden]>,
                    HelpText<"Be the worker service <name>, keeping --jobs "
                             "workers warm (started by --service)">;
def remote : Joined<["--"], "remote=">, MetaVarName<"<url>">, Group<grp_workers>,
             HelpText<"Run the jobs on this REAPI server, grpc://host:port "
                      "or grpcs://host:port (TLS)">;
def remote_cache : Joined<["--"], "remote-cache=">, MetaVarName<"<url>">,
                   Group<grp_workers>,
                   HelpText<"Share backend objects through this cache, without "
                            "remote execution: grpc[s]://host:port (REAPI) "
                            "or http[s]://host[:port][/path] (Bazel's HTTP "
                            "cache); jobs it lacks run here and are "
                            "uploaded">;
def remote_cache_read_only : Flag<["--"], "remote-cache-read-only">,
    HelpText<"Take objects from --remote-cache, but upload none">;
def remote_cache_timeout : Joined<["--"], "remote-cache-timeout=">,
    MetaVarName<"<seconds>">,
    HelpText<"Limit on each call to --remote-cache, and on the uploads "
             "after the last job (default 10)">;
def remote_instance : Joined<["--"], "remote-instance=">,
                      MetaVarName<"<name>">,
                      HelpText<"REAPI instance name">;
def remote_platform : Joined<["--"], "remote-platform=">,
                      MetaVarName<"<name>=<value>">,
                      HelpText<"Platform property selecting the workers, "
                               "e.g. container-image=...; repeatable">;
def remote_header : Joined<["--"], "remote-header=">,
                    MetaVarName<"<name>=<value>">,
                    HelpText<"Header sent with every call; repeatable">;
def remote_build_id : Joined<["--"], "remote-build-id=">, MetaVarName<"<id>">,
                      HelpText<"Ties the link's calls to a build in the farm's "
                               "records (default: $ULTO_BUILD_ID)">;
def remote_token_file : Joined<["--"], "remote-token-file=">,
                        MetaVarName<"<file>">,
                        HelpText<"Send the token in <file> as "
                                 "'authorization: Bearer <token>'">;
def remote_netrc : Joined<["--"], "remote-netrc=">, MetaVarName<"<file>">,
                   HelpText<"An http[s]:// cache's user and password, from "
                            "a netrc file (default: $ULTO_REMOTE_CREDENTIALS, "
                            "user:password)">;
def remote_cleartext_credentials : Flag<["--"], "remote-cleartext-credentials">,
    HelpText<"Send credentials over http:// and grpc:// to another machine, "
             "where anyone on the way can read them">;
def remote_tls_ca : Joined<["--"], "remote-tls-ca=">, MetaVarName<"<file>">,
                    HelpText<"PEM roots that sign the server's certificate "
                             "(default: the system's)">;
def remote_tls_cert : Joined<["--"], "remote-tls-cert=">,
                      MetaVarName<"<file>">,
                      HelpText<"PEM client certificate, for mutual TLS">;
def remote_tls_key : Joined<["--"], "remote-tls-key=">, MetaVarName<"<file>">,
                     HelpText<"PEM client key, for mutual TLS">;
def remote_jobs : Joined<["--"], "remote-jobs=">, MetaVarName<"<n>">,
                  HelpText<"Remote jobs in flight at once (default 32)">;
def remote_compiler : Joined<["--"], "remote-compiler=">,
                      MetaVarName<"<path>">,
                      HelpText<"The compiler as the workers name it (default: "
                               "the job's compiler path)">;
def remote_ship_compiler : Flag<["--"], "remote-ship-compiler">,
                           HelpText<"Send the compiler and its own libraries "
                                    "with every job, for workers without a "
                                    "toolchain">;
def remote_retries : Joined<["--"], "remote-retries=">, MetaVarName<"<n>">,
                     HelpText<"Attempts after the first when the remote "
                              "fails (default 3)">;
def remote_timeout : Joined<["--"], "remote-timeout=">,
                     MetaVarName<"<seconds>">,
                     HelpText<"How long a job may run remotely (default 600)">;
def no_local_fallback : Flag<["--"], "no-local-fallback">,
                        HelpText<"Fail jobs the remote cannot run instead of "
                                 "running them here">;
def check_remote : Flag<["--"], "check-remote">,
                   HelpText<"Report the server's capabilities and round-trip "
                            "time, then exit">;
