# X_AC_CXX20
# ----------
# Make $CXX compile C++20 (adds -std=c++20 when the default is older).
AC_DEFUN([X_AC_CXX20], [
  AC_LANG_PUSH([C++])
  AC_CACHE_CHECK([whether $CXX supports C++20], [fw_cv_cxx20], [
    fw_cv_cxx20=no
    for fw_flag in "" "-std=c++20" "-std=c++2a"; do
      fw_save_CXX="$CXX"
      CXX="$CXX $fw_flag"
      AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#include <span>
#include <concepts>
#if __cplusplus < 202002L
#error not C++20
#endif
template <std::integral T> T twice(T x) { return 2 * x; }
]], [[int a[2] = {1, 2}; std::span<int> s(a); return twice(static_cast<int>(s.size())) - 4;]])],
        [fw_cv_cxx20="$fw_flag"; test -z "$fw_flag" && fw_cv_cxx20=default])
      CXX="$fw_save_CXX"
      test "x$fw_cv_cxx20" != xno && break
    done])
  AS_IF([test "x$fw_cv_cxx20" = xno], [AC_MSG_ERROR([$CXX does not compile C++20; install g++ 10 or later])])
  AS_IF([test "x$fw_cv_cxx20" != xdefault], [CXX="$CXX $fw_cv_cxx20"])
  AC_LANG_POP([C++])
])
