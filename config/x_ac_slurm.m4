# X_AC_SLURM
# ----------
# Find a configured Slurm source tree (internal headers + config.h) of exactly the
# version of the installed Slurm, for building the plugin against slurmctld's ABI.
#   --with-slurm-prefix=P     a Slurm installed under P (scripts/slurm-source --version V
#                             builds one): its headers (P/include), libslurm (P/lib), its
#                             slurmctld (P/sbin) for the version check, and its plugin
#                             directory (P/lib/slurm) as the library directory; default:
#                             the system's Slurm (/usr)
#   --with-slurm-source=DIR   unpacked Slurm source (src/slurmctld/slurmctld.h inside)
#   --with-slurm-build=DIR    where Slurm's configure ran (config.h, slurm/slurm_version.h);
#                             default: DIR itself, or ../build beside it (scripts/slurm-source)
# Without --with-slurm-source, the cache of scripts/slurm-source is used when it holds
# the installed version.
#   --with-slurm-libdir=DIR   the installed Slurm's library directory: libslurmfull.so and
#                             the plugins slurmctld loads (priority_multifactor.so), for the
#                             differential tests and benchmarks; default: slurmctld's (ldd),
#                             else the first of LIBDIR/slurm, LIBDIR/slurm-wlm,
#                             /usr/lib/<multiarch>/slurm-wlm, /usr/lib64/slurm, /usr/lib/slurm,
#                             /usr/local/lib/slurm that has libslurmfull.so
# Substitutes SLURM_SRC, SLURM_BUILD, SLURM_CPPFLAGS, SLURM_VERSION_STRING,
# SLURM_VERSION_NUMBER and SLURM_LIBDIR (empty when not found: AM_CONDITIONAL
# HAVE_SLURM_LIBDIR is false, and the programs that need libslurmfull are not built).
AC_DEFUN([X_AC_SLURM], [
  AC_ARG_WITH([slurm-source],
    [AS_HELP_STRING([--with-slurm-source=DIR],
      [configured Slurm source tree of the installed version (see scripts/slurm-source)])],
    [fw_slurm_src="$withval"], [fw_slurm_src=])
  AC_ARG_WITH([slurm-build],
    [AS_HELP_STRING([--with-slurm-build=DIR],
      [directory where Slurm's configure ran, if not the source tree])],
    [fw_slurm_build="$withval"], [fw_slurm_build=])
  AC_ARG_WITH([slurm-prefix],
    [AS_HELP_STRING([--with-slurm-prefix=P],
      [the Slurm to build for, installed under P (default: the system's, /usr)])],
    [fw_slurm_prefix="$withval"], [fw_slurm_prefix=])
  AS_IF([test -n "$fw_slurm_prefix"], [
    AS_IF([test -r "$fw_slurm_prefix/include/slurm/slurm_version.h" && test -x "$fw_slurm_prefix/sbin/slurmctld"], [
      fw_slurm_prefix=`cd "$fw_slurm_prefix" && pwd`],
      [AC_MSG_ERROR([--with-slurm-prefix=$fw_slurm_prefix holds no installed Slurm (no include/slurm/slurm_version.h or sbin/slurmctld): pass the prefix scripts/slurm-source printed])])])
  AC_ARG_WITH([slurm-include],
    [AS_HELP_STRING([--with-slurm-include=DIR],
      [installed public Slurm headers (default PREFIX/include, or /usr/include)])],
    [fw_slurm_inc="$withval"], [fw_slurm_inc=${fw_slurm_prefix:-/usr}/include])

  # The installed Slurm: its public slurm_version.h and, if present, slurmctld -V.
  fw_inst_hdr="$fw_slurm_inc/slurm/slurm_version.h"
  AS_IF([test -r "$fw_inst_hdr"], [],
    [AC_MSG_ERROR([Slurm's public headers were not found at $fw_inst_hdr: install libslurm-dev (scripts/install-deps) or pass --with-slurm-include=DIR])])
  fw_inst_num=`sed -n 's/^#define SLURM_VERSION_NUMBER \(0x@<:@0-9a-fA-F@:>@*\).*/\1/p' "$fw_inst_hdr"`
  AS_IF([test -n "$fw_inst_num"], [],
    [AC_MSG_ERROR([$fw_inst_hdr defines no SLURM_VERSION_NUMBER])])
  fw_inst_ver=`printf '%d.%02d.%d' $(( fw_inst_num >> 16 )) $(( (fw_inst_num >> 8) & 255 )) $(( fw_inst_num & 255 ))`

  AC_MSG_CHECKING([for a configured Slurm source tree])
  AS_IF([test -z "$fw_slurm_src" && test -z "$fw_slurm_build"], [
    fw_cache="${FAIRWAY_SLURM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fairway/slurm}"
    for fw_d in "$fw_cache"/*/; do
      test -r "$fw_d/build/slurm/slurm_version.h" || continue
      fw_n=`sed -n 's/^#define SLURM_VERSION_NUMBER \(0x@<:@0-9a-fA-F@:>@*\).*/\1/p' "$fw_d/build/slurm/slurm_version.h"`
      if test "x$fw_n" = "x$fw_inst_num"; then
        for fw_s in "$fw_d"slurm*/; do
          test -r "$fw_s/src/slurmctld/slurmctld.h" && fw_slurm_src=`cd "$fw_s" && pwd`
        done
        fw_slurm_build=`cd "$fw_d/build" && pwd`
      fi
    done
  ])
  AS_IF([test -z "$fw_slurm_src" || test "x$fw_slurm_src" = xyes || test "x$fw_slurm_src" = xno], [
    AC_MSG_RESULT([no])
    AC_MSG_ERROR([no Slurm source tree: run 'scripts/slurm-source' (fetches and configures Debian's source of the installed Slurm) and pass --with-slurm-source=DIR])])
  AS_IF([test -r "$fw_slurm_src/src/slurmctld/slurmctld.h"], [],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([--with-slurm-source=$fw_slurm_src is not a Slurm source tree (no src/slurmctld/slurmctld.h): run 'scripts/slurm-source' and use the first directory it prints])])
  fw_slurm_src=`cd "$fw_slurm_src" && pwd`
  AS_IF([test -z "$fw_slurm_build"], [
    AS_IF([test -r "$fw_slurm_src/config.h"], [fw_slurm_build="$fw_slurm_src"],
          [test -r "$fw_slurm_src/../build/config.h"], [fw_slurm_build=`cd "$fw_slurm_src/../build" && pwd`])])
  AS_IF([test -n "$fw_slurm_build" && test -r "$fw_slurm_build/config.h" && test -r "$fw_slurm_build/slurm/slurm_version.h"], [],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([Slurm source at $fw_slurm_src has not been configured (no config.h / slurm/slurm_version.h): run 'scripts/slurm-source', or pass --with-slurm-build=DIR where Slurm's configure ran])])
  AC_MSG_RESULT([$fw_slurm_src])

  AC_MSG_CHECKING([whether the Slurm source matches the installed Slurm $fw_inst_ver])
  fw_src_ver=`sed -n 's/^#define SLURM_VERSION_STRING "\(.*\)"/\1/p' "$fw_slurm_build/config.h"`
  fw_src_num=`sed -n 's/^#define SLURM_VERSION_NUMBER \(0x@<:@0-9a-fA-F@:>@*\).*/\1/p' "$fw_slurm_build/slurm/slurm_version.h"`
  AS_IF([test "x$fw_src_num" = "x$fw_inst_num"], [AC_MSG_RESULT([yes ($fw_src_ver)])],
    [AC_MSG_RESULT([no])
     AC_MSG_ERROR([Slurm source is version $fw_src_ver but the installed libslurm headers are $fw_inst_ver: slurmctld only loads plugins built for its exact version; run 'scripts/slurm-source --version <installed Debian version>'])])
  AS_IF([test -n "$fw_slurm_prefix"], [SLURMCTLD="$fw_slurm_prefix/sbin/slurmctld"],
    [AC_PATH_PROG([SLURMCTLD], [slurmctld], [], [$PATH:/usr/sbin:/sbin])])
  AS_IF([test -n "$SLURMCTLD"], [
    AC_MSG_CHECKING([whether slurmctld is version $fw_src_ver])
    fw_ctld_ver=`"$SLURMCTLD" -V 2>/dev/null | sed -n 's/^slurm@<:@^ @:>@* \(@<:@0-9.@:>@*\).*/\1/p'`
    AS_IF([test "x$fw_ctld_ver" = "x$fw_src_ver"], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no ($fw_ctld_ver)])
       AC_MSG_ERROR([the installed slurmctld is $fw_ctld_ver but the Slurm source is $fw_src_ver: the plugin would not load; fetch the matching source with scripts/slurm-source])])])

  AC_ARG_WITH([slurm-libdir],
    [AS_HELP_STRING([--with-slurm-libdir=DIR],
      [the installed Slurm's libslurmfull.so and plugins (default: searched)])],
    [fw_slurm_libdir="$withval"], [fw_slurm_libdir=])
  AC_MSG_CHECKING([for the installed Slurm's library directory])
  AS_IF([test -n "$fw_slurm_libdir"], [
    AS_IF([test -r "$fw_slurm_libdir/libslurmfull.so"], [],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--with-slurm-libdir=$fw_slurm_libdir has no libslurmfull.so: pass the directory of the installed Slurm's libslurmfull.so and plugins (Debian: /usr/lib/<multiarch>/slurm-wlm, Slurm's RPMs: /usr/lib64/slurm)])])
  ], [
    # LIBDIR as `make install` will expand it.
    fw_save_prefix=$prefix fw_save_exec_prefix=$exec_prefix
    test "x$prefix" = xNONE && prefix=$ac_default_prefix
    test "x$exec_prefix" = xNONE && exec_prefix=$prefix
    eval fw_libdir="$libdir"
    eval fw_libdir="$fw_libdir"
    prefix=$fw_save_prefix exec_prefix=$fw_save_exec_prefix
    fw_multiarch=`$CC -print-multiarch 2>/dev/null`
    fw_ctld_libdir=
    AS_IF([test -n "$fw_slurm_prefix"], [fw_ctld_libdir="$fw_slurm_prefix/lib/slurm"],
          [test -n "$SLURMCTLD"],
      [fw_ctld_libdir=`ldd "$SLURMCTLD" 2>/dev/null | sed -n 's|^@<:@@<:@:space:@:>@@:>@*libslurmfull\.so => \(/.*\)/libslurmfull\.so .*|\1|p'`])
    for fw_d in $fw_ctld_libdir "$fw_libdir/slurm" "$fw_libdir/slurm-wlm" \
        ${fw_multiarch:+"/usr/lib/$fw_multiarch/slurm-wlm"} /usr/lib64/slurm /usr/lib/slurm \
        /usr/local/lib/slurm; do
      AS_IF([test -r "$fw_d/libslurmfull.so"], [fw_slurm_libdir=$fw_d; break])
    done
  ])
  AS_IF([test -n "$fw_slurm_libdir"], [AC_MSG_RESULT([$fw_slurm_libdir])],
    [AC_MSG_RESULT([not found])
     AC_MSG_WARN([libslurmfull.so of the installed Slurm was not found: the differential tests, the soak and make bench need it and are not built; pass --with-slurm-libdir=DIR])])

  AS_IF([test -n "$fw_slurm_prefix" && test -n "$fw_slurm_libdir" && test "x$fw_slurm_libdir" != "x$fw_slurm_prefix/lib/slurm"],
    [AC_MSG_WARN([--with-slurm-libdir=$fw_slurm_libdir is not the plugin directory of --with-slurm-prefix=$fw_slurm_prefix])])
  SLURM_PREFIX="$fw_slurm_prefix"
  AC_SUBST([SLURM_PREFIX])
  SLURM_LIBDIR="$fw_slurm_libdir"
  SLURM_SRC="$fw_slurm_src"
  SLURM_BUILD="$fw_slurm_build"
  SLURM_VERSION_STRING="$fw_src_ver"
  SLURM_VERSION_NUMBER="$fw_src_num"
  SLURM_CPPFLAGS="-DHAVE_CONFIG_H -I$fw_slurm_build -I$fw_slurm_src -I$fw_slurm_src/src/common"
  AC_SUBST([SLURM_SRC])
  AC_SUBST([SLURM_BUILD])
  AC_SUBST([SLURM_VERSION_STRING])
  AC_SUBST([SLURM_VERSION_NUMBER])
  AC_SUBST([SLURM_CPPFLAGS])
  AC_SUBST([SLURM_LIBDIR])
  AM_CONDITIONAL([HAVE_SLURM_LIBDIR], [test -n "$SLURM_LIBDIR"])
])
