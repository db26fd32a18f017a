#!/bin/sh
# run.sh: the main job -- build and install the library and tools into
# ./install, then show what was built (nc-config --all) and demonstrate the
# tools on the bundled CDL in demo/.  Installs missing packages first.
set -e
cd "$(dirname "$0")"
sh scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >build-release.cmake.log
cmake --build build-release -j "$jobs" >/dev/null
cmake --install build-release --prefix "$PWD/install" >/dev/null
echo "installed into $PWD/install"
./install/bin/nc-config --all
if [ -x demo/demo.sh ]; then
    PATH="$PWD/install/bin:$PATH" LD_LIBRARY_PATH="$PWD/install/lib" sh demo/demo.sh
fi
