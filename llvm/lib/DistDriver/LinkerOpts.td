// The options of lld-22's ELF driver that change in-process ThinLTO code
// generation, spelt and named as lld's Options.td spells and names them, for
// reading the command line of a stock ld.lld that runs `ulto dist`
// (StockLinker.cpp). Other options are unknown here, which is harmless: the
// command line is only searched for these.
include "llvm/Option/OptParser.td"

class F<string name> : Flag<["--", "-"], name>;
class J<string name> : Joined<["--", "-"], name>;

// What CommandOptTable.def expects of every table.
def help : F<"help">;
def version : F<"version">;

def mllvm : Separate<["--", "-"], "mllvm">;
def : J<"mllvm=">, Alias<mllvm>;
def plugin_opt_eq_minus : J<"plugin-opt=-">;
def plugin_opt_mcpu_eq : J<"plugin-opt=mcpu=">;
def pie : F<"pie">;
def : F<"pic-executable">, Alias<pie>;
def no_pie : F<"no-pie">;
def shared : F<"shared">;
def : F<"Bshareable">, Alias<shared>;
def relocatable : F<"relocatable">;
def : Flag<["-"], "r">, Alias<relocatable>;
def lto_O : J<"lto-O">;
def : J<"plugin-opt=O">, Alias<lto_O>;
def lto_CGO : J<"lto-CGO">;
def lto_basic_block_sections : J<"lto-basic-block-sections=">;
def lto_basic_block_address_map : F<"lto-basic-block-address-map">;
def no_lto_basic_block_address_map : F<"no-lto-basic-block-address-map">;
def lto_unique_basic_block_section_names :
    F<"lto-unique-basic-block-section-names">;
def no_lto_unique_basic_block_section_names :
    F<"no-lto-unique-basic-block-section-names">;
def load_pass_plugin : Separate<["--", "-"], "load-pass-plugin">;
def : J<"load-pass-plugin=">, Alias<load_pass_plugin>;
def lto_cs_profile_generate : F<"lto-cs-profile-generate">;
def : F<"plugin-opt=cs-profile-generate">, Alias<lto_cs_profile_generate>;
def lto_cs_profile_file : J<"lto-cs-profile-file=">;
def : J<"plugin-opt=cs-profile-path=">, Alias<lto_cs_profile_file>;
def lto_emit_asm : F<"lto-emit-asm">;
def : F<"plugin-opt=emit-asm">, Alias<lto_emit_asm>;
def lto_emit_llvm : F<"lto-emit-llvm">;
def : F<"plugin-opt=emit-llvm">, Alias<lto_emit_llvm>;
def lto_newpm_passes : J<"lto-newpm-passes=">;
def lto_aa_pipeline : J<"lto-aa-pipeline=">;
def plugin_opt_dwo_dir : J<"plugin-opt=dwo_dir=">;
