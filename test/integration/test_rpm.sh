#!/usr/bin/env bash
# shellcheck disable=SC2317  # (helper functions are called through wait_for)
# The RPM, end to end: `make rpm` in the build directory builds the source and binary RPMs
# from `make dist`'s tarball; the binary RPM has the expected files, Requires (exactly the
# slurmctld it was built for), Provides and Release, no rpath; `rpm --root` installs it
# into a scratch root, the installed `fairway` CLI works, and a real slurmctld started
# with PluginDir pointing into that root loads priority/fairway from there and gives a
# pending job a nonzero priority.
#
# With FAIRWAY_SLURM_RPMS, as an EL site has it: SchedMD's own RPMs of the same release
# (scripts/slurm-rpms builds them from its tarball) and ours go into one scratch root; our
# Requires resolve to Slurm's packages there, our plugin lies beside Slurm's own, that
# root's slurmctld (the RPMs' programs, FAIRWAY_SLURM_PREFIX=ROOT/usr) loads it from
# Slurm's plugin directory, and `rpm -e fairway` leaves Slurm's files alone.
#
# Environment:
#   FAIRWAY_BUILD_DIR   a configured Fairway build directory (scripts/check exports it;
#                       the test FAILS, never skips, without it).  When it was configured
#                       --with-slurm-prefix=P (a Slurm release built by scripts/slurm-source),
#                       the package is for that Slurm: its plugin lies in P/lib/slurm, the
#                       fairway command's only RUNPATH is P/lib, and the testbed runs P's
#                       daemons (FAIRWAY_SLURM_PREFIX, which must then be P).
#   FAIRWAY_SLURM_RPMS  a directory of SchedMD's RPMs of the build's Slurm release
#                       (scripts/slurm-rpms --version V prints one)
set -euo pipefail
# shellcheck source=test/integration/lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

B=${FAIRWAY_BUILD_DIR:-}
if [ -z "$B" ]; then
	fail "FAIRWAY_BUILD_DIR" "not set (point it at a configured Fairway build directory; scripts/check does)"
	finish
fi
if [ ! -f "$B/Makefile" ]; then
	fail "FAIRWAY_BUILD_DIR" "$B/Makefile is missing (configure Fairway there first: scripts/build $B)"
	finish
fi
for tool in rpm rpmbuild readelf; do
	command -v "$tool" >/dev/null || { fail "tool $tool" "not installed (scripts/install-deps)"; finish; }
done

# --- make rpm ------------------------------------------------------------------------
out="" && tmpfile out
t0=$SECONDS
if make -C "$B" rpm >"$out" 2>&1; then
	pass "make rpm ($((SECONDS - t0))s)"
else
	fail "make rpm" "$(tail -n 15 "$out")"
	finish
fi
bin_rpm=$(grep -E '/RPMS/[^/]+/fairway-[^/]+\.rpm$' "$out" | grep -v debug | head -n 1 || true)
src_rpm=$(grep -E '/SRPMS/fairway-[^/]+\.src\.rpm$' "$out" | head -n 1 || true)
log "binary RPM: $bin_rpm"
log "source RPM: $src_rpm"
check "make rpm printed the binary RPM" test -f "$bin_rpm"
check "make rpm printed the source RPM" test -f "$src_rpm"
[ -f "$bin_rpm" ] || finish
topdir=${bin_rpm%/RPMS/*}
# (read after `make rpm`: make dist may have re-run configure, e.g. for a new git version)
mkvar() { sed -n "s/^$1 = //p" "$B/Makefile" | head -n 1; }
SLURM_VERSION=$(mkvar SLURM_VERSION_STRING)
VERSION=$(mkvar PACKAGE_VERSION)
SLURM_PREFIX=$(mkvar SLURM_PREFIX)
# the plugin directory the spec was given (configure's --with-slurm-plugindir), else the
# spec's default, %{_libdir}/slurm, where SchedMD's RPMs put Slurm's plugins: also for a
# Slurm built under a prefix of its own (a release tarball's)
PLUGINDIR=$(mkvar SLURM_PLUGINDIR_ARG)
PLUGINDIR=${PLUGINDIR:-/usr/lib64/slurm}
log "build dir $B: Fairway $VERSION for Slurm $SLURM_VERSION${SLURM_PREFIX:+ in $SLURM_PREFIX}"
SLURM_RPMS=${FAIRWAY_SLURM_RPMS:-}
if [ -n "$SLURM_RPMS" ]; then
	ctld_rpm=$(compgen -G "$SLURM_RPMS/slurm-slurmctld-$SLURM_VERSION-*.rpm" | head -n 1 || true)
	if [ -z "$ctld_rpm" ]; then
		fail "FAIRWAY_SLURM_RPMS" "no slurm-slurmctld-$SLURM_VERSION-*.rpm in $SLURM_RPMS"
		finish
	fi
elif [ -n "$SLURM_PREFIX" ]; then
	assert_eq "the testbed runs the Slurm of the build (FAIRWAY_SLURM_PREFIX)" "$SLURM_PREFIX" \
		"${FAIRWAY_SLURM_PREFIX:-}"
fi

# --- what the package says --------------------------------------------------------------
q() { rpm -qp --qf "$1" "$bin_rpm" 2>/dev/null; }
assert_eq "Name" fairway "$(q '%{NAME}')"
assert_eq "Version" "$VERSION" "$(q '%{VERSION}')"
assert_eq "Release encodes the Slurm version" "1.slurm$SLURM_VERSION" "$(q '%{RELEASE}' | sed 's/\.el[0-9].*//; s/\.fc[0-9].*//')"
assert_eq "License" GPL-2.0-or-later "$(q '%{LICENSE}')"
nvr=$(q '%{NAME}-%{VERSION}-%{RELEASE}')

files=$(rpm -qlp "$bin_rpm" 2>/dev/null)
log "files: $(grep -v '/\.build-id' <<<"$files" | tr '\n' ' ')"
has_file() { # name regex
	if grep -Eq "^$2\$" <<<"$files"; then pass "$1"; else fail "$1" "no file matches ^$2\$"; fi
}
has_file "plugin in $PLUGINDIR" "${PLUGINDIR//./\\.}/priority_fairway\\.so"
has_file "fairway CLI in %{_bindir}" '/usr/bin/fairway'
assert_eq "no file under a home directory or the build's Slurm prefix" "" \
	"$(grep -E "^(/root/|/home/${SLURM_PREFIX:+|$SLURM_PREFIX})" <<<"$files" || true)"
has_file "man page fairway(1)" '/usr/share/man/man1/fairway\.1(\.gz)?'
has_file "man page priority_fairway(8)" '/usr/share/man/man8/priority_fairway\.8(\.gz)?'
has_file "Prometheus rules" '/usr/share/fairway/prometheus/fairway\.rules\.yml'
has_file "doc README.md" '/usr/share/doc/fairway[^/]*/README\.md'
has_file "doc NEWS" '/usr/share/doc/fairway[^/]*/NEWS'
has_file "doc slurm.conf.fairway.example" '/usr/share/doc/fairway[^/]*/slurm\.conf\.fairway\.example'
has_file "license COPYING" '/usr/share/licenses/fairway[^/]*/COPYING'
assert_eq "no libtool archives, static or development files" "" \
	"$(grep -E '\.(la|a)$|/include/|\.so\.[0-9]' <<<"$files" || true)"
assert_eq "slurm.conf example is a %doc file" 1 \
	"$(rpm -qdp "$bin_rpm" 2>/dev/null | grep -c 'slurm\.conf\.fairway\.example$' || true)"
assert_eq "COPYING is a %license file" 1 \
	"$(rpm -qLp "$bin_rpm" 2>/dev/null | grep -c '/COPYING$' || true)"

requires=$(rpm -qp --requires "$bin_rpm" 2>/dev/null)
log "requires (non-library): $(grep -vE '^(lib|ld-linux|rtld|rpmlib)' <<<"$requires" | tr '\n' ' ')"
assert_eq "Requires exactly slurmctld $SLURM_VERSION" "slurm-slurmctld(x86-64) = $SLURM_VERSION" \
	"$(grep -E '^slurm' <<<"$requires" || true)"
assert_match "Requires libslurm (the CLI)" '^libslurm\.so\.[0-9]+\(\)\(64bit\)$' "$requires"
provides=$(rpm -qp --provides "$bin_rpm" 2>/dev/null)
assert_eq "Provides" "fairway = ${nvr#fairway-}
fairway(x86-64) = ${nvr#fairway-}" "$(sort <<<"$provides")"
assert_match "source RPM BuildRequires slurm-devel = $SLURM_VERSION" \
	"^slurm-devel = $SLURM_VERSION\$" "$(rpm -qp --requires "$src_rpm" 2>/dev/null)"
assert_eq "source RPM carries the tarball and the spec" "fairway-$VERSION.tar.xz fairway.spec" \
	"$(rpm -qlp "$src_rpm" 2>/dev/null | sort | tr '\n' ' ' | sed 's/ $//')"

# --- install into a scratch root (inside rpmbuild's topdir: `make rpm` and `make clean`
# remove it, and it stays there to look at when something fails) ------------------------
ROOT=$topdir/root
rm -rf "$ROOT"
mkdir -p "$ROOT"
if [ -n "$SLURM_RPMS" ]; then
	# Slurm's packages first, as a site installs them before ours (all but debug info);
	# without their scriptlets (a user for slurmdbd, systemd reloads), which need a shell in
	# the root, and this root holds nothing but the packages
	slurm_rpms=()
	for f in "$SLURM_RPMS"/slurm-*"$SLURM_VERSION"-*.rpm; do
		[[ $f == *-debug* ]] || slurm_rpms+=("$f")
	done
	log "Slurm's RPMs: $(printf '%s ' "${slurm_rpms[@]##*/}")"
	if out2=$(rpm --root "$ROOT" --nodeps --noscripts -i "${slurm_rpms[@]}" 2>&1); then
		pass "rpm --root $ROOT --nodeps -i SchedMD's ${#slurm_rpms[@]} RPMs of Slurm $SLURM_VERSION"
	else
		fail "rpm --root --nodeps -i Slurm's RPMs" "$out2"
		finish
	fi
fi
if out2=$(rpm --root "$ROOT" --nodeps -i "$bin_rpm" 2>&1); then
	pass "rpm --root $ROOT --nodeps -i"
else
	fail "rpm --root --nodeps -i" "$out2"
	finish
fi
if [ -n "$SLURM_RPMS" ]; then
	# --nodeps above only because the root has no C library: Slurm's packages must provide
	# what ours requires of Slurm
	while read -r cap op ver; do
		assert_eq "$cap $op $ver is provided in the root" "$ver" \
			"$(rpm --root "$ROOT" -q --qf '%{VERSION}\n' --whatprovides "$cap" 2>&1 | head -n 1)"
	done < <(rpm -qp --requires "$bin_rpm" 2>/dev/null | grep -E '^slurm')
	ctld_plugins=$(rpm --root "$ROOT" -ql slurm 2>/dev/null | sed -n 's|/priority_multifactor\.so$||p')
	assert_eq "our plugin lies beside Slurm's own priority_multifactor.so" "$PLUGINDIR" "$ctld_plugins"
	FAIRWAY_SLURM_PREFIX=$ROOT/usr
fi
assert_eq "rpm -q in the scratch root" "$nvr.x86_64" "$(rpm --root "$ROOT" -q fairway 2>/dev/null)"
check "rpm -V in the scratch root (files as packaged)" rpm --root "$ROOT" -V --nodeps fairway
SO=$ROOT$PLUGINDIR/priority_fairway.so
CLI=$ROOT/usr/bin/fairway
runpaths() { readelf -d "$1" | sed -n 's/.*(\(RPATH\|RUNPATH\)).*\[\(.*\)\]$/\1 \2/p'; }
assert_eq "no RPATH/RUNPATH in ${SO#"$ROOT"}" "" "$(runpaths "$SO")"
assert_eq "RUNPATH of /usr/bin/fairway" "${SLURM_PREFIX:+RUNPATH $SLURM_PREFIX/lib}" "$(runpaths "$CLI")"
for f in "$SO" "$CLI"; do
	n=${f#"$ROOT"}
	assert_match "RELRO in $n" 'GNU_RELRO' "$(readelf -lW "$f")"
	assert_match "stack protector in $n" '__stack_chk_fail' "$(readelf -sW --dyn-syms "$f")"
done
assert_match "fairway is PIE" 'DYN \(Position-Independent Executable' "$(readelf -h "$CLI")"
# Slurm's commands load the plugin where slurmctld's functions are missing: it binds lazily.
assert_eq "no BIND_NOW in ${SO#"$ROOT"}" "" "$(readelf -d "$SO" | grep -E 'BIND_NOW|FLAGS_1.*NOW' || true)"

# --- the installed CLI -----------------------------------------------------------------
assert_eq "installed fairway --version" "fairway $VERSION" "$("$CLI" --version 2>&1)"
fixture=$FW_ROOT/test/data/snapshots/test24_1
algo=$(sed -n 's/.*"algorithm": *"\([a-z_]*\)".*/\1/p' "$fixture.json" | head -n 1)
if shares=$("$CLI" shares -P "$fixture.json" 2>&1); then
	assert_eq "installed fairway shares test24_1.json = Slurm's sshare ($algo)" \
		"$(cat "$fixture.$algo.sshare")" "$shares"
else
	fail "installed fairway shares" "$shares"
fi

# --- a real slurmctld loads the plugin from the installed package -----------------------
extra="" && tmpfile extra
echo "SlurmctldDebug=debug" >"$extra"
if [ -n "$SLURM_RPMS" ]; then
	# Slurm's plugin directory holds ours: no --plugin-dir
	tb_start --priority-type priority/fairway --conf-extra "$extra"
	assert_match "slurmctld of the root: $ROOT/usr/sbin/slurmctld" "^$ROOT/usr/sbin/slurmctld\$" \
		"$(readlink "/proc/$(tr -dc '0-9' <"$TB_DIR/run/slurmctld.pid")/exe")"
else
	tb_start --priority-type priority/fairway --plugin-dir "$ROOT$PLUGINDIR" --conf-extra "$extra"
fi
# shellcheck disable=SC1091
. "$TB_DIR/etc/testbed.env"
CTLD_LOG=$TB_DIR/log/slurmctld.log

assert_eq "PriorityType in use" priority/fairway \
	"$(scontrol show config | awk -F' = ' '/^PriorityType /{print $2}')"
assert_match "PluginDir names the scratch root's plugin directory" "(^|:)$ROOT$PLUGINDIR(:|\$)" \
	"$(scontrol show config | awk -F' = ' '/^PluginDir /{print $2}')"
assert_match "slurmctld.log: priority/fairway loaded" 'priority/fairway.*loaded' \
	"$(grep -F priority/fairway "$CTLD_LOG" || true)"
assert_eq "no plugin load failure for priority/*" "" \
	"$(grep -E "Couldn't load specified plugin.*priority/|failed to initialize priority plugin" "$CTLD_LOG" || true)"
# Slurm does not log the file it loaded a plugin from; its memory map shows it.
ctld_pid=$(tr -dc '0-9' <"$TB_DIR/run/slurmctld.pid")
assert_eq "slurmctld maps priority_fairway.so from the scratch root" "$SO" \
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
if [ -n "$SLURM_RPMS" ]; then
	assert_match "sprio loads the plugin too" "^ *$job " "$(sprio -h -j "$job" 2>&1)"
	"$TESTBED" stop "$TB_DIR" >/dev/null 2>&1 || true
	slurm_files=$(rpm --root "$ROOT" -qa 'slurm*' --qf '[%{FILENAMES}\n]' | sort)
	if out2=$(rpm --root "$ROOT" --nodeps -e fairway 2>&1); then pass "rpm -e fairway"; else fail "rpm -e fairway" "$out2"; fi
	assert_eq "no file of fairway left in the root" "" \
		"$(while read -r f; do [ ! -e "$ROOT$f" ] || [ -d "$ROOT$f" ] || echo "$f"; done < <(rpm -qlp "$bin_rpm" 2>/dev/null))"
	assert_eq "every file of Slurm's packages still there" "" \
		"$(while read -r f; do [ -e "$ROOT$f" ] || [ -L "$ROOT$f" ] || echo "$f"; done <<<"$slurm_files")"
fi

finish
