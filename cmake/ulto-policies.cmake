# Read at the end of a project's first project() call, in the top-level
# directory's policy scope (CMAKE_PROJECT_TOP_LEVEL_INCLUDES, set by
# ulto.cmake). Without policy CMP0069 NEW, CMake ignores
# INTERPROCEDURAL_OPTIMIZATION, so every object would be native. A top-level
# cmake_minimum_required() below 3.9 leaves the policy unset, and it ran before
# the toolchain file's CMAKE_POLICY_DEFAULT_CMP0069 existed: set it here.
# A project that chose OLD keeps its choice, and is told what it costs.
cmake_policy(GET CMP0069 _ulto_cmp0069)
if(_ulto_cmp0069 STREQUAL "")
  cmake_policy(SET CMP0069 NEW)
elseif(_ulto_cmp0069 STREQUAL "OLD")
  message(WARNING "ulto.cmake: this project sets policy CMP0069 to OLD, so "
                  "CMake ignores INTERPROCEDURAL_OPTIMIZATION and compiles its "
                  "targets without ulto's LTO")
endif()
unset(_ulto_cmp0069)
