# Read by CMake after its Clang settings (CMAKE_USER_MAKE_RULES_OVERRIDE_<LANG>,
# set by ulto.cmake), once per language: INTERPROCEDURAL_OPTIMIZATION means
# ulto's unified LTO in ULTO_LTO_MODE. CMake links with the compile flags, so
# the link gets -flto=<mode> too and ulto-clang passes --lto=<mode> to
# ld.ulto; -fuse-ld=ulto is here as well because a project's or user's
# CMAKE_<KIND>_LINKER_FLAGS replace ulto.cmake's _INIT flags. ULTO_FAT_OBJECTS
# adds native code to every object; ld.ulto's LTO links take the bitcode.
foreach(_ulto_lang C CXX)
  set(CMAKE_${_ulto_lang}_COMPILE_OPTIONS_IPO
      "-flto=${ULTO_LTO_MODE}" "-funified-lto"
      "-funified-lto-pipeline=${ULTO_UNIFIED_LTO_PIPELINE}")
  if(ULTO_FAT_OBJECTS)
    list(APPEND CMAKE_${_ulto_lang}_COMPILE_OPTIONS_IPO "-ffat-lto-objects")
  endif()
  set(CMAKE_${_ulto_lang}_LINK_OPTIONS_IPO "-fuse-ld=ulto")
  if(ULTO_LTO_MODE STREQUAL "distributed")
    foreach(_ulto_opt IN LISTS ULTO_DIST_OPTIONS)
      list(APPEND CMAKE_${_ulto_lang}_LINK_OPTIONS_IPO "-Wl,${_ulto_opt}")
    endforeach()
  endif()
endforeach()
unset(_ulto_lang)
unset(_ulto_opt)
