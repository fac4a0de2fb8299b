# X_AC_GTEST
# ----------
# GoogleTest/GoogleMock for 'make check' (Debian: libgtest-dev, libgmock-dev) and Google
# Benchmark for 'make bench' (libbenchmark-dev).  Without them the library, plugin and
# CLI still build; the test programs then explain what to install instead of running.
AC_DEFUN([X_AC_GTEST], [
  PKG_CHECK_MODULES([GTEST], [gtest_main gmock], [fw_have_gtest=yes],
    [fw_have_gtest=no
     AC_MSG_WARN([GoogleTest/GoogleMock not found (install libgtest-dev libgmock-dev): 'make check' will fail])])
  AM_CONDITIONAL([HAVE_GTEST], [test "x$fw_have_gtest" = xyes])
  PKG_CHECK_MODULES([BENCHMARK], [benchmark], [fw_have_benchmark=yes], [fw_have_benchmark=no])
  AM_CONDITIONAL([HAVE_BENCHMARK], [test "x$fw_have_benchmark" = xyes])
])
