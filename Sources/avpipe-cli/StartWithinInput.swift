import AVPipeline

/// `--start` at or past the input's end is a usage error (exit 64, nothing written), as `frame --at`
/// is: decoding from there would give an empty (or header-only) file and report success.
/// An input that does not say how long it is gets the benefit of the doubt.
func ensureStart(_ start: MediaTime?, within info: MediaInfo) throws {
    guard let start, let duration = info.duration, start >= duration else { return }
    throw AVPipelineError.invalidOption(name: "--start", value: seconds(start),
                                        reason: "the input ends at \(String(oneDecimal: duration.seconds)) s, before --start \(seconds(start))")
}

/// A time in seconds as typed: `20`, `20.5`, `0.123` (to the microsecond, no trailing zeros).
private func seconds(_ time: MediaTime) -> String {
    let micro = Int64((time.seconds * 1_000_000).rounded())
    let whole = "\(micro / 1_000_000)"
    guard micro % 1_000_000 != 0 else { return whole }
    var fraction = String(micro % 1_000_000)
    fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
    while fraction.hasSuffix("0") { fraction.removeLast() }
    return "\(whole).\(fraction)"
}
