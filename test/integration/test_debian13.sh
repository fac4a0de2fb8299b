#!/usr/bin/env bash
# shellcheck disable=SC2317  # (functions are called through traps)
# Fairway on Debian 13 (trixie) as a Debian 13 site has it: Debian's own Slurm packages
# (slurmctld 24.11.x from Debian, built with Debian's flags and patches), in a trixie
# chroot that scripts/debian-chroot makes with debootstrap (cached in
# ~/.cache/fairway/chroot/trixie, reused when complete).  In the chroot: scripts/build and
# `make deb` against Debian's source package of the installed slurmctld
# (scripts/slurm-source), or FAIRWAY_DEB13 names the .deb; its control fields say it is
# for exactly that slurmctld and put the plugin in Debian's plugin directory; `apt-get
# install ./fairway_*.deb`; test_parity.sh in the chroot (Debian's own munged, MariaDB,
# slurmdbd, slurmctld and slurmd on loopback ports, priority/multifactor, then
# priority/fairway from the installed package, then multifactor again: sshare, sprio -l,
# sprio -n -l and squeue identical); every daemon stopped; `apt-get purge fairway` leaves
# none of the package's files; nothing of the chroot stays mounted, no process runs in it.
#
# Runs as root on the Debian 12 host, which reaches Debian's archive (the mirror of its
# own apt sources).  The first run makes the chroot (debootstrap and the packages:
# minutes); later runs reuse it.
#
# Environment:
#   FAIRWAY_DEB13        a fairway_*.deb built for the chroot's slurmctld, instead of
#                        building one in the chroot
#   FAIRWAY_CHROOT_CACHE where the chroot lives (default ~/.cache/fairway/chroot)
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

CHROOT_TOOL=$FW_ROOT/scripts/debian-chroot
if [ "$(id -u)" -ne 0 ]; then
	fail "root" "debootstrap, chroot and mount need root; run the test as root"
	finish
fi
for tool in debootstrap unshare chroot dpkg-deb; do
	PATH=$PATH:/usr/sbin:/sbin command -v "$tool" >/dev/null ||
		{ fail "tool $tool" "not installed (scripts/install-deps)"; finish; }
done

# --- the chroot ----------------------------------------------------------------------
t0=$SECONDS
out="" && tmpfile out
if CH=$("$CHROOT_TOOL" 2>"$out"); then
	pass "trixie chroot ready in $CH ($((SECONDS - t0))s)"
	[ ! -s "$out" ] || log "$(cat "$out")"
else
	fail "trixie chroot" "$(tail -n 15 "$out")"
	finish
fi
# run COMMAND... in the chroot, in /fairway (this source tree)
in_chroot() { "$CHROOT_TOOL" -- "$@"; }
# the chroot's own file PATH, seen from here
inside() { echo "$CH$1"; }

CTLD_VERSION=$(chroot "$CH" dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
SLURM_VERSION=$(in_chroot /usr/sbin/slurmctld -V 2>/dev/null | awk '{print $2}' || true)
PLUGINDIR=$(in_chroot ldd /usr/sbin/slurmctld 2>/dev/null |
	sed -n 's|^[[:space:]]*libslurmfull\.so => \(/.*\)/libslurmfull\.so .*|\1|p' || true)
log "chroot: Debian $(cat "$CH/etc/debian_version"), slurmctld $CTLD_VERSION (Slurm $SLURM_VERSION), plugins in $PLUGINDIR"
if [ -z "$CTLD_VERSION" ] || [ -z "$SLURM_VERSION" ] || [ -z "$PLUGINDIR" ]; then
	fail "Debian's slurmctld in the chroot" "version '$CTLD_VERSION', slurmctld -V '$SLURM_VERSION', plugin dir '$PLUGINDIR'"
	finish
fi
assert_match "the chroot is Debian 13" '^13(\.|$)' "$(cat "$CH/etc/debian_version")"
check "Debian's priority_multifactor.so lies in $PLUGINDIR" test -f "$(inside "$PLUGINDIR")/priority_multifactor.so"

# Whatever happens from here on: the package goes, the daemons stop (test_parity.sh stops
# its own testbed; anything left running in the chroot is named by the checks below).
INSTALLED=0
on_exit() {
	local rc=$?
	set +e
	if [ "$INSTALLED" = 1 ]; then
		in_chroot dpkg -P fairway >/dev/null 2>&1
		[ "$_FINISHED" = 1 ] || log "removed the package on the way out (dpkg -P fairway)"
	fi
	(exit "$rc")
	_cleanup
}
trap on_exit EXIT

# --- the package: built in the chroot, or FAIRWAY_DEB13 ---------------------------------
BUILD=/root/fairway-build
if [ -n "${FAIRWAY_DEB13:-}" ]; then
	[ -f "$FAIRWAY_DEB13" ] || { fail "FAIRWAY_DEB13" "$FAIRWAY_DEB13: no such file"; finish; }
	DEB=$FAIRWAY_DEB13
	log "testing FAIRWAY_DEB13=$DEB"
else
	# A copy of this tree without its builds, bootstrapped with the chroot's autotools
	# (the host's own configure and _build stay as they are), configured as scripts/build
	# configures against scripts/slurm-source's tree of the chroot's Slurm; `make deb`
	# compiles it once, in dpkg-buildpackage.
	t0=$SECONDS
	build_log=$(inside /root/fairway-build.log)
	if in_chroot /bin/bash -c "set -euo pipefail
		rm -rf /root/fairway-src $BUILD && mkdir -p /root/fairway-src $BUILD
		tar -C /fairway --exclude=./.git --exclude='./_build*' -cf - . | tar -C /root/fairway-src -xf -
		cd /root/fairway-src && ./bootstrap >$BUILD/bootstrap.log 2>&1
		mapfile -t slurm < <(scripts/slurm-source)
		cd $BUILD && /root/fairway-src/configure -q --with-slurm-source=\${slurm[0]} --with-slurm-build=\${slurm[1]}
		nice make -C $BUILD deb DEB_BUILD_OPTIONS='nocheck parallel=2'" >"$build_log" 2>&1; then
		pass "configure and make deb in the chroot ($((SECONDS - t0))s)"
	else
		fail "configure and make deb in the chroot" "$(tail -n 20 "$build_log")"
		finish
	fi
	DEB=$(grep -E '/fairway_[^/]+\.deb$' "$build_log" | head -n 1 || true)
	[ -z "$DEB" ] || DEB=$(inside "$DEB")
	check "make deb printed the package" test -f "$DEB"
fi
[ -f "$DEB" ] || { fail "package" "'$DEB': no such file"; finish; }
log "package: $DEB ($(stat -c %s "$DEB") bytes)"

# --- what the package says --------------------------------------------------------------
ctl() { dpkg-deb -f "$DEB" "$1"; }
log "control fields: $(dpkg-deb -f "$DEB" Package Version Architecture Depends | tr '\n' ';')"
assert_eq "Package" fairway "$(ctl Package)"
assert_eq "Architecture" "$(chroot "$CH" dpkg --print-architecture)" "$(ctl Architecture)"
deb_version=$(ctl Version)
assert_match "Version names Slurm $SLURM_VERSION" "^[0-9][^-]*-[0-9]+\+slurm${SLURM_VERSION//./\\.}\$" "$deb_version"
assert_eq "Depends on exactly the chroot's slurmctld" "slurmctld (= $CTLD_VERSION)" \
	"$(ctl Depends | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -E '^slurmctld\b' || true)"
files=$(dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|')
if grep -qx "${PLUGINDIR}/priority_fairway.so" <<<"$files"; then
	pass "plugin in Debian's plugin directory $PLUGINDIR"
else
	fail "plugin in Debian's plugin directory $PLUGINDIR" "$(grep priority_fairway <<<"$files" || echo none)"
fi
check "fairway command in /usr/bin" grep -qx /usr/bin/fairway <<<"$files"
status_before=$(chroot "$CH" dpkg-query -W -f='${db:Status-Abbrev}' fairway 2>/dev/null || true)
case $status_before in
"" | un* | pn*) pass "fairway not installed in the chroot before" ;;
*) fail "fairway not installed in the chroot before" "dpkg says '$status_before' (dpkg -P fairway in $CH)"; finish ;;
esac

# --- apt-get install ./fairway_*.deb ----------------------------------------------------
pkg=/tmp/${DEB##*/}
cp "$DEB" "$(inside "$pkg")"
INSTALLED=1
if out2=$(in_chroot apt-get install -y -q --no-install-recommends "$pkg" 2>&1); then
	pass "apt-get install ./${DEB##*/} in the chroot"
else
	fail "apt-get install ./${DEB##*/}" "$(tail -n 8 <<<"$out2")"
	finish
fi
rm -f "$(inside "$pkg")"
assert_eq "dpkg-query: installed" "ii $deb_version" \
	"$(chroot "$CH" dpkg-query -W -f='${db:Status-Abbrev}${Version}' fairway 2>/dev/null | tr -s ' ')"
assert_eq "dpkg --verify fairway" "" "$(chroot "$CH" dpkg --verify fairway 2>&1)"
pkg_files=$(chroot "$CH" dpkg -L fairway)
regular=""
for p in $pkg_files; do [ -d "$(inside "$p")" ] || regular+="$p "; done
check "plugin installed in $PLUGINDIR" test -f "$(inside "$PLUGINDIR")/priority_fairway.so"
assert_eq "the installed fairway runs" "fairway ${deb_version%%-*}" "$(in_chroot fairway --version 2>&1)"

# --- parity: Debian's multifactor and the packaged fairway, in the chroot ----------------
# test_parity.sh's testbed runs the chroot's own daemons; its PluginDir is Debian's plugin
# directory (where both plugins lie), and its snapshot check uses the packaged fairway.
t0=$SECONDS
parity_log=$(inside /root/parity.log)
in_chroot /bin/bash -c "mkdir -p /root/fairway-cli/tools && ln -sf /usr/bin/fairway /root/fairway-cli/tools/fairway
	FAIRWAY_PLUGIN_DIR=$PLUGINDIR FAIRWAY_BUILD_DIR=/root/fairway-cli bash test/integration/test_parity.sh" \
	>"$parity_log" 2>&1 || true
log "test_parity.sh in the chroot: $(tail -n 1 "$parity_log") ($((SECONDS - t0))s; log: $parity_log)"
grep -E '^\[test_parity' "$parity_log" | grep -E 'starting testbed|age bound' || true
# a daemon that did not start: what the testbed quoted from its log
grep -E '^  \| |^testbed: ' "$parity_log" | head -n 12 || true
while IFS= read -r line; do
	case $line in
	"PASS: "*) pass "Debian 13 parity: ${line#PASS: }" ;;
	"FAIL: "*) fail "Debian 13 parity: ${line#FAIL: }" ;;
	esac
done <"$parity_log"
assert_match "test_parity.sh in the chroot ended with 0 failed" '^[1-9][0-9]* passed, 0 failed$' "$(tail -n 1 "$parity_log")"
grep -q '^PASS: sprio -l: multifactor = fairway$' "$parity_log" || fail "parity compared sprio -l" "see $parity_log"

# Every daemon stopped: no process runs with the chroot as its root.
left=""
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/root" 2>/dev/null)" = "$CH" ] && left+="${p#/proc/}:$(tr '\0' ' ' <"$p/cmdline" | cut -c1-60); "
done
assert_eq "no process left running in the chroot" "" "$left"

# --- apt-get purge: nothing of the package left ------------------------------------------
if out2=$(in_chroot apt-get purge -y -q fairway 2>&1); then
	pass "apt-get purge fairway in the chroot"
else
	fail "apt-get purge fairway" "$(tail -n 5 <<<"$out2")"
fi
INSTALLED=0
gone=""
for p in $regular; do [ -e "$(inside "$p")" ] || [ -L "$(inside "$p")" ] && gone+="$p "; done
assert_eq "no file of the package left (dpkg -L before the purge)" "" "$gone"
check "Debian's own plugins still there" test -f "$(inside "$PLUGINDIR")/priority_multifactor.so"
status_after=$(chroot "$CH" dpkg-query -W -f='${db:Status-Abbrev}' fairway 2>/dev/null || true)
case $status_after in
"" | un* | pn*) pass "fairway not installed after the purge" ;;
*) fail "fairway not installed after the purge" "dpkg says '$status_after'" ;;
esac
assert_eq "nothing of the chroot mounted (/proc/mounts)" "" "$(grep -F " $CH" /proc/mounts || true)"

finish
