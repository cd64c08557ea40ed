# CMake toolchain file for ulto: cmake -DCMAKE_TOOLCHAIN_FILE=<prefix>/share/ulto/ulto.cmake
#
# Compiles every target as unified bitcode with ulto-clang and links it with
# ld.ulto, in the LTO mode ULTO_LTO_MODE names (thin, full or distributed),
# with LLVM 22's archiver. docs/BuildSystems.md says why each line is here.
#
# LTO goes through CMake's own switch, INTERPROCEDURAL_OPTIMIZATION, on for
# every target by default: a target or project that turns it off gets native
# objects, and CMake's compiler checks and try_compile() build without LTO.
# ulto-rules.cmake, read after CMake's Clang settings, makes that switch
# mean -flto=<mode> -funified-lto (CMake's is always -flto=thin).

# This file sits in <prefix>/share/ulto, the tools in <prefix>/bin (installed
# and in ulto's build tree alike). Reached through a symbolic link (one
# another user put in a shared directory, say), the files beside the link are
# not ulto's: the install's are those beside the file itself.
get_filename_component(_ulto_dir "${CMAKE_CURRENT_LIST_FILE}" REALPATH)
get_filename_component(_ulto_dir "${_ulto_dir}" DIRECTORY)
get_filename_component(_ulto_bin "${_ulto_dir}/../../bin" ABSOLUTE)

set(ULTO_LTO_MODE thin CACHE STRING
    "ulto's LTO mode for every target: thin, full or distributed")
set_property(CACHE ULTO_LTO_MODE PROPERTY STRINGS thin full distributed)
if(NOT ULTO_LTO_MODE MATCHES "^(thin|full|distributed)$")
  message(FATAL_ERROR "ulto.cmake: ULTO_LTO_MODE is '${ULTO_LTO_MODE}'; "
                      "it must be thin, full or distributed")
endif()
set(ULTO_UNIFIED_LTO_PIPELINE full CACHE STRING
    "The pre-link pipeline of every compile: full (the default; the bitcode any consumer links pre-optimised) or thin (builds that recompile everything and link only with ThinLTO)")
set_property(CACHE ULTO_UNIFIED_LTO_PIPELINE PROPERTY STRINGS full thin)
if(NOT ULTO_UNIFIED_LTO_PIPELINE MATCHES "^(full|thin)$")
  message(FATAL_ERROR "ulto.cmake: ULTO_UNIFIED_LTO_PIPELINE is "
                      "'${ULTO_UNIFIED_LTO_PIPELINE}'; it must be full or thin")
endif()
option(ULTO_FAT_OBJECTS
       "Objects hold native code too (-ffat-lto-objects): static libraries that links without LTO (GCC, GNU ld, mold, -O0 builds) can use" OFF)
option(ULTO_RELOCATABLE
       "Compiles name the source directory '.' and the build directory 'build' (-ffile-prefix-map): every checkout compiles the same bytes, and a team's cache serves them all" ON)
set(ULTO_DIST_OPTIONS "" CACHE STRING
    "ulto dist options for distributed links, as ld.ulto's --dist-* options (a ;-list, e.g. --dist-jobs=8;--dist-cache-dir=/ccache/ulto)")

# The build directory may lie in the source directory: where both maps
# match, debug info takes the last one (clang's CGDebugInfo, as GCC) and
# __FILE__ and source_filename the longest, so the build directory's comes
# last. Quoted: either may hold a space. Once: this file is read more than
# once per configure.
if(ULTO_RELOCATABLE)
  foreach(_ulto_lang C CXX)
    if(NOT CMAKE_${_ulto_lang}_FLAGS_INIT MATCHES "-ffile-prefix-map=")
      string(APPEND CMAKE_${_ulto_lang}_FLAGS_INIT
             " \"-ffile-prefix-map=${CMAKE_SOURCE_DIR}=.\""
             " \"-ffile-prefix-map=${CMAKE_BINARY_DIR}=build\"")
    endif()
  endforeach()
endif()

set(CMAKE_C_COMPILER "${_ulto_bin}/ulto-clang")
set(CMAKE_CXX_COMPILER "${_ulto_bin}/ulto-clang++")
# CMake finds these beside the compiler too; named here so that a cache from
# another compiler cannot keep an older llvm-ar.
set(CMAKE_AR "${_ulto_bin}/llvm-ar" CACHE FILEPATH "Archiver" FORCE)
set(CMAKE_RANLIB "${_ulto_bin}/llvm-ranlib" CACHE FILEPATH "Ranlib" FORCE)

# ld.ulto for every link, LTO or not.
foreach(_ulto_kind EXE SHARED MODULE)
  set(CMAKE_${_ulto_kind}_LINKER_FLAGS_INIT "-fuse-ld=ulto")
endforeach()

# LTO for every target unless it says otherwise; the IPO options are ulto's.
set(CMAKE_INTERPROCEDURAL_OPTIMIZATION ON)
# IPO needs policy CMP0069 NEW. cmake_minimum_required() below 3.9 leaves it
# unset and takes this default, but the top level's ran before this file was
# read: ulto-policies.cmake sets it there.
set(CMAKE_POLICY_DEFAULT_CMP0069 NEW)
set(_ulto_policies "${_ulto_dir}/ulto-policies.cmake")
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.24)
  # This file is read more than once per configure; no IN_LIST, which old
  # projects' policies (CMP0057) do not allow.
  list(FIND CMAKE_PROJECT_TOP_LEVEL_INCLUDES "${_ulto_policies}" _ulto_found)
  if(_ulto_found EQUAL -1)
    list(APPEND CMAKE_PROJECT_TOP_LEVEL_INCLUDES "${_ulto_policies}")
  endif()
else()
  cmake_policy(GET CMP0069 _ulto_cmp0069)
  get_property(_ulto_warned GLOBAL PROPERTY ULTO_CMP0069_WARNED)
  if(NOT _ulto_cmp0069 STREQUAL "NEW" AND NOT _ulto_warned)
    set_property(GLOBAL PROPERTY ULTO_CMP0069_WARNED TRUE)
    message(WARNING "ulto.cmake: this project's cmake_minimum_required() "
                    "leaves policy CMP0069 unset, and CMake ${CMAKE_VERSION} "
                    "(before 3.24) cannot set it for the top-level directory: "
                    "its targets are compiled without ulto's LTO; configure "
                    "with -DCMAKE_POLICY_DEFAULT_CMP0069=NEW")
  endif()
endif()
set(CMAKE_USER_MAKE_RULES_OVERRIDE_C "${_ulto_dir}/ulto-rules.cmake")
set(CMAKE_USER_MAKE_RULES_OVERRIDE_CXX "${_ulto_dir}/ulto-rules.cmake")
# try_compile() projects see the same cache variables.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ULTO_LTO_MODE ULTO_DIST_OPTIONS
     ULTO_UNIFIED_LTO_PIPELINE ULTO_FAT_OBJECTS ULTO_RELOCATABLE)
unset(_ulto_bin)
unset(_ulto_dir)
unset(_ulto_kind)
unset(_ulto_lang)
unset(_ulto_policies)
unset(_ulto_cmp0069)
unset(_ulto_warned)
unset(_ulto_found)
