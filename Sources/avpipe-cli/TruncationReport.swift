import AVPipeline

/// One warning line for an input that ended before its index said (a partial download): the run
/// used everything intact and succeeded; `--strict` would have refused the file instead.
func reportTruncations(_ truncations: [Truncation], input: String) {
    guard !truncations.isEmpty else { return }
    let tracks = truncations.map(\.description).joined(separator: "; ")
    printWarning("'\(input)' is incomplete (\(tracks)); everything intact was used (--strict refuses such files)")
}
