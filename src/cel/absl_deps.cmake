# Abseil's time library for the CEL time zone accessors (lib/time_library.cc:
# absl::LoadTimeZone, absl::ToCivilSecond). Debian package libabsl-dev, which
# installs a CMake package config; time zone data comes from tzdata
# (/usr/share/zoneinfo, or $TZDIR). Included by src/cel/CMakeLists.txt after
# the dralloc_cel target is defined.
find_package(absl REQUIRED CONFIG)
target_link_libraries(dralloc_cel PUBLIC absl::time)
