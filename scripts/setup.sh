#!/usr/bin/env bash
# Installs everything avpipe needs on Debian 12 or 13 (and Ubuntu): the FFmpeg development libraries
# it links, and the tools its tests use as independent oracles. Idempotent; run as root or via sudo.
# scripts/compat runs it inside its Debian 13 root too, so this one list serves both systems.
set -euo pipefail

packages=(
    # build
    pkg-config
    libavformat-dev
    libavcodec-dev
    libavutil-dev
    libswresample-dev
    libswscale-dev
    libavdevice-dev # screen (x11grab) and camera (v4l2) capture
    libsdl2-dev
    # test oracles and media generation
    ffmpeg
    faad
    gstreamer1.0-tools
    gstreamer1.0-plugins-base
    gstreamer1.0-plugins-good
    gstreamer1.0-plugins-bad
    atomicparsley
    espeak-ng       # speech for the parallel-encode seam tests
    mkvtoolnix
    # the real audio-device test
    pulseaudio
    pulseaudio-utils
    # the real window tests of `play`: a headless X server, screenshots, key presses, and a window
    # manager (full screen is the window manager's job)
    xvfb
    x11-apps
    x11-xserver-utils   # xsetroot: the screen flashes of the capture sync test
    xdotool
    openbox
    # network inputs and outputs: a real HTTP/WebDAV and RTMP server, and a real browser playing HLS
    nginx-light
    libnginx-mod-rtmp
    curl
    openssl             # the TLS tests' self-signed certificates
    chromium
    chromium-driver
    # benchmarks and leak checks
    python3
    hyperfine
    time
    valgrind
    # scripts/compat: makes the Debian 13 root the suite also runs in
    mmdebstrap
)

if [[ "$(uname -s)" == "Darwin" ]]; then
    command -v brew >/dev/null || { echo "setup.sh: install Homebrew first" >&2; exit 1; }
    brew list ffmpeg >/dev/null 2>&1 || brew install ffmpeg pkg-config sdl2 faad2 hyperfine
    exit 0
fi

command -v apt-get >/dev/null || { echo "setup.sh: needs apt-get (Debian/Ubuntu)" >&2; exit 1; }
sudo=""
if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "setup.sh: run as root or install sudo" >&2; exit 1; }
    sudo="sudo"
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup.sh: all ${#packages[@]} packages already installed"
    exit 0
fi
echo "setup.sh: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup.sh: done"
