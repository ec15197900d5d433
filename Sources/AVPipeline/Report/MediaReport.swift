/// What a media file holds, described for people (`text`) or for programs (`json`): the report
/// `avpipe probe` prints. A cut file (a partial download) is described as it is, with what is missing.
public struct MediaReport: Sendable {
    /// The file's container, duration, tags and tracks.
    public let info: MediaInfo
    /// What opening found missing from a cut file (packets per track, an early end), in one line;
    /// nil for a complete file.
    public let incomplete: String?
    /// The frames (packets) a cut file still holds, per indexed track: shown instead of its index's count.
    let presentFrames: [Int: Int]

    /// The report of an opened input, with what a cut file lacks.
    public init(_ demuxer: Demuxer) {
        info = demuxer.info
        let indexed = demuxer.indexedTruncations
        presentFrames = Dictionary(uniqueKeysWithValues: indexed.map { ($0.track, $0.packetsRead) })
        let parts = indexed.map { cut in
            let expected = cut.packetsExpected ?? cut.packetsRead
            return "track \(cut.track) holds \(cut.packetsRead) of its \(expected) packets, \(expected - cut.packetsRead) are missing"
        } + (demuxer.shortfall.map { ["the file is cut short: \($0)"] } ?? [])
        incomplete = parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// The report of `info` alone (nothing known to be missing).
    public init(_ info: MediaInfo) {
        self.info = info
        incomplete = nil
        presentFrames = [:]
    }

    /// The descriptive tags, sorted by key.
    var tags: [(key: String, value: String)] {
        DescriptiveTags.of(info.metadata).sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
    }

    /// A frame rate as a number (29.97…).
    static func decimal(_ rate: Rational) -> Double { Double(rate.numerator) / Double(rate.denominator) }
}
