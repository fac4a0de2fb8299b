# X_AC_HEADER_LIBS
# ----------------
# The header-only C++ libraries Fairway uses (nlohmann-json, CLI11, fmt in header-only
# mode): fail with the Debian package to install when one is missing.
AC_DEFUN([X_AC_HEADER_LIBS], [
  AC_LANG_PUSH([C++])
  AC_CHECK_HEADER([nlohmann/json.hpp], [],
    [AC_MSG_ERROR([nlohmann/json.hpp not found: install nlohmann-json3-dev (scripts/install-deps)])])
  AC_CHECK_HEADER([CLI/CLI.hpp], [],
    [AC_MSG_ERROR([CLI/CLI.hpp not found: install libcli11-dev (scripts/install-deps)])])
  fw_save_CPPFLAGS="$CPPFLAGS"
  CPPFLAGS="$CPPFLAGS -DFMT_HEADER_ONLY"
  AC_CHECK_HEADER([fmt/format.h], [],
    [AC_MSG_ERROR([fmt/format.h not found: install libfmt-dev (scripts/install-deps)])])
  CPPFLAGS="$fw_save_CPPFLAGS"
  AC_LANG_POP([C++])
])
