# Sourced by the process scripts (kill, multi-process, power-loss): builds the release test host
# and sets `host` to its path. Environment: SCRATCH_PATH  SwiftPM build directory (optional).
build_flags=(-c release --product AppSettingsTestHost)
if [[ -n "${SCRATCH_PATH:-}" ]]; then build_flags+=(--scratch-path "$SCRATCH_PATH"); fi
swift build "${build_flags[@]}" >&2
host="$(swift build "${build_flags[@]}" --show-bin-path)/AppSettingsTestHost"
