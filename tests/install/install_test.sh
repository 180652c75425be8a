#!/usr/bin/env bash
# CTest's install_consumer: installs BUILD into a fresh prefix under WORK and uses it as
# a user of the library would, with nothing from the build tree on any search path:
#   1. the installed files, and nothing else (no internal archive, tests or benchmarks);
#   2. consumer/ configured with find_package(bulkcrypt), built and run;
#   3. consumer/main.c built with `cc $(pkg-config --cflags --libs bulkcrypt)` and run;
#   4. the bulkcrypt command and its manual page;
#   5. the OpenSSL provider module: `openssl list -provider-path`, then the openssl.cnf
#      of the README, which enables it beside the default provider.
#   install_test.sh BUILD WORK VERSION
# The environment (set by CMakeLists.txt) gives the compilers (CC, CXX), CMake (CMAKE,
# CMAKE_GENERATOR, CMAKE_MAKE_PROGRAM), the install directories (BC_LIBDIR, BC_BINDIR,
# BC_INCLUDEDIR, BC_MANDIR, BC_PROVIDERDIR) and BC_WITH_CLI (0 when the command is not built).
set -euo pipefail
build=${1:?usage: install_test.sh BUILD WORK VERSION}
work=${2:?usage: install_test.sh BUILD WORK VERSION}
version=${3:?usage: install_test.sh BUILD WORK VERSION}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cmake=${CMAKE:-cmake}
cc=${CC:-cc}
cxx=${CXX:-c++}
t0=$SECONDS

step() { echo "== $*"; }
fail() {
    echo "install_test: FAIL: $*" >&2
    exit 1
}

for d in "$BC_LIBDIR" "$BC_BINDIR" "$BC_INCLUDEDIR" "$BC_MANDIR" "$BC_PROVIDERDIR"; do
    if [[ $d == /* ]]; then
        echo "skipped: install directory $d is absolute, so installing would write outside the test's prefix"
        exit 77
    fi
done

# What is installed must find its libraries by itself.
unset LD_LIBRARY_PATH OPENSSL_MODULES OPENSSL_CONF PKG_CONFIG_LIBDIR
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
libdir=$prefix/$BC_LIBDIR
providerdir=$prefix/$BC_PROVIDERDIR

step "cmake --install $build --prefix $prefix"
"$cmake" --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "cmake --install (are bulkcrypt, bulkcrypt_provider and bulkcrypt_cli built?)"; }

# ---- 1. the files --------------------------------------------------------------------
expected=(
    "$BC_INCLUDEDIR/bulkcrypt/bulkcrypt.h"
    "$BC_INCLUDEDIR/bulkcrypt/bulkcrypt.hpp"
    "$BC_LIBDIR/libbulkcrypt.so.$version"
    "$BC_LIBDIR/libbulkcrypt.so.${version%%.*}"
    "$BC_LIBDIR/libbulkcrypt.so"
    "$BC_LIBDIR/cmake/bulkcrypt/bulkcrypt-config.cmake"
    "$BC_LIBDIR/cmake/bulkcrypt/bulkcrypt-config-version.cmake"
    "$BC_LIBDIR/cmake/bulkcrypt/bulkcrypt-targets.cmake"
    "$BC_LIBDIR/pkgconfig/bulkcrypt.pc"
    "$BC_PROVIDERDIR/bulkcrypt.so"
)
if [[ ${BC_WITH_CLI:-1} == 1 ]]; then
    expected+=("$BC_BINDIR/bulkcrypt" "$BC_MANDIR/man1/bulkcrypt.1")
fi
for f in "${expected[@]}"; do
    [[ -e $prefix/$f ]] || fail "not installed: $f"
done
while IFS= read -r f; do
    case " ${expected[*]} " in
        *" $f "*) ;;
        *) [[ $f == "$BC_LIBDIR"/cmake/bulkcrypt/bulkcrypt-targets-*.cmake ]] ||
            fail "installed but not expected: $f" ;;
    esac
done < <(cd "$prefix" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)
[[ -L $libdir/libbulkcrypt.so && -L $libdir/libbulkcrypt.so.${version%%.*} ]] ||
    fail "libbulkcrypt.so and libbulkcrypt.so.${version%%.*} should be symbolic links"
if command -v readelf > /dev/null; then
    readelf -d "$libdir/libbulkcrypt.so.$version" | grep -q "SONAME.*\[libbulkcrypt\.so\.${version%%.*}\]" ||
        fail "libbulkcrypt's SONAME is not libbulkcrypt.so.${version%%.*}"
fi
echo "installed: $(cd "$prefix" && find . \( -type f -o -type l \) | wc -l) files under $prefix"

# The library a program resolves must be the installed one.
resolves_here() {
    local lib
    lib=$(ldd "$1" | awk '/libbulkcrypt\.so/ { print $3 }')
    [[ $lib == "$libdir"/* ]] || fail "$1 resolves libbulkcrypt to '${lib:-nothing}', not under $libdir"
}

# ---- 2. find_package ---------------------------------------------------------------------
step "consumer through find_package(bulkcrypt)"
gen=()
[[ -n ${CMAKE_GENERATOR:-} ]] && gen+=(-G "$CMAKE_GENERATOR")
[[ -n ${CMAKE_MAKE_PROGRAM:-} ]] && gen+=("-DCMAKE_MAKE_PROGRAM=$CMAKE_MAKE_PROGRAM")
"$cmake" -S "$here/consumer" -B "$work/consumer" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_C_COMPILER=$cc" "-DCMAKE_CXX_COMPILER=$cxx" "-DCMAKE_PREFIX_PATH=$prefix" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > "$work/consumer-configure.log" 2>&1 ||
    { cat "$work/consumer-configure.log"; fail "configuring the consumer"; }
grep -F "bulkcrypt $version from $libdir/cmake/bulkcrypt" "$work/consumer-configure.log" ||
    { cat "$work/consumer-configure.log"; fail "find_package did not find the installed package"; }
"$cmake" --build "$work/consumer" > "$work/consumer-build.log" 2>&1 ||
    { cat "$work/consumer-build.log"; fail "building the consumer"; }
for exe in consumer_c consumer_cxx; do
    resolves_here "$work/consumer/$exe"
    "$work/consumer/$exe" || fail "$exe"
done
package_providerdir=$(cat "$work/consumer/provider-dir.txt")
[[ $package_providerdir -ef $providerdir ]] ||
    fail "bulkcrypt_PROVIDER_DIR is $package_providerdir, the module is in $providerdir"

# ---- 3. pkg-config -----------------------------------------------------------------------
step "consumer through pkg-config"
command -v pkg-config > /dev/null || fail "pkg-config not found (scripts/setup.sh installs it)"
export PKG_CONFIG_PATH=$libdir/pkgconfig
pc_version=$(pkg-config --modversion bulkcrypt)
[[ $pc_version == "$version" ]] || fail "bulkcrypt.pc says version $pc_version, the project $version"
[[ $(pkg-config --variable=providerdir bulkcrypt) -ef $providerdir ]] ||
    fail "bulkcrypt.pc's providerdir is $(pkg-config --variable=providerdir bulkcrypt), not $providerdir"
# shellcheck disable=SC2046 # the flags are words
"$cc" -std=c99 -Wall -Wextra -pedantic -Werror "-DBC_EXPECTED_VERSION=\"$pc_version\"" \
    "$here/consumer/main.c" -o "$work/consumer_pc" $(pkg-config --cflags --libs bulkcrypt) \
    "-Wl,-rpath,$(pkg-config --variable=libdir bulkcrypt)" || fail "cc \$(pkg-config --cflags --libs bulkcrypt)"
resolves_here "$work/consumer_pc"
"$work/consumer_pc" || fail "the pkg-config consumer"

# ---- 4. the command and its manual page ---------------------------------------------------
if [[ ${BC_WITH_CLI:-1} == 1 ]]; then
    step "the bulkcrypt command"
    bin=$prefix/$BC_BINDIR/bulkcrypt
    ! ldd "$bin" | grep "not found" || fail "$bin lacks a library"
    [[ $("$bin" --version) == "bulkcrypt $version" ]] || fail "bulkcrypt --version: $("$bin" --version)"
    "$bin" --help > /dev/null || fail "bulkcrypt --help"
    key=000102030405060708090a0b0c0d0e0f
    iv=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
    head -c 100000 /dev/zero > "$work/zeros"
    "$bin" encrypt --raw --device cpu -a aes-128-ctr --key-hex $key --iv-hex $iv < "$work/zeros" > "$work/zeros.bc"
    openssl enc -aes-128-ctr -K $key -iv $iv < "$work/zeros" | cmp - "$work/zeros.bc" ||
        fail "the installed command's aes-128-ctr differs from openssl enc"
    echo "bulkcrypt --version, --help and a raw aes-128-ctr encryption (as openssl enc's): ok"

    step "the manual page"
    page=$prefix/$BC_MANDIR/man1/bulkcrypt.1
    if command -v groff > /dev/null; then
        groff -man -Tutf8 -P-cbou -ww "$page" > "$work/bulkcrypt.1.txt" 2> "$work/groff.log" || fail "groff failed on $page"
        [[ ! -s $work/groff.log ]] || { cat "$work/groff.log"; fail "groff warns about $page"; }
        renderer=groff
    elif command -v man > /dev/null; then
        MANWIDTH=80 MAN_DISABLE_SECCOMP=1 man -l "$page" > "$work/bulkcrypt.1.txt" 2>&1 || fail "man -l $page"
        renderer="man -l"
    else
        renderer=""
        echo "skipped: rendering the manual page: neither groff nor man is installed"
    fi
    if [[ -n $renderer ]]; then
        for section in NAME SYNOPSIS DESCRIPTION "EXIT STATUS"; do
            grep -q "$section" "$work/bulkcrypt.1.txt" || fail "the rendered page has no $section"
        done
        echo "$renderer renders $page ($(wc -l < "$work/bulkcrypt.1.txt") lines)"
    fi
fi

# ---- 5. the OpenSSL provider ----------------------------------------------------------
step "the provider module from $providerdir"
resolves_here "$providerdir/bulkcrypt.so"
export OPENSSL_CONF=/dev/null
listed=$(openssl list -provider-path "$providerdir" -provider bulkcrypt -cipher-algorithms)
grep -i "@ bulkcrypt" <<< "$listed" | sed -n 1,3p
grep -qi "@ bulkcrypt" <<< "$listed" || fail "openssl list shows no cipher of the bulkcrypt provider"

# The README's openssl.cnf: both providers active, bulkcrypt preferred where it has the
# algorithm. The same bytes as the default provider's, and SHA-256 still there.
cat > "$work/openssl.cnf" << EOF
openssl_conf = openssl_init

[openssl_init]
providers = provider_sect
alg_section = algorithm_sect

[provider_sect]
default = default_sect
bulkcrypt = bulkcrypt_sect

[default_sect]
activate = 1

[bulkcrypt_sect]
module = $providerdir/bulkcrypt.so
activate = 1
device = cpu
threshold = 0

[algorithm_sect]
default_properties = ?provider=bulkcrypt
EOF
head -c 1048576 /dev/zero > "$work/data"
key=$(printf '%064x' 7)
iv=$(printf '%032x' 9)
openssl enc -aes-256-ctr -K "$key" -iv "$iv" -in "$work/data" -out "$work/data.default"
OPENSSL_CONF=$work/openssl.cnf openssl list -providers | grep -q bulkcrypt ||
    fail "openssl.cnf did not load the provider"
OPENSSL_CONF=$work/openssl.cnf openssl enc -aes-256-ctr -K "$key" -iv "$iv" -propquery provider=bulkcrypt \
    -in "$work/data" -out "$work/data.bulkcrypt" || fail "openssl enc through the provider"
cmp "$work/data.default" "$work/data.bulkcrypt" || fail "the provider's aes-256-ctr differs from the default provider's"
OPENSSL_CONF=$work/openssl.cnf openssl dgst -sha256 "$work/data" > /dev/null ||
    fail "with the provider preferred, SHA-256 (default provider) is gone"
echo "openssl.cnf: the provider loaded beside the default one; aes-256-ctr as the default provider's"

echo "install_test: ok in $((SECONDS - t0))s"
