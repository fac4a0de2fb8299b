#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for and traps)
# The Debian package, end to end: `make deb` in the build directory builds the .deb from
# `make dist`'s tarball (or FAIRWAY_DEB names one); its control fields say it is for
# exactly the installed slurmctld (Depends: slurmctld (= its Debian version), Version
# ...+slurmX.Y.Z); `dpkg -i` installs it on this machine; the plugin lies in the directory
# slurmctld loads plugins from; a real slurmctld, whose PluginDir holds no build tree,
# loads priority/fairway from there and gives a pending job a nonzero priority; `dpkg -r`
# removes the files and `dpkg -P` the package, leaving the machine as it was.
#
# Runs as root (dpkg -i).  The package is removed at the end, also when the test fails or
# is interrupted.  The test fails without touching anything where a fairway package is
# installed already or a file of the package exists (e.g. from `make install`): dpkg
# would take it over, and the removal at the end would delete it.
#
# Environment:
#   FAIRWAY_BUILD_DIR   a configured Fairway build directory (scripts/check exports it;
#                       the test FAILS, never skips, without it unless FAIRWAY_DEB is set)
#   FAIRWAY_DEB         a fairway_*.deb to test instead of building one with `make deb`
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

B=${FAIRWAY_BUILD_DIR:-}
DEB=${FAIRWAY_DEB:-}
if [ -z "$DEB" ]; then
	if [ -z "$B" ]; then
		fail "FAIRWAY_BUILD_DIR" "not set (point it at a configured Fairway build directory, as scripts/check does, or FAIRWAY_DEB at a .deb)"
		finish
	fi
	if [ ! -f "$B/Makefile" ]; then
		fail "FAIRWAY_BUILD_DIR" "$B/Makefile is missing (configure Fairway there first: scripts/build $B)"
		finish
	fi
fi
for tool in dpkg dpkg-deb dpkg-query readelf; do
	command -v "$tool" >/dev/null || { fail "tool $tool" "not installed (scripts/install-deps)"; finish; }
done
if [ "$(id -u)" -ne 0 ]; then
	fail "root" "dpkg -i needs root; run the test as root"
	finish
fi

# What the package must say: the installed slurmctld, and where it loads plugins from
# (the directory of its libslurmfull.so, where Slurm's own plugins lie; as scripts/testbed
# finds it).
CTLD_DEB_VERSION=$(dpkg-query -W -f='${Version}' slurmctld 2>/dev/null || true)
ctld=$(PATH=$PATH:/usr/sbin:/sbin command -v slurmctld || true)
if [ -z "$CTLD_DEB_VERSION" ] || [ -z "$ctld" ]; then
	fail "slurmctld installed" "no slurmctld package (scripts/install-deps)"
	finish
fi
SLURM_VERSION=$("$ctld" -V | awk '{print $2}')
PLUGINDIR=$(ldd "$ctld" | sed -n 's|^[[:space:]]*libslurmfull\.so => \(/.*\)/libslurmfull\.so .*|\1|p')
log "slurmctld $CTLD_DEB_VERSION (Slurm $SLURM_VERSION), plugins in $PLUGINDIR"
check "Slurm's own priority_multifactor.so lies in $PLUGINDIR" test -f "$PLUGINDIR/priority_multifactor.so"

# --- make deb ------------------------------------------------------------------------
VERSION=""
if [ -n "$DEB" ]; then
	log "testing FAIRWAY_DEB=$DEB"
else
	out="" && tmpfile out
	t0=$SECONDS
	if make -C "$B" deb DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" >"$out" 2>&1; then
		pass "make deb ($((SECONDS - t0))s)"
	else
		fail "make deb" "$(tail -n 15 "$out")"
		finish
	fi
	DEB=$(grep -E '/fairway_[^/]+\.deb$' "$out" | head -n 1 || true)
	log "package: $DEB"
	check "make deb printed the package" test -f "$DEB"
	check "make deb built the debug symbols package" test -f "${DEB%/*}/fairway-dbgsym_${DEB##*/fairway_}"
	# (read after `make deb`: make dist may have re-run configure)
	VERSION=$(sed -n 's/^PACKAGE_VERSION = //p' "$B/Makefile" | head -n 1)
	log "build dir $B: Fairway $VERSION"
fi
[ -f "$DEB" ] || { fail "package" "$DEB: no such file"; finish; }
log "package size: $(stat -c %s "$DEB") bytes"

# --- what the package says --------------------------------------------------------------
ctl() { dpkg-deb -f "$DEB" "$1"; }
assert_eq "Package" fairway "$(ctl Package)"
assert_eq "Architecture" "$(dpkg --print-architecture)" "$(ctl Architecture)"
deb_version=$(ctl Version)
if [ -n "$VERSION" ]; then
	assert_eq "Version names the Slurm version" "$VERSION-1+slurm$SLURM_VERSION" "$deb_version"
else
	assert_match "Version names the Slurm version" "^[0-9][^-]*-[0-9]+\+slurm${SLURM_VERSION//./\\.}\$" "$deb_version"
fi
depends=$(ctl Depends)
log "Depends: $depends"
assert_eq "Depends on exactly the installed slurmctld" "slurmctld (= $CTLD_DEB_VERSION)" \
	"$(tr ',' '\n' <<<"$depends" | sed 's/^ *//; s/ *$//' | grep -E '^slurmctld\b' || true)"
assert_match "Depends on libslurm (the fairway command)" '(^|, )libslurm[0-9]+ ' "$depends"

files=$(dpkg-deb -c "$DEB" | awk '{print $6}' | sed 's|^\./|/|')
log "files: $(grep -v '/$' <<<"$files" | tr '\n' ' ')"
has_file() { # name regex
	if grep -Eq "^$2\$" <<<"$files"; then pass "$1"; else fail "$1" "no file matches ^$2\$"; fi
}
has_file "plugin in slurmctld's plugin directory $PLUGINDIR" "${PLUGINDIR//./\\.}/priority_fairway\.so"
has_file "fairway command in /usr/bin" '/usr/bin/fairway'
has_file "man page fairway(1)" '/usr/share/man/man1/fairway\.1\.gz'
has_file "man page priority_fairway(8)" '/usr/share/man/man8/priority_fairway\.8\.gz'
has_file "Prometheus rules" '/usr/share/fairway/prometheus/fairway\.rules\.yml'
has_file "doc README.md" '/usr/share/doc/fairway/README\.md(\.gz)?'
has_file "doc NEWS" '/usr/share/doc/fairway/NEWS(\.gz)?'
has_file "doc slurm.conf.fairway.example" '/usr/share/doc/fairway/slurm\.conf\.fairway\.example'
has_file "copyright" '/usr/share/doc/fairway/copyright'
has_file "changelog.Debian" '/usr/share/doc/fairway/changelog\.Debian\.gz'
assert_eq "no libtool archives, static or development files" "" \
	"$(grep -E '\.(la|a)$|/include/|\.so\.[0-9]' <<<"$files" || true)"
assert_eq "nothing outside /usr" "" "$(grep -vE '^/$|^/usr(/|$)' <<<"$files" || true)"
regular=$(dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|')

# --- the machine before: no fairway package, none of its files ------------------------
status_before=$(dpkg-query -W -f='${db:Status-Abbrev}' fairway 2>/dev/null || true)
case $status_before in
"" | un* | pn*) pass "fairway not installed before the test (status '${status_before% }')" ;;
*)
	fail "fairway not installed before the test" "dpkg says '$status_before': the test would replace and then remove it; remove it first (dpkg -P fairway)"
	finish
	;;
esac
present=""
for p in $regular; do [ -e "$p" ] && present+="$p "; done
if [ -n "$present" ]; then
	fail "no file of the package on the machine before" "$present(from 'make install'?): dpkg -i would take them over and the removal would delete them"
	finish
fi
pass "no file of the package on the machine before"

# --- dpkg -i ----------------------------------------------------------------------------
# Whatever happens from here on, the package goes again: at the end of the test (checked),
# or by this trap when the test fails on the way or is interrupted.
INSTALLED=0
remove_on_exit() {
	local rc=$?
	set +e
	if [ "$INSTALLED" = 1 ]; then
		[ -z "$TB_DIR" ] || "$TESTBED" stop "$TB_DIR" >/dev/null 2>&1 || true
		dpkg -P fairway >/dev/null 2>&1 || true
		# (after finish's summary line, which must stay the last line, say nothing)
		[ "$_FINISHED" = 1 ] || log "removed the package on the way out (dpkg -P fairway)"
	fi
	(exit "$rc")
	_cleanup
}
trap remove_on_exit EXIT

out2=""
INSTALLED=1
if out2=$(dpkg -i "$DEB" 2>&1); then
	pass "dpkg -i $(basename "$DEB")"
else
	fail "dpkg -i" "$(tail -n 5 <<<"$out2")"
	finish
fi
assert_eq "dpkg-query: installed" "ii $deb_version" \
	"$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' fairway 2>/dev/null | tr -s ' ')"
assert_eq "dpkg --verify fairway (files as packaged)" "" "$(dpkg --verify fairway 2>&1)"
SO=$PLUGINDIR/priority_fairway.so
CLI=/usr/bin/fairway
check "plugin installed in $PLUGINDIR" test -f "$SO"
assert_eq "dpkg -S: the plugin belongs to fairway" "fairway: $SO" "$(dpkg -S "$SO" 2>&1)"
for b in "$SO" "$CLI"; do
	assert_eq "no RPATH/RUNPATH in $b" "" "$(readelf -d "$b" | grep -E 'RPATH|RUNPATH' || true)"
	assert_match "RELRO in $b" 'GNU_RELRO' "$(readelf -lW "$b")"
	assert_match "stack protector in $b" '__stack_chk_fail' "$(readelf -sW --dyn-syms "$b")"
done
assert_match "fairway is PIE" 'DYN \(Position-Independent Executable' "$(readelf -h "$CLI")"
# Slurm's commands load the plugin where slurmctld's functions are missing: it binds lazily.
assert_eq "no BIND_NOW in $SO" "" "$(readelf -d "$SO" | grep -E 'BIND_NOW|FLAGS_1.*NOW' || true)"
# The weighing pass asks for 12 lines per job ahead of use (plugin/weigh_pass.c): GCC drops
# the prefetches of a helper it finds free of side effects, which went unnoticed once.
if [ "$(uname -m)" = x86_64 ] && command -v objdump >/dev/null; then
	n_prefetch=$(objdump -d --no-show-raw-insn "$SO" | grep -c 'prefetch' || true)
	check "the packaged plugin's weighing pass prefetches ($n_prefetch prefetch instructions, 12 at least)" \
		test "$n_prefetch" -ge 12
fi
# The installed rules are what a site names in its rule_files: Prometheus must accept them.
RULES=/usr/share/fairway/prometheus/fairway.rules.yml
if command -v promtool >/dev/null; then
	assert_match "promtool check rules $RULES" 'SUCCESS: 5 rules found' "$(promtool check rules "$RULES" 2>&1)"
fi

# --- the installed CLI -----------------------------------------------------------------
if [ -n "$VERSION" ]; then
	assert_eq "installed fairway --version" "fairway $VERSION" "$("$CLI" --version 2>&1)"
else
	assert_eq "installed fairway --version" "fairway ${deb_version%%-*}" "$("$CLI" --version 2>&1)"
fi
fixture=$FW_ROOT/test/data/snapshots/test24_1
algo=$(sed -n 's/.*"algorithm": *"\([a-z_]*\)".*/\1/p' "$fixture.json" | head -n 1)
if shares=$("$CLI" shares -P "$fixture.json" 2>&1); then
	assert_eq "installed fairway shares test24_1.json = Slurm's sshare ($algo)" \
		"$(cat "$fixture.$algo.sshare")" "$shares"
else
	fail "installed fairway shares" "$shares"
fi

# --- a real slurmctld loads the installed plugin ----------------------------------------
# No --plugin-dir: PluginDir is the testbed's empty DIR/plugins and the installed Slurm's
# plugin directory, so priority/fairway can only come from the package.
extra="" && tmpfile extra
echo "SlurmctldDebug=debug" >"$extra"
tb_start --priority-type priority/fairway --conf-extra "$extra"
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"
CTLD_LOG=$TB_DIR/log/slurmctld.log
plugin_dir_conf=$(scontrol show config | awk -F' = ' '/^PluginDir /{print $2}')
assert_eq "PluginDir: the testbed's empty plugins/ and slurmctld's plugin directory" \
	"$TB_DIR/plugins:$PLUGINDIR" "$plugin_dir_conf"
check "the testbed's plugins/ holds no priority_fairway.so" test ! -e "$TB_DIR/plugins/priority_fairway.so"
assert_eq "PriorityType in use" priority/fairway \
	"$(scontrol show config | awk -F' = ' '/^PriorityType /{print $2}')"
assert_match "slurmctld.log: priority/fairway loaded" 'priority/fairway.*loaded' \
	"$(grep -F priority/fairway "$CTLD_LOG" || true)"
assert_eq "no plugin load failure for priority/*" "" \
	"$(grep -E "Couldn't load specified plugin.*priority/|failed to initialize priority plugin" "$CTLD_LOG" || true)"
# Slurm does not log the file it loaded a plugin from; its memory map shows it.
ctld_pid=$(tr -dc '0-9' <"$TB_DIR/run/slurmctld.pid")
assert_eq "slurmctld maps the installed $SO" "$SO" \
	"$(awk '/priority_fairway\.so/{print $6}' "/proc/$ctld_pid/maps" | sort -u)"

check "example accounts" "$EXAMPLE_ACCOUNTS" "$TB_DIR"
blocker=$(sbatch --parsable -A root -N "$NODES" --exclusive -t 30 -D "$TB_DIR/work" \
	-o /dev/null -J blocker --wrap 'sleep 1200')
blocker_running() { [ "$(squeue -h -j "$blocker" -o %T)" = RUNNING ]; }
if wait_for 20 blocker_running; then pass "blocker job runs"; else fail "blocker job runs" "state $(squeue -h -j "$blocker" -o %T)"; fi
job=$(sbatch --parsable --uid=fw_u1 -A bloggs.prj -t 5 -D "$TB_DIR/work" -o /dev/null -n 2 --wrap 'sleep 5')
is_pending() { [ "$(squeue -h -j "$job" -o %T)" = PENDING ]; }
if wait_for 10 is_pending; then pass "job $job pending"; else fail "job $job pending" "state $(squeue -h -j "$job" -o %T)"; fi
prio=$(squeue -h -j "$job" -o %Q)
log "pending job $job: priority $prio; sprio: $(sprio -h -j "$job" 2>&1 | tr -s ' ')"
if [[ $prio =~ ^[0-9]+$ ]] && [ "$prio" -gt 0 ]; then
	pass "pending job has a nonzero priority ($prio)"
else
	fail "pending job has a nonzero priority" "priority '$prio'"
fi
check "slurmctld still answers" scontrol ping
# The daemons go before the package does (the logs stay for the summary).
"$TESTBED" stop "$TB_DIR" >/dev/null 2>&1 || true

# --- dpkg -r, dpkg -P: the machine as it was --------------------------------------------
if out2=$(dpkg -r fairway 2>&1); then
	pass "dpkg -r fairway"
else
	fail "dpkg -r fairway" "$(tail -n 5 <<<"$out2")"
fi
left=""
for p in $regular; do [ -e "$p" ] && left+="$p "; done
assert_eq "dpkg -r removed every file of the package" "" "$left"
check "plugin gone from $PLUGINDIR" test ! -e "$SO"
check "Slurm's own plugins still there" test -f "$PLUGINDIR/priority_multifactor.so"
if out2=$(dpkg -P fairway 2>&1); then
	pass "dpkg -P fairway"
else
	fail "dpkg -P fairway" "$(tail -n 5 <<<"$out2")"
fi
INSTALLED=0
status_after=$(dpkg-query -W -f='${db:Status-Abbrev}' fairway 2>/dev/null || true)
case $status_after in
"" | un* | pn*) pass "fairway not installed after the test (status '${status_after% }')" ;;
*) fail "fairway not installed after the test" "dpkg says '$status_after'" ;;
esac
assert_eq "no dpkg database files of fairway left" "" \
	"$(find /var/lib/dpkg/info -maxdepth 1 -name 'fairway.*' 2>/dev/null)"

finish
